#!/bin/sh
# record-overhead.sh - what profiling costs the workload: a CPU-bound program
# (~2 s) and an mmap/munmap-heavy one, unprofiled vs tachy record vs perf
# record, at -F 999 and at -F 3999 with call chains. All commands of one
# workload run interleaved in the same `tachy run` (RUNS rounds each); the
# ratios are against the unprofiled run of the same round set.
# Wall time is the figure the targets are about (<= 1.05x at -F 999, <= 1.10x
# at -F 3999 -g); on a shared machine it is noisy, so the CPU time (user +
# system of the profiler and the workload together) is printed beside it.
# By default tachy asks for mmap records only while they are needed (the
# command's first 100 ms, and processes it starts later); the --mmap-records
# rows ask for them all along, as perf does: every mmap(2) of the workload
# pays for them (seed 002).
# First, the cost of -g (CFI unwinding) on a program without frame pointers
# against perf --call-graph dwarf (ONLY_UNWIND=1: that alone).
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
RUNS=${RUNS:-7}
CPU_N=${CPU_N:-8000000000}
MMAP_N=${MMAP_N:-200000}
out="$TOP/bench/out/record-overhead"
mkdir -p "$out"
[ -x "$T" ] || { echo "record-overhead: build tachy first (make)"; exit 1; }
cc -O1 -fno-omit-frame-pointer -o "$out/wcpu" bench/workload-cpu.c || exit 1
cc -O1 -fno-omit-frame-pointer -o "$out/wmmap" bench/workload-mmap.c || exit 1
have_perf=0
perf record -q -e cpu-clock -o "$out/probe.data" true >/dev/null 2>&1 && have_perf=1
[ $have_perf = 1 ] || echo "record-overhead: perf record does not work here: perf columns skipped"

# ratios NAME -n unprofiled CMD -n PEER CMD...: RUNS interleaved runs of each,
# the median wall and CPU time of each peer against the unprofiled one.
ratios() {
	name=$1
	shift
	"$T" run -r "$RUNS" -w 1 --style none --export-json "$out/$name.json" "$@" >/dev/null || return 1
	python3 - "$out/$name.json" "$name" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
res = {r['tachy']['name']: r for r in d['results']}
base = res['unprofiled']
def wall(r): return statistics.median(x['wall_ns'] for x in r['tachy']['runs'])
def cpu(r): return statistics.median(x['user_ns'] + x['system_ns'] for x in r['tachy']['runs'])
print(f"{sys.argv[2]}: unprofiled median wall {wall(base)/1e9:.3f} s, CPU {cpu(base)/1e9:.3f} s")
print(f"  {'command':<24} {'wall ratio':>10} {'CPU ratio':>10}")
for name, r in res.items():
    if name == 'unprofiled':
        continue
    print(f"  {name:<24} {wall(r)/wall(base):>9.3f}x {cpu(r)/cpu(base):>9.3f}x")
PY
}
bench() { # NAME PROG ARG
	name=$1 prog=$2 arg=$3
	set -- -n unprofiled "$prog $arg" \
		-n tachy-F999 "$T record -q -F 999 -o $out/t1.prof -- $prog $arg" \
		-n tachy-F3999-g "$T record -q -F 3999 -g -o $out/t2.prof -- $prog $arg" \
		-n tachy-F999-mmaprec "$T record -q --mmap-records -F 999 -o $out/t3.prof -- $prog $arg" \
		-n tachy-F3999-g-mmaprec "$T record -q --mmap-records -F 3999 -g -o $out/t4.prof -- $prog $arg"
	if [ $have_perf = 1 ]; then
		set -- "$@" -n perf-F999 "perf record -q -e cpu-clock -F 999 -o $out/p1.data -- $prog $arg" \
			-n perf-F3999-g "perf record -q -e cpu-clock -F 3999 -g -o $out/p2.data -- $prog $arg"
	fi
	ratios "$name" "$@" || return 1
}
# Unwinding from CFI (issue 12): the -O2 program without frame pointers,
# record -g (--call-graph auto = dwarf) at 999 and 3999 Hz against perf
# --call-graph dwarf; then what the samples lost and the unwinding cost.
bench_unwind() { # NAME PROG ARG
	name=$1 prog=$2 arg=$3
	set -- -n unprofiled "$prog $arg" \
		-n tachy-F999-g "$T record -q -F 999 -g -o $out/u1.prof -- $prog $arg" \
		-n tachy-F3999-g "$T record -q -F 3999 -g -o $out/u2.prof -- $prog $arg"
	if [ $have_perf = 1 ]; then
		set -- "$@" -n perf-F999-dwarf "perf record -q -e cpu-clock -F 999 --call-graph dwarf -o $out/p3.data -- $prog $arg" \
			-n perf-F3999-dwarf "perf record -q -e cpu-clock -F 3999 --call-graph dwarf -o $out/p4.data -- $prog $arg"
	fi
	ratios "$name" "$@" || return 1
	for hz in 999 3999; do
		"$T" record -F $hz -g -o "$out/u.prof" -- "$prog" "$arg" 2>&1 >/dev/null |
			awk -v hz=$hz '/samples of/ {for (i = 1; i <= NF; i++) {if ($(i+1) == "samples") n = $i; if ($(i+1) == "lost,") l = $i}
				 sub(/.*profiler CPU /, ""); cpu = $0}
			     /unwound/ {sub(/.*unwound: /, ""); u = $0}
			     END {printf "  -F %s -g: %s samples, %s lost (%.3f%%); profiler CPU %s; unwinding: %s\n", hz, n, l, 100 * l / (n + l), cpu, u}'
	done
}
cc -O2 -fomit-frame-pointer -o "$out/wnofp" bench/workload-nofp.c || exit 1
bench_unwind cpu-bound-nofp "$out/wnofp" "${NOFP_N:-2000000000}"
[ "${ONLY_UNWIND:-0}" = 1 ] && exit 0
bench cpu-bound "$out/wcpu" "$CPU_N"
bench mmap-heavy "$out/wmmap" "$MMAP_N"
