#!/bin/sh
# rss-methods.sh - how tachy run could measure each run's peak RSS, measured:
# the floor each method puts under a run's figure (what `true` shows) and
# the CPU time of RUNS runs of /bin/true (task-clock of the harness and its
# children, perf stat), interleaved, REPS repetitions, as ratios to the
# posix_spawn + wait4 loop (bench/spawnloop.c) in the same repetition.
#   helper: tachy's spawner helper clones the runs (the default)
#   self:   tachy clones the runs itself (TACHY_SPAWN_HELPER=0)
#   ptrace: vfork + PTRACE_TRACEME, VmHWM read at the exit stop (rss-ptrace.c)
#   sh bench/rss-methods.sh [REPS] [RUNS]
set -u
cd "$(dirname "$0")/.."
out=bench/out
bare() { echo "--no-counters --style none -r $1 /bin/true"; }
if [ "${1:-}" = --one ]; then # one method's runs, under perf stat
	case $2 in
	loop) "$out/spawnloop" "$3" /bin/true ;;
	helper) TACHY_SYSROOT=/nonexistent ./tachy run $(bare "$3") ;;
	self) TACHY_SPAWN_HELPER=0 TACHY_SYSROOT=/nonexistent ./tachy run $(bare "$3") ;;
	ptrace) "$out/rss-ptrace" "$3" /bin/true ;;
	esac >/dev/null 2>&1
	exit
fi
reps=${1:-3}
runs=${2:-2000}
mkdir -p "$out"
cc -O2 -o "$out/spawnloop" bench/spawnloop.c || exit 1
cc -O2 -o "$out/rss-ptrace" bench/rss-ptrace.c || exit 1
[ -x ./tachy ] || { echo "build tachy first (make)"; exit 1; }
perf stat -e task-clock -x, -o /dev/null /bin/true 2>/dev/null || { echo "needs perf stat"; exit 1; }

echo "peak RSS of /bin/true (KiB), by method:"
hwm=$(/bin/sh -c 'exec grep VmHWM /proc/self/status' | awk '{print $2}')
echo "  (grep's own VmHWM, for scale: $hwm)"
for m in helper self; do
	TACHY_SPAWN_HELPER=$([ $m = helper ] && echo 1 || echo 0) ./tachy run -r 5 --style none \
		--no-counters /bin/true --export-json "$out/rss-$m.json" >/dev/null 2>&1
	python3 -c 'import json,sys; t = json.load(open(sys.argv[1]))["results"][0]["tachy"]
print("  %-7s max RSS %5d, floor %5d, measurable %s" % (sys.argv[2],
      max(r["maxrss_kb"] for r in t["runs"]), t["maxrss_floor_kb"], t["maxrss_measurable"]))' \
		"$out/rss-$m.json" $m
done
printf '  %-7s VmHWM at the exit stop %5d, floor     0\n' ptrace "$("$out/rss-ptrace" 5 /bin/true)"

: >"$out/rss-methods.txt"
i=0
while [ $i -lt "$reps" ]; do
	for m in loop helper self ptrace; do
		perf stat -x, -e task-clock -o "$out/.tc" sh "$0" --one $m "$runs" >/dev/null 2>&1
		echo "$m $(grep task-clock "$out/.tc" | cut -d, -f1)" >>"$out/rss-methods.txt"
	done
	i=$((i + 1))
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
echo "CPU time of $runs runs of /bin/true (task-clock, ms), $reps interleaved repetitions:"
for m in loop helper self ptrace; do
	r=$(awk -v p="$m" '$1=="loop"{l[++nl]=$2} $1==p{t[++nt]=$2}
		END {for (i=1;i<=nl;i++) print t[i]/l[i]}' "$out/rss-methods.txt" | median)
	all=$(awk -v p="$m" '$1==p{printf " %.0f", $2}' "$out/rss-methods.txt")
	printf '  %-7s %5.3fx the loop  [%s ]\n' "$m" "$r" "$all"
done
