#!/bin/sh
# validation.sh - the statistical validation of tachy's verdicts (simulated
# comparisons through lib/verdict.c and lib/stats.c, and simulated adaptive
# runs through lib/runner.c and lib/results.c; fixed seeds). Prints the
# tables of BENCHMARKS.md's "Statistical validation" section. Not a speed
# benchmark: its figures are rates, the same on any machine.
set -eu
cd "$(dirname "$0")/.."
mkdir -p bench/out
make -s --no-print-directory bench-progs >/dev/null || { echo "validation: make bench-progs failed"; exit 1; }
build/std/bench/validation
