#!/bin/sh
# history-study.sh - the planted-step history study (issue 24; what
# bench/history-study.c measures is said at its top). Deterministic.
# Usage: bench/history-study.sh [HISTORIES-PER-CELL] (default 200)
set -eu
cd "$(dirname "$0")/.."
out=bench/out/history-study
mkdir -p "$out"
make -s --no-print-directory bench-progs >/dev/null || { echo "history-study: make bench-progs failed"; exit 1; }
build/std/bench/history-study "${1:-200}"
