#!/bin/sh
# run-all.sh - run every benchmark in bench/ (each bench/NAME.sh prints its
# ratios against peers measured in the same run). Figures go in BENCHMARKS.md.
set -u
cd "$(dirname "$0")/.."
mkdir -p bench/out
st=0
for b in bench/*.sh; do
	[ "$b" = bench/run-all.sh ] && continue
	echo "== $b"
	sh "$b" || st=1
done
exit $st
