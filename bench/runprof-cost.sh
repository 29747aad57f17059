#!/bin/sh
# runprof-cost.sh - what `tachy run --profile` costs the timed runs: the
# workload unprofiled, under --profile with frame-pointer chains
# (TACHY_PROFILE_STACK=0, the kernel's), and under --profile with the chains
# record -g takes (the default: registers and STACK bytes of user stack a
# sample, unwound with CFI after the reap), REPS repetitions of one tachy
# run each way, the order rotating (interleaved), each giving the median of
# its RUNS runs; prints the median of those medians each way and the ratios
# against unprofiled, the samples whose chain reached main (or deeper), the
# time outside the timed region, the export's bytes of per-run profile per
# run, and the time the analysis takes for 100 runs x 2 commands x 5,000
# functions (bench/runprof-analysis.c).
#   sh bench/runprof-cost.sh [REPS] [RUNS] [N]
#   WORKLOAD=planted (default): tests/data/planted.c at -O2, built without
#     frame pointers (the compiler's default), N its size (about 0.1 s of CPU
#     a run at 20000000); WORKLOAD=planted-fp: the same with
#     -fno-omit-frame-pointer; WORKLOAD=xz: the system's xz -9 -c of N bytes
#     of /usr/bin/* (stripped, no frame pointers; N default 1000000)
#   STACK=BYTES: the copy's size for the third mode (default: tachy's)
set -u
cd "$(dirname "$0")/.."
reps=${1:-9}
runs=${2:-10}
workload=${WORKLOAD:-planted}
out=bench/out
mkdir -p "$out"
[ -x ./tachy ] || { echo "build tachy first (make)"; exit 1; }
case $workload in
planted | planted-fp)
	n=${3:-20000000}
	fp=""
	[ "$workload" = planted-fp ] && fp=-fno-omit-frame-pointer
	cc -O2 $fp -o "$out/planted-rpc" tests/data/planted.c || exit 1
	cmd="$out/planted-rpc $n 1"
	;;
xz)
	n=${3:-1000000}
	cat /usr/bin/* 2> /dev/null | head -c "$n" > "$out/rpc-xz.in"
	cmd="xz -9 -c $out/rpc-xz.in"
	;;
*)
	echo "WORKLOAD: planted, planted-fp or xz"
	exit 2
	;;
esac
make -s --no-print-directory bench-progs >/dev/null || { echo "runprof-cost: make bench-progs failed"; exit 1; }

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
med_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$1"; }
# the median task-clock (CPU time, the sampling's interrupts included), s
cpu_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["tachy"]["summary"]["task-clock"]["median"] / 1e9)' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", b / a}'; }
modes="plain fp cfi"
for m in $modes; do : > "$out/rpc-$m"; : > "$out/rpc-$m.cpu"; done
i=0
while [ $i -lt "$reps" ]; do
	case $((i % 3)) in
	0) order="plain fp cfi" ;;
	1) order="fp cfi plain" ;;
	*) order="cfi plain fp" ;;
	esac
	for mode in $order; do
		opt="--profile"
		stack=${STACK:-}
		case $mode in
		plain) opt="" ;;
		fp) stack=0 ;;
		esac
		TACHY_PROFILE_STACK=$stack ./tachy run -q --style none $opt -r "$runs" \
			--output null --export-json "$out/rpc-$mode.json" "$cmd" || exit 1
		med_of "$out/rpc-$mode.json" >> "$out/rpc-$mode"
		cpu_of "$out/rpc-$mode.json" >> "$out/rpc-$mode.cpu"
	done
	i=$((i + 1))
done
p=$(median < "$out/rpc-plain" | awk '{printf "%.4f", $1}')
f=$(median < "$out/rpc-fp" | awk '{printf "%.4f", $1}')
q=$(median < "$out/rpc-cfi" | awk '{printf "%.4f", $1}')
echo "$workload, wall of the timed runs, median of $reps medians of $runs runs: unprofiled ${p} s," \
	"--profile frame pointers ${f} s (ratio $(ratio "$p" "$f")), --profile CFI chains ${q} s" \
	"(ratio $(ratio "$p" "$q"))"
p=$(median < "$out/rpc-plain.cpu" | awk '{printf "%.4f", $1}')
f=$(median < "$out/rpc-fp.cpu" | awk '{printf "%.4f", $1}')
q=$(median < "$out/rpc-cfi.cpu" | awk '{printf "%.4f", $1}')
echo "$workload, task-clock of the timed runs, the same way: unprofiled ${p} s, frame pointers ${f} s" \
	"(ratio $(ratio "$p" "$f")), CFI chains ${q} s (ratio $(ratio "$p" "$q"))"
for mode in fp cfi; do
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["tachy"]["profile"]
runs = sum(len(x) for x in p["runs"])
size = len(json.dumps(p, separators=(",", ":")))
# the samples with main on their chain (its total), against all
names = [s[0] for s in p["symbols"]]
main = [i for i, s in enumerate(names) if s == "main"]
tot = sum(r[0] for x in p["runs"] for r in x)
inmain = 0
for x in p["runs"]:
    for r in x:
        e = r[2:]
        for k in range(0, len(e), 3):
            if e[k] in main:
                inmain += e[k + 2]
print("%s: stack copy %s bytes; %.1f%% of the samples have main on their chain; %.1f ms a run "
      "outside the timed region; export %d bytes of tachy.profile a run (%d symbols, %.0f samples a run)" % (
    sys.argv[2], p.get("stack_size", 0), 100.0 * inmain / max(tot, 1), p["cost_ms"] / runs, size // runs,
    len(p["symbols"]), tot / runs))
' "$out/rpc-$mode.json" "$mode"
done
build/std/bench/runprof-analysis
