#!/bin/sh
# validation.sh - the statistical validation of tachy's verdicts (simulated
# comparisons through lib/verdict.c and lib/stats.c, and simulated adaptive
# runs through lib/runner.c and lib/results.c; fixed seeds). Prints the
# tables of BENCHMARKS.md's "Statistical validation" section. Not a speed
# benchmark: its figures are rates, the same on any machine.
set -eu
cd "$(dirname "$0")/.."
mkdir -p bench/out
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -Iinclude -Itests/unit -o bench/out/validation \
	bench/validation.c lib/runner.c lib/results.c lib/spawn.c lib/verdict.c lib/stats.c \
	lib/error.c lib/jsonw.c lib/outfile.c lib/utf8.c -lm
bench/out/validation
