#!/bin/sh
# report-speed.sh - 1,000,000 samples with call chains turned into a flat
# profile and a flame graph: tachy report (flat + --flame) against perf
# report (flat) + perf script | stackcollapse-perf.pl | flamegraph.pl, on
# recordings of the same program. Interleaved, REPS repetitions; prints the
# median ratio. FlameGraph's scripts are looked for in $FLAMEGRAPH, on PATH,
# and in /work/peers/FlameGraph; the bench skips with a message without them.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
REPS=${REPS:-3}
SAMPLES=${SAMPLES:-1000000}
out="$TOP/bench/out/report-speed"
mkdir -p "$out"
[ -x "$T" ] || { echo "report-speed: build tachy first (make)"; exit 1; }
fg=""
for d in "${FLAMEGRAPH:-}" /work/peers/FlameGraph; do
	[ -n "$d" ] && [ -f "$d/flamegraph.pl" ] && { fg=$d; break; }
done
if [ -z "$fg" ] && command -v flamegraph.pl >/dev/null 2>&1; then
	fg=$(dirname "$(command -v flamegraph.pl)")
fi
[ -n "$fg" ] || { echo "report-speed: skipped: FlameGraph's scripts not found (set FLAMEGRAPH=DIR)"; exit 0; }
command -v perf >/dev/null 2>&1 || { echo "report-speed: skipped: perf is not installed"; exit 0; }
command -v perl >/dev/null 2>&1 || { echo "report-speed: skipped: perl is not installed"; exit 0; }

# The recordings: two processes of a program with a few levels of calls,
# sampled at 24999 Hz until about SAMPLES samples are in (SAMPLES / 25000 CPU
# seconds). Made once and kept in bench/out.
cc -O1 -fno-omit-frame-pointer -o "$out/hot" tests/data/hot.c || exit 1
n=$((SAMPLES / 50000 * 250000000))
job="$out/hot $n & $out/hot $n; wait"
if [ ! -s "$out/t.prof" ] || [ ! -s "$out/perf.data" ]; then
	echo "report-speed: recording ~$SAMPLES samples with each tool (once; kept in $out)"
	"$T" record -q -F 24999 -g -o "$out/t.prof" -- sh -c "$job" || exit 1
	perf record -q -e cpu-clock -F 24999 -g -o "$out/perf.data" -- sh -c "$job" >/dev/null 2>&1 || exit 1
fi
ts=$("$T" report "$out/t.prof" | awk 'NR == 1 {print $3}')
ps=$(perf report -i "$out/perf.data" --stdio --header-only 2>/dev/null | awk '/sample_freq|# Samples/ {print}' | head -n 1)
echo "report-speed: tachy profile $ts samples; perf.data: ${ps:-?}"

now() { date +%s.%N; }
tachy_once() {
	"$T" report "$out/t.prof" > "$out/t.flat" && "$T" report --flame "$out/t.svg" "$out/t.prof"
}
perf_once() {
	perf report -i "$out/perf.data" --stdio --no-children > "$out/p.flat" 2>/dev/null &&
	perf script -i "$out/perf.data" 2>/dev/null | perl "$fg/stackcollapse-perf.pl" |
		perl "$fg/flamegraph.pl" > "$out/p.svg"
}
: > "$out/times"
i=0
while [ $i -lt "$REPS" ]; do
	a=$(now); tachy_once || exit 1; b=$(now)
	perf_once || exit 1; c=$(now)
	echo "$a $b $c" >> "$out/times"
	i=$((i + 1))
done
python3 - "$out/times" <<'PY'
import statistics, sys
t = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
tachy = statistics.median(b - a for a, b, c in t)
peer = statistics.median(c - b for a, b, c in t)
print(f"report-speed: tachy report flat+flame {tachy:.3f} s; perf report + FlameGraph {peer:.3f} s; "
      f"tachy is {peer / tachy:.1f}x faster (median of {len(t)}, interleaved)")
PY
