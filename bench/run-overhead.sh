#!/bin/sh
# run-overhead.sh - harness overhead of `tachy run`: the total wall time of
# 2000 runs of /bin/true by tachy (runs cloned by the spawner helper, and
# from tachy itself: tachy-self; tachy-nopin: the helper and tachy not held
# on one CPU), against the least a harness can do
# (bench/spawnloop.c: posix_spawn + wait4 in a loop), hyperfine -N and
# perf stat -r, measured in the same run, interleaved, REPS repetitions;
# then the CPU time (task-clock) of the loop, tachy and tachy-self.
# Prints the median time of each and its ratio to the loop.
#   sh bench/run-overhead.sh [REPS] [RUNS]
set -u
cd "$(dirname "$0")/.."
reps=${1:-7}
runs=${2:-2000}
out=bench/out
mkdir -p "$out"
cc -O2 -o "$out/spawnloop" bench/spawnloop.c || exit 1
[ -x ./tachy ] || { echo "build tachy first (make)"; exit 1; }

now() { date +%s%N; }
peers="loop tachy tachy-nopin tachy-self tachy-bare"
command -v hyperfine >/dev/null 2>&1 && peers="$peers hyperfine"
perf stat -r 1 -o /dev/null /bin/true >/dev/null 2>&1 && peers="$peers perf"

one() {
	case $1 in
	loop) "$out/spawnloop" "$runs" /bin/true ;;
	tachy) ./tachy run --style none -r "$runs" /bin/true >/dev/null 2>&1 ;;
	tachy-nopin) TACHY_SPAWN_PIN=0 ./tachy run --style none -r "$runs" /bin/true \
		>/dev/null 2>&1 ;;
	# the runs cloned from tachy itself, not from the spawner helper (their
	# peak RSS is then floored at tachy's own)
	tachy-self) TACHY_SPAWN_HELPER=0 ./tachy run --style none -r "$runs" /bin/true \
		>/dev/null 2>&1 ;;
	# the harness alone: no counters, no machine facts (TSC calibration, /proc scan)
	tachy-bare) TACHY_SYSROOT=/nonexistent ./tachy run --no-counters --style none \
		-r "$runs" /bin/true >/dev/null 2>&1 ;;
	hyperfine) hyperfine -N --style none -r "$runs" /bin/true >/dev/null 2>&1 ;;
	perf) perf stat -r "$runs" -o /dev/null /bin/true >/dev/null 2>&1 ;;
	esac
}

: >"$out/run-overhead.txt"
i=0
while [ $i -lt "$reps" ]; do
	for p in $peers; do
		t0=$(now); one "$p"; t1=$(now)
		echo "$p $(( (t1 - t0) / 1000 ))" >>"$out/run-overhead.txt"
	done
	i=$((i + 1))
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
echo "harness overhead: $runs runs of /bin/true, $reps interleaved repetitions"
echo "  (ratio: the median over repetitions of this peer's time / the loop's time in the same repetition)"
base=$(grep '^loop ' "$out/run-overhead.txt" | awk '{print $2}' | median)
for p in $peers; do
	m=$(grep "^$p " "$out/run-overhead.txt" | awk '{print $2}' | median)
	r=$(awk -v p="$p" '$1=="loop"{l[++nl]=$2} $1==p{t[++nt]=$2}
		END {for (i=1;i<=nl;i++) print t[i]/l[i]}' "$out/run-overhead.txt" | median)
	all=$(awk -v p="$p" '$1=="loop"{l[++nl]=$2} $1==p{t[++nt]=$2}
		END {for (i=1;i<=nl;i++) printf " %.2f", t[i]/l[i]}' "$out/run-overhead.txt")
	awk -v p="$p" -v m="$m" -v r="$r" -v all="$all" \
		'BEGIN {printf "  %-11s %8.1f ms (median)  %5.3fx the posix_spawn+wait4 loop  [%s ]\n", p, m/1000, r, all}'
done

# CPU time (task-clock of the harness and its children, from perf stat):
# less noisy than wall time on a shared machine.
if perf stat -e task-clock -x, -o /dev/null /bin/true 2>/dev/null; then
	: >"$out/run-overhead-cpu.txt"
	i=0
	while [ $i -lt 3 ]; do
		for p in loop tachy tachy-self; do
			c=$(perf stat -e task-clock -x, -o "$out/.tc" sh -c "$(
				case $p in
				loop) echo "$out/spawnloop $runs /bin/true" ;;
				tachy) echo "./tachy run --style none -r $runs /bin/true >/dev/null 2>&1" ;;
				tachy-self) echo "TACHY_SPAWN_HELPER=0 ./tachy run --style none -r $runs /bin/true >/dev/null 2>&1" ;;
				esac)" && grep task-clock "$out/.tc" | cut -d, -f1)
			echo "$p $c" >>"$out/run-overhead-cpu.txt"
		done
		i=$((i + 1))
	done
	awk '{s[$1]+=$2; n[$1]++} END {l = s["loop"]/n["loop"]; t = s["tachy"]/n["tachy"]; f = s["tachy-self"]/n["tachy-self"]
		printf "  CPU time (task-clock, mean of %d): loop %.0f ms, tachy %.0f ms: %.3fx (tachy-self %.0f ms: %.3fx)\n",
		n["loop"], l, t, t/l, f, f/l}' \
		"$out/run-overhead-cpu.txt"
fi
