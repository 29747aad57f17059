#!/bin/sh
# runprof-cost.sh - what `tachy run --profile` costs: the timed runs of
# tests/data/planted.c (about 0.1 s of CPU a run) under --profile at the
# default rate against unprofiled, REPS repetitions of one tachy run each
# way, the order alternating (interleaved), each giving the median of its
# RUNS runs; prints the median of those medians each way and their ratio,
# the export's bytes of per-run profile per run, and the time the analysis
# takes for 100 runs x 2 commands x 5,000 functions (bench/runprof-analysis.c).
#   sh bench/runprof-cost.sh [REPS] [RUNS] [N]
set -u
cd "$(dirname "$0")/.."
reps=${1:-9}
runs=${2:-10}
n=${3:-20000000}
out=bench/out
mkdir -p "$out"
cc -O1 -fno-omit-frame-pointer -o "$out/planted" tests/data/planted.c || exit 1
[ -x ./tachy ] || { echo "build tachy first (make)"; exit 1; }
make -s --no-print-directory bench-progs >/dev/null || { echo "runprof-cost: make bench-progs failed"; exit 1; }

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
med_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$1"; }
: > "$out/rpc-plain"
: > "$out/rpc-prof"
i=0
while [ $i -lt "$reps" ]; do
	for mode in $( [ $((i % 2)) = 0 ] && echo "plain prof" || echo "prof plain"); do
		opt=""
		[ "$mode" = prof ] && opt="--profile"
		./tachy run -q --style none $opt -r "$runs" --export-json "$out/rpc-$mode.json" \
			"$out/planted $n 1" || exit 1
		med_of "$out/rpc-$mode.json" >> "$out/rpc-$mode"
	done
	i=$((i + 1))
done
p=$(median < "$out/rpc-plain" | awk '{printf "%.4f", $1}')
q=$(median < "$out/rpc-prof" | awk '{printf "%.4f", $1}')
echo "timed runs, median of $reps medians of $runs runs: unprofiled ${p} s, --profile ${q} s," \
	"ratio $(awk -v a="$p" -v b="$q" 'BEGIN {printf "%.3f", b / a}')"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["tachy"]["profile"]
runs = sum(len(x) for x in p["runs"])
size = len(json.dumps(p, separators=(",", ":")))
print("export: %d bytes of tachy.profile for %d runs: %d bytes a run (%d symbols, %.0f samples a run)" % (
    size, runs, size // runs, len(p["symbols"]), sum(r[0] for x in p["runs"] for r in x) / runs))
' "$out/rpc-prof.json"
build/std/bench/runprof-analysis
