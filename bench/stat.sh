#!/bin/sh
# stat.sh - `tachy stat -A big1 big2` against ministat on the same two files
# of N numbers each (default 5,000,000), run interleaved REPS times (default
# 5, alternating which goes first). Prints each run's wall time, CPU time
# (user + system, every thread) and peak RSS, the ratio of the median times
# (wall, and CPU: on a loaded machine the wall time is mostly waiting), whether the outputs are identical, and the
# peak RSS against the size of the parsed numbers (2 * N * 8 bytes).
#   MINISTAT=path  the peer (default: ministat on PATH; Debian's package is a
#                  2015 ministat whose median of an even count and relative
#                  interval differ, so its output is not identical)
set -u
cd "$(dirname "$0")/.."
N=${N:-5000000}
REPS=${REPS:-5}
PEER=${MINISTAT:-ministat}
TACHY=${TACHY:-./tachy}
dir=bench/out/stat
mkdir -p "$dir"

command -v "$PEER" >/dev/null 2>&1 || { echo "stat.sh: skipped: no ministat ($PEER)"; exit 0; }
[ -x /usr/bin/time ] || { echo "stat.sh: skipped: /usr/bin/time is missing (as root: apt-get install time)"; exit 0; }
[ -x "$TACHY" ] || { echo "stat.sh: build tachy first (make)"; exit 1; }

# Two files of N timings-like numbers (4 decimals), made once per N.
for i in 1 2; do
	f="$dir/big$i.$N"
	[ -s "$f" ] && continue
	awk -v n="$N" -v s="$i" 'BEGIN { srand(s); for (k = 0; k < n; k++)
		printf "%.4f\n", 50 + s / 100 + 10 * (rand() + rand() + rand() - 1.5) }' > "$f.tmp" &&
		mv "$f.tmp" "$f"
done
a="$dir/big1.$N" b="$dir/big2.$N"

# one NAME CMD...: run, append "seconds kilobytes" to $dir/NAME.times
one() {
	name=$1
	shift
	/usr/bin/time -f "%e %M %U %S" -o "$dir/$name.last" "$@" > "$dir/$name.out" || exit 1
	awk '{ print $1, $2, $3 + $4 }' "$dir/$name.last" >> "$dir/$name.times"
	awk -v n="$name" '{ printf "  %-8s %6.2f s  %6.2f s CPU  %7d KB peak RSS\n", n, $1, $3 + $4, $2 }' \
		"$dir/$name.last"
}
rm -f "$dir/ministat.times" "$dir/tachy.times"
echo "stat.sh: $PEER vs $TACHY stat, -A on two files of $N numbers, $REPS rounds"
r=1
while [ $r -le "$REPS" ]; do
	if [ $((r % 2)) = 1 ]; then
		one ministat "$PEER" -A "$a" "$b"
		one tachy "$TACHY" stat -A "$a" "$b"
	else
		one tachy "$TACHY" stat -A "$a" "$b"
		one ministat "$PEER" -A "$a" "$b"
	fi
	r=$((r + 1))
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
tm=$(cut -d' ' -f1 "$dir/ministat.times" | median)
tt=$(cut -d' ' -f1 "$dir/tachy.times" | median)
rss=$(cut -d' ' -f2 "$dir/tachy.times" | sort -n | tail -n 1)
prss=$(cut -d' ' -f2 "$dir/ministat.times" | sort -n | tail -n 1)
cm=$(cut -d' ' -f3 "$dir/ministat.times" | median)
ct=$(cut -d' ' -f3 "$dir/tachy.times" | median)
echo "median: ministat $tm s, tachy $tt s; speed-up $(awk -v a="$tm" -v b="$tt" 'BEGIN { printf "%.1f", a / b }')x"
echo "median CPU: ministat $cm s, tachy $ct s; $(awk -v a="$cm" -v b="$ct" 'BEGIN { printf "%.1f", a / (b > 0 ? b : 0.01) }')x less"
awk -v r="$rss" -v p="$prss" -v n="$N" 'BEGIN { d = 2 * n * 8 / 1024;
	printf "peak RSS: tachy %d KB = %.2f x the parsed numbers (%d KB); ministat %d KB\n", r, r / d, d, p }'
if cmp -s "$dir/ministat.out" "$dir/tachy.out"; then
	echo "output: identical"
else
	echo "output: differs (expected with Debian's 2015 ministat):"
	diff "$dir/ministat.out" "$dir/tachy.out" | sed 's/^/  /'
fi

# Small input: the start-up is the run. Two files of 100 numbers, the
# default output (a plot and the test), `tachy run` interleaving both
# (SMALL_RUNS rounds after 3 warm-ups); SMALL=0 skips it.
[ "${SMALL:-1}" = 0 ] && exit 0
for i in 1 2; do
	awk -v s="$i" 'BEGIN { srand(s); for (k = 0; k < 100; k++)
		printf "%.4f\n", 50 + s / 10 + rand() }' > "$dir/small$i"
done
echo "stat.sh: small input: $PEER vs $TACHY stat on two files of 100 numbers, ${SMALL_RUNS:-40} rounds"
"$TACHY" run -r "${SMALL_RUNS:-40}" -w 3 -N -n ministat "$PEER $dir/small1 $dir/small2" \
	-n "tachy stat" "$TACHY stat $dir/small1 $dir/small2" 2>&1 |
	grep -E '^Benchmark|Time \(|Summary|reference|faster|slower|no difference'
