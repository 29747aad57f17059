#!/bin/sh
# history-study.sh - the planted-step history study (issue 24; what
# bench/history-study.c measures is said at its top). Deterministic.
# Usage: bench/history-study.sh [HISTORIES-PER-CELL] (default 200)
set -eu
cd "$(dirname "$0")/.."
out=bench/out/history-study
mkdir -p "$out"
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -Iinclude -o "$out/study" bench/history-study.c \
	lib/history-detect.c lib/stats.c lib/verdict.c lib/error.c -lm
"$out/study" "${1:-200}"
