#!/bin/sh
# offcpu-cost.sh - what record --off-cpu costs a program switching 100,000
# times a second (BENCHMARKS.md, issue 15):
# 1. The program: bench/pingpong.c, two threads ping-ponging a byte on two
#    pipes, both pinned to CPU 0 by the program itself (unpinned, a wake-up
#    across CPUs costs a VM's idle exit and the rate falls to ~25,000 a
#    second here), with the loop work between messages calibrated first so
#    that the unprofiled program switches RATE times a second (its own clock).
#    The profilers are not pinned.
# 2. Unprofiled vs tachy record --off-cpu -g (chains at about 999
#    switch-outs a second, the default), --off-cpu -g --off-cpu-chains all
#    (a chain at every switch-out), --off-cpu (no chain), perf record -e
#    context-switches -c 1 -g (every switch) and -g at perf's
#    default rate (the command as the issue names it), interleaved in one
#    tachy run of RUNS rounds: median wall and CPU ratios, and the cost per
#    switch (the extra wall time over the switches of a run).
# 3. The kernel alone (bench/switchcost.c: the events opened by a program
#    that only walks the rings): the workload's extra CPU per switch for the
#    switch records (all --off-cpu asks without -g), a context-switch sample
#    at each switch-out, its kernel call chain,
#    the 2048-byte user stack copy of -g, and perf -g's frame-pointer chain;
#    KRUNS interleaved rounds.
# RATE (default 100000), ROUNDS round trips per run (default 200000: ~4 s),
# RUNS (default 7), KRUNS (default 5); BEFORE=path/to/tachy adds the rows of
# another build (before/after in the same run). Needs root for the kernel
# chains.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
RATE=${RATE:-100000}
ROUNDS=${ROUNDS:-200000}
RUNS=${RUNS:-7}
KRUNS=${KRUNS:-5}
out="$TOP/bench/out/offcpu"
mkdir -p "$out"
[ -x "$T" ] || { echo "offcpu-cost: build tachy first (make)"; exit 1; }
cc -O2 -pthread -fno-omit-frame-pointer -o "$out/pingpong" bench/pingpong.c || exit 1
cc -O2 -o "$out/switchcost" bench/switchcost.c || exit 1
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
WORK=${WORK:-$("$out/pingpong" -c "$RATE" 0)}
pp="$out/pingpong $ROUNDS $WORK 0"
echo "pingpong: work $WORK for $RATE switches/s pinned to CPU 0; unprofiled, by its own clock:"
for i in 1 2 3; do "$out/pingpong" "$ROUNDS" "$WORK" 0 2>&1; done

have_perf=0
perf record -q -e context-switches -c 1 -o "$out/probe.data" true >/dev/null 2>&1 && have_perf=1
set -- -n unprofiled "$pp" \
	-n tachy-off-cpu-g "$T record -q --off-cpu -g -o $out/pp1.prof -- $pp" \
	-n tachy-off-cpu-g-all "$T record -q --off-cpu -g --off-cpu-chains all -o $out/pp5.prof -- $pp" \
	-n tachy-off-cpu "$T record -q --off-cpu -o $out/pp2.prof -- $pp"
if [ -n "${BEFORE:-}" ]; then # another tachy binary (an older build) beside this one
	set -- "$@" -n before-off-cpu-g "$BEFORE record -q --off-cpu -g -o $out/pp3.prof -- $pp" \
		-n before-off-cpu "$BEFORE record -q --off-cpu -o $out/pp4.prof -- $pp"
fi
if [ $have_perf = 1 ]; then
	set -- "$@" -n perf-cs-c1-g "perf record -q -e context-switches -c 1 -g -o $out/pp1.data -- $pp" \
		-n perf-cs-g "perf record -q -e context-switches -g -o $out/pp2.data -- $pp"
else
	echo "offcpu-cost: perf record -e context-switches does not work here: perf rows skipped"
fi
"$T" run -r "$RUNS" -w 1 --style none --export-json "$out/pingpong.json" "$@" >/dev/null 2>&1 || exit 1
python3 - "$out/pingpong.json" "$ROUNDS" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
switches = 2 * int(sys.argv[2])
res = {r['tachy']['name']: r for r in d['results']}
base = res['unprofiled']
def wall(r): return statistics.median(x['wall_ns'] for x in r['tachy']['runs'])
def cpu(r): return statistics.median(x['user_ns'] + x['system_ns'] for x in r['tachy']['runs'])
def rng(r):
    w = sorted(x['wall_ns'] / wall(base) for x in r['tachy']['runs'])
    return f"{w[0]:.2f}-{w[-1]:.2f}"
print(f"pingpong: unprofiled median wall {wall(base)/1e9:.3f} s, CPU {cpu(base)/1e9:.3f} s, "
      f"{switches / (wall(base) / 1e9):.0f} switches/s over the whole run")
print(f"  {'command':<20} {'wall ratio':>10} {'range':>10} {'CPU ratio':>10} {'us/switch':>10}")
for name, r in res.items():
    if name != 'unprofiled':
        print(f"  {name:<20} {wall(r)/wall(base):>9.3f}x {rng(r):>10} {cpu(r)/cpu(base):>9.3f}x "
              f"{(wall(r) - wall(base)) / switches / 1e3:>10.2f}")
PY
"$T" report "$out/pp1.prof" | sed -n '1p;/^Chains:/p'

# The kernel alone: the workload's CPU time (user + system) per switch.
modes="none switch cs,switch cs,switch,kchain cs,switch,kchain,stack=2048 cs,switch,kchain,uchain"
: > "$out/switchcost.txt"
k=0
while [ $k -lt "$KRUNS" ]; do
	for m in $modes; do
		"$out/switchcost" "$m" -- $pp 2>&1 | tr '\n' ' ' |
			sed -n "s/.*: \([0-9]*\) switches.s.*CPU \([0-9.]*\) s.*/$m \1 \2\n/p" >> "$out/switchcost.txt"
	done
	k=$((k + 1))
done
python3 - "$out/switchcost.txt" "$ROUNDS" <<'PY'
import collections, statistics, sys
switches = 2 * int(sys.argv[2])
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3:
        d[f[0]].append(float(f[2]))
what = {'switch': 'switch records, out and in (--off-cpu)',
        'cs,switch': '+ a context-switches sample',
        'cs,switch,kchain': '+ kernel call chain',
        'cs,switch,kchain,stack=2048': '+ 2048-byte user stack copy (--off-cpu -g)',
        'cs,switch,kchain,uchain': '+ frame-pointer user chain instead (perf -g)'}
if 'none' not in d:
    sys.exit("switchcost: no runs")
b = statistics.median(d['none'])
print(f"the kernel alone: the workload's CPU {b:.3f} s unprofiled ({len(d['none'])} runs), per switch:")
for m, label in what.items():
    if m in d:
        print(f"  {label:<46} +{(statistics.median(d[m]) - b) / switches * 1e6:5.2f} us")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
