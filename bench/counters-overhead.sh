#!/bin/sh
# counters-overhead.sh - what counting costs in `tachy run`: the total wall
# time of RUNS runs of /bin/true by tachy with the default events, with
# --no-counters, against the least a harness can do (bench/spawnloop.c:
# posix_spawn + wait4 in a loop) and perf stat -r with its default events,
# measured in the same run, interleaved, REPS repetitions. Prints the
# median time of each, its ratio to the loop, and the per-repetition
# ratios of tachy with counters to the loop and to tachy without.
#   sh bench/counters-overhead.sh [REPS] [RUNS]
set -u
cd "$(dirname "$0")/.."
reps=${1:-15}
runs=${2:-2000}
out=bench/out
mkdir -p "$out"
cc -O2 -o "$out/spawnloop" bench/spawnloop.c || exit 1
[ -x ./tachy ] || { echo "build tachy first (make)"; exit 1; }
# The cost of counting alone (needs lib/libtachy.a and its libraries).
make -s --no-print-directory bench-progs >/dev/null || { echo "counters-overhead: make bench-progs failed"; exit 1; }
build/std/bench/counters-cost "${COST_ROUNDS:-15}" "${COST_N:-200}"

now() { date +%s%N; }
peers="loop nocount count"
perf stat -r 1 -o /dev/null /bin/true >/dev/null 2>&1 && peers="$peers perf"

one() {
	case $1 in
	loop) "$out/spawnloop" "$runs" /bin/true ;;
	nocount) ./tachy run --style none --no-counters -r "$runs" /bin/true >/dev/null 2>&1 ;;
	count) ./tachy run --style none -r "$runs" /bin/true >/dev/null 2>&1 ;;
	perf) perf stat -r "$runs" -o /dev/null /bin/true >/dev/null 2>&1 ;;
	esac
}

res="$out/counters-overhead.txt"
: >"$res"
i=0
while [ $i -lt "$reps" ]; do
	for p in $peers; do
		t0=$(now); one "$p"; t1=$(now)
		echo "$p $(( (t1 - t0) / 1000 ))" >>"$res"
	done
	i=$((i + 1))
done

median() { grep "^$1 " "$res" | awk '{print $2}' | sort -n |
	awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
base=$(median loop)
echo "counting overhead: $runs runs of /bin/true, median of $reps interleaved repetitions"
for p in $peers; do
	m=$(median "$p")
	case $p in
	loop) what="posix_spawn+wait4 loop" ;;
	nocount) what="tachy run --no-counters" ;;
	count) what="tachy run (default events)" ;;
	perf) what="perf stat -r (default events)" ;;
	esac
	awk -v p="$what" -v m="$m" -v b="$base" \
		'BEGIN {printf "  %-30s %8.1f ms  %5.3fx the loop\n", p, m/1000, m/b}'
done
# Paired ratios per repetition (the same moment of a noisy machine), and
# their medians: the figure to read.
awk '$1=="loop"{l[++nl]=$2} $1=="nocount"{n[++nn]=$2} $1=="count"{c[++nc]=$2}
	function median(a, k,   i, j, t) {
		for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) {
			t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return (k % 2) ? a[(k+1)/2] : (a[k/2] + a[k/2+1]) / 2
	}
	END {
		printf "  counting/loop per repetition:      "
		for (i = 1; i <= nl; i++) { r1[i] = c[i]/l[i]; printf " %.3f", r1[i] }
		printf "\n  counting/no-counting per repetition:"
		for (i = 1; i <= nl; i++) { r2[i] = c[i]/n[i]; printf " %.3f", r2[i] }
		printf "\n  no-counting/loop per repetition:   "
		for (i = 1; i <= nl; i++) { r3[i] = n[i]/l[i]; printf " %.3f", r3[i] }
		printf "\n  median paired ratios: counting/loop %.3f, counting/no-counting %.3f, no-counting/loop %.3f\n",
			median(r1, nl), median(r2, nl), median(r3, nl)
	}' "$res"

# CPU time (task-clock of the harness and its children, from perf stat):
# much less noisy than wall time on a shared machine.
if perf stat -e task-clock -x, -o /dev/null /bin/true 2>/dev/null; then
	cpu="$out/counters-overhead-cpu.txt"
	: >"$cpu"
	i=0
	while [ $i -lt "${CPU_REPS:-5}" ]; do
		for p in loop nocount count; do
			case $p in
			loop) c="$out/spawnloop $runs /bin/true" ;;
			nocount) c="./tachy run --style none --no-counters -r $runs /bin/true" ;;
			count) c="./tachy run --style none -r $runs /bin/true" ;;
			esac
			perf stat -e task-clock -x, -o "$out/.tc" sh -c "$c >/dev/null 2>&1" &&
				echo "$p $(grep task-clock "$out/.tc" | cut -d, -f1)" >>"$cpu"
		done
		i=$((i + 1))
	done
	awk '{s[$1]+=$2; n[$1]++}
	END {
		l = s["loop"]/n["loop"]; a = s["nocount"]/n["nocount"]; b = s["count"]/n["count"]
		printf "  CPU time (task-clock of harness + children, mean of %d):\n", n["loop"]
		printf "    loop %.0f ms, tachy --no-counters %.0f ms (%.3fx), tachy with counters %.0f ms (%.3fx)\n", l, a, a/l, b, b/l
		printf "    counting/no-counting: %.3fx\n", b/a
	}' "$cpu"
fi
