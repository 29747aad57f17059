#!/bin/sh
# record-floor.sh - tachy record's cost against the kernel's floor (issue 28,
# item 5): bench/record-floor.c opens the sampling event tachy record opens
# (cpu-clock, the same rate, sample_type, inherit, rings and wake-ups; with
# -g the same registers and the same stack copy) on the same command and
# drains the rings without reading them. What it costs is the kernel's work
# for each sample; what tachy record costs above it is tachy's.
# Workloads: bench/workload-cpu.c (-O1, frame pointers) and
# bench/workload-nofp.c (-O2 -fomit-frame-pointer), as record-overhead.sh
# builds them. Rows: unprofiled, floor and tachy record at -F 999, floor and
# tachy record at -F 3999 -g; STACKS="16384 32768" adds floor and tachy rows
# at -F 3999 -g with those stack copies (tachy: --call-graph dwarf,N). All
# rows of a workload run interleaved in one `tachy run`, RUNS rounds
# (default 7) after a warm-up round; ONLY=cpu or ONLY=nofp runs one workload;
# CPU_N and NOFP_N their iterations. Printed: the median wall and CPU time
# (user + system of the command and its recorder) of each row against the
# unprofiled one, and tachy's against the floor's at the same settings: the
# ratio of the medians and the median of the ratios paired within a round
# (a round's load is shared by its rows). Goals: <= 1.02x the floor at
# 999 Hz, <= 1.05x at 3999 Hz -g. Needs root or perf_event_paranoid <= 1
# (the samples' kernel part, as tachy record takes it as root).
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
RUNS=${RUNS:-7}
CPU_N=${CPU_N:-8000000000}
NOFP_N=${NOFP_N:-2000000000}
STACKS=${STACKS:-}
ONLY=${ONLY:-}
out="$TOP/bench/out/record-floor"
mkdir -p "$out"
[ -x "$T" ] || { echo "record-floor: build tachy first (make)"; exit 1; }
cc -O2 -o "$out/record-floor" bench/record-floor.c || exit 1
cc -O1 -fno-omit-frame-pointer -o "$out/wcpu" bench/workload-cpu.c || exit 1
cc -O2 -fomit-frame-pointer -o "$out/wnofp" bench/workload-nofp.c || exit 1
F="$out/record-floor"
"$F" -F 999 -- true || { echo "record-floor: skipped: the sampling event cannot be opened here"; exit 0; }

bench() { # NAME PROG ARG
	name=$1 prog=$2 arg=$3
	case " ${ONLY:-$name} " in *" $name "*) ;; *) return 0 ;; esac
	set -- -n unprofiled "$prog $arg" \
		-n floor-F999 "$F -F 999 -- $prog $arg" \
		-n tachy-F999 "$T record -q -F 999 -o $out/t1.prof -- $prog $arg" \
		-n floor-F3999-g "$F -F 3999 -g -- $prog $arg" \
		-n tachy-F3999-g "$T record -q -F 3999 -g -o $out/t2.prof -- $prog $arg"
	for s in $STACKS; do
		set -- "$@" -n "floor-F3999-g-$s" "$F -F 3999 -g --stack $s -- $prog $arg" \
			-n "tachy-F3999-g-$s" "$T record -q -F 3999 --call-graph dwarf,$s -o $out/t3.prof -- $prog $arg"
	done
	"$T" run -r "$RUNS" -w 1 --style none --export-json "$out/$name.json" "$@" >/dev/null || return 1
	python3 - "$out/$name.json" "$name" <<'PY'
import json, statistics as st, sys
d = json.load(open(sys.argv[1]))
res = {r['tachy']['name']: r['tachy']['runs'] for r in d['results']}
wall = lambda r: [x['wall_ns'] for x in r]
cpu = lambda r: [x['user_ns'] + x['system_ns'] for x in r]
base = res['unprofiled']
print(f"{sys.argv[2]}: unprofiled median wall {st.median(wall(base))/1e9:.3f} s, CPU {st.median(cpu(base))/1e9:.3f} s, {len(base)} rounds")
print(f"  {'row':<22} {'wall/unprof':>11} {'CPU/unprof':>10} | {'tachy/floor wall':>16} {'paired':>7} {'range':>13} {'CPU':>7}")
for name, r in res.items():
    if name == 'unprofiled':
        continue
    line = f"  {name:<22} {st.median(wall(r))/st.median(wall(base)):>10.3f}x {st.median(cpu(r))/st.median(cpu(base)):>9.3f}x"
    if name.startswith('tachy-') and 'floor-' + name[6:] in res:
        f = res['floor-' + name[6:]]
        pr = sorted(a / b for a, b in zip(wall(r), wall(f)))
        line += (f" | {st.median(wall(r))/st.median(wall(f)):>15.3f}x {st.median(pr):>6.3f}x"
                 f" {pr[0]:>6.3f}-{pr[-1]:.3f} {st.median(cpu(r))/st.median(cpu(f)):>6.3f}x")
    print(line)
PY
}
bench cpu "$out/wcpu" "$CPU_N"
bench nofp "$out/wnofp" "$NOFP_N"
# The ring bytes the kernel wrote for each stack copy (one run of each).
for s in 65528 $STACKS; do
	"$F" -v -F 3999 -g --stack "$s" -- "$out/wnofp" "$NOFP_N" 2>&1 |
		sed -n "s/^record-floor: /  nofp -F 3999 -g, stack copy $s: /p"
done
echo "record-floor: load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
