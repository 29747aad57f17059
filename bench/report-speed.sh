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
ps=$(perf report -i "$out/perf.data" --stats 2>/dev/null | awk '/SAMPLE events/ {print $3; exit}')
echo "report-speed: tachy profile: $ts samples; perf.data: ${ps:-?} samples"

now() { date +%s.%N; }
# Per repetition: tachy flat, tachy flame, perf report, perf script |
# stackcollapse-perf.pl | flamegraph.pl; the four times on one line.
: > "$out/times"
i=0
while [ $i -lt "$REPS" ]; do
	a=$(now)
	"$T" report "$out/t.prof" > "$out/t.flat" || exit 1
	b=$(now)
	"$T" report --flame "$out/t.svg" "$out/t.prof" || exit 1
	c=$(now)
	perf report -i "$out/perf.data" --stdio --no-children > "$out/p.flat" 2>/dev/null || exit 1
	d=$(now)
	perf script -i "$out/perf.data" 2>/dev/null | perl "$fg/stackcollapse-perf.pl" |
		perl "$fg/flamegraph.pl" > "$out/p.svg" || exit 1
	e=$(now)
	echo "$a $b $c $d $e" >> "$out/times"
	i=$((i + 1))
done
python3 - "$out/times" <<'PY'
import statistics, sys
t = [list(map(float, l.split())) for l in open(sys.argv[1])]
m = lambda i: statistics.median(r[i + 1] - r[i] for r in t)
tf, tg, pf, pg = m(0), m(1), m(2), m(3)
print(f"report-speed (median of {len(t)}, interleaved):")
print(f"  flat profile: tachy report {tf:.3f} s, perf report {pf:.3f} s ({pf / tf:.1f}x)")
print(f"  flame graph:  tachy report --flame {tg:.3f} s, perf script + FlameGraph {pg:.3f} s ({pg / tg:.1f}x)")
print(f"  both:         tachy {tf + tg:.3f} s, peers {pf + pg:.3f} s: tachy is {(pf + pg) / (tf + tg):.1f}x faster")
PY
