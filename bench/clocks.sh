#!/bin/sh
# clocks.sh - what a clock read costs, as ratios measured in the same run
# (seed 003: the choice of clock decides what timing costs), and what
# `tachy env` / `tachy clocks --no-measure` cost against lscpu, which reads
# the same kind of sysfs files. Interleaved, several repetitions.
set -u
cd "$(dirname "$0")/.."
T=./tachy
out=bench/out
mkdir -p $out
command -v python3 >/dev/null 2>&1 || { echo "clocks.sh: python3 missing, skipped"; exit 0; }

# BENCH_SMOKE=1 (make bench-smoke): one run, 3 hyperfine rounds.
runs=5 hruns=30
[ "${BENCH_SMOKE:-0}" = 1 ] && runs=1 hruns=3
rm -f $out/clocks-*.json
echo "clock read cost relative to the tick clock's read (tachy clocks, $runs runs, medians):"
i=0
while [ $i -lt $runs ]; do i=$((i + 1)); $T clocks --json > $out/clocks-$i.json || exit 1; done
python3 - $out/clocks-*.json <<'PY'
import json, statistics, sys
runs = [json.load(open(f)) for f in sys.argv[1:]]
tick = runs[0]["tick_clock"]["name"]
base = "rdtsc" if tick == "tsc" else "CLOCK_MONOTONIC"
names = [c["name"] for c in runs[0]["clocks"] if c["available"]]
def cost(r, n):
    return next(c["cost_ns"] for c in r["clocks"] if c["name"] == n)
b = statistics.median(cost(r, base) for r in runs)
print("  tick clock: %s (base for ratios: %s, %.1f ns per read)" % (tick, base, b))
for n in names:
    v = statistics.median(cost(r, n) for r in runs)
    print("  %-26s %8.1f ns  %7.2fx" % (n, v, v / b))
PY

if command -v hyperfine >/dev/null 2>&1 && command -v lscpu >/dev/null 2>&1; then
	echo "tachy env and tachy clocks --no-measure against lscpu (hyperfine -N, interleaved by hyperfine's rounds):"
	hyperfine -N -w 1 -r $hruns --export-json $out/env.json \
		"$T env" "$T clocks --no-measure" "lscpu" >/dev/null 2>&1 || exit 1
	python3 - $out/env.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[2]["median"]
for x in r:
    print("  %-28s median %7.2f ms  %6.2fx lscpu" % (x["command"], x["median"] * 1e3, x["median"] / base))
PY
else
	echo "clocks.sh: hyperfine or lscpu missing, env comparison skipped"
fi
