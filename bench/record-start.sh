#!/bin/sh
# record-start.sh - the fixed cost of a recording (issue 36, item 6): `tachy
# record -F 999 -o X -- /bin/true` against `perf record -F 999 -o Y --
# /bin/true`, the kernel's floor (bench/record-floor.c: the same sampling
# event on /bin/true, its rings drained unread) and /bin/true alone. The four
# rows run interleaved, REPS rounds (default 20, the order turned each
# round) after one warm-up round (tachy's caches filled); each run's wall
# time and CPU time (user + system of the recorder and /bin/true) by
# bench/timed.c, to the microsecond. Printed: each row's median wall and CPU time and its
# excess over /bin/true alone. Goal: tachy <= 30 ms of wall time and CPU.
# Needs root or perf_event_paranoid <= 1.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T=${TACHY:-$TOP/tachy}
REPS=${REPS:-20}
out="$TOP/bench/out/record-start"
mkdir -p "$out"
[ -x "$T" ] || { echo "record-start: build tachy first (make)"; exit 1; }
cc -O2 -o "$out/record-floor" bench/record-floor.c || exit 1
cc -O2 -o "$out/timed" bench/timed.c || exit 1
F="$out/record-floor"
"$F" -F 999 -- /bin/true > /dev/null 2>&1 ||
	{ echo "record-start: skipped: the sampling event cannot be opened here"; exit 0; }
PERF=
command -v perf > /dev/null 2>&1 && perf record -q -F 999 -o "$out/perf.data" -- /bin/true \
	> /dev/null 2>&1 && PERF=perf
TACHY_CACHE_DIR=${TACHY_CACHE_DIR:-$out/cache}
export TACHY_CACHE_DIR

rows="true floor tachy${PERF:+ perf}"
# one NAME: run row NAME once, append "wall cpu" to $out/NAME.times
one() {
	case $1 in
	true) set -- "$1" /bin/true ;;
	floor) set -- "$1" "$F" -F 999 -- /bin/true ;;
	tachy) set -- "$1" "$T" record -F 999 -o "$out/x.prof" -- /bin/true ;;
	perf) set -- "$1" perf record -q -F 999 -o "$out/perf.data" -- /bin/true ;;
	esac
	name=$1
	shift
	"$out/timed" "$out/$name.last" "$@" > /dev/null 2>&1 ||
		{ echo "record-start: $name failed:"; "$@"; exit 1; }
	cat "$out/$name.last" >> "$out/$name.times"
}
for r in $rows; do one "$r"; done # warm-up: caches, page cache
for r in $rows; do rm -f "$out/$r.times"; done
echo "record-start: $rows, -F 999 -- /bin/true, $REPS interleaved rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
i=1
while [ $i -le "$REPS" ]; do
	# turn the order each round: no row always first after another
	set -- $rows
	k=$((i % $#))
	while [ $k -gt 0 ]; do
		x=$1
		shift
		set -- "$@" "$x"
		k=$((k - 1))
	done
	for r in "$@"; do one "$r"; done
	i=$((i + 1))
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
bw=$(cut -d' ' -f1 "$out/true.times" | median)
bc=$(cut -d' ' -f2 "$out/true.times" | median)
printf '%-7s %10s %10s %14s %14s\n' row "wall (ms)" "CPU (ms)" "wall - true" "CPU - true"
for r in $rows; do
	w=$(cut -d' ' -f1 "$out/$r.times" | median)
	c=$(cut -d' ' -f2 "$out/$r.times" | median)
	awk -v r="$r" -v w="$w" -v c="$c" -v bw="$bw" -v bc="$bc" \
		'BEGIN { printf "%-7s %10.1f %10.1f %14.1f %14.1f\n", r, 1e3 * w, 1e3 * c, 1e3 * (w - bw), 1e3 * (c - bc) }'
done
