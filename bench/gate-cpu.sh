#!/bin/sh
# gate-cpu.sh - the gate on the figure that proves it (issue 33): on a loaded
# machine (two busy loops beside), a 5% CPU slowdown (bench/gate-loop.c with
# a factor 1.05) against the same program at 1.00, K trials of
#   tachy run -r RUNS --gate-on cpu --fail-if-slower 1 LOOP LOOP'
# Counted per trial: the default report proves it by the wall time (the
# summary's verdict "slower"), by the CPU line (the wall time proves
# nothing, a CPU figure does), by either; the gate on the CPU time trips
# (exit 3), and the gate on task-clock of the same runs (tachy compare
# --gate-on task-clock --fail-if-slower 1 on the run's export, where
# counted); and the same with LOOP against itself (A/A: trips, target <= 5%).
# Usage: bench/gate-cpu.sh [K] [RUNS] [N]
set -eu
cd "$(dirname "$0")/.."
k=${1:-10} runs=${2:-15} n=${3:-100000000}
out=bench/out/gate-cpu
rm -rf "$out"; mkdir -p "$out"
[ -x ./tachy ] || make -j2 all >/dev/null
${CC:-cc} -O2 -o "$out/loop" bench/gate-loop.c
loop="$out/loop"
sh -c 'while :; do :; done' & b1=$!
sh -c 'while :; do :; done' & b2=$!
trap 'kill $b1 $b2 2>/dev/null' EXIT INT TERM
echo "-- $k trials of tachy run -r $runs --gate-on cpu --fail-if-slower 1 '$loop $n 1.00' '$loop $n F'"
echo "   (two busy loops beside; $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg))"
trial() { # trial NAME FACTOR: prints "wall cpuline gate-cpu gate-task-clock"
	st=0
	./tachy run -r "$runs" --style basic --gate-on cpu --fail-if-slower 1 \
		--export-json "$out/$1.json" "$loop $n 1.00" "$loop $n $2" >"$out/$1.txt" \
		2>"$out/$1.err" || st=$?
	case $st in 0 | 3) ;; *) echo "trial $1: exit $st" >&2; cat "$out/$1.err" >&2; exit 1 ;; esac
	tc=0
	./tachy compare --gate-on task-clock --fail-if-slower 1 "$out/$1.json" >/dev/null \
		2>>"$out/$1.err" || tc=$?
	w=$(grep -c "^  $loop $n $2: .*: slower\$" "$out/$1.txt" || true)
	c=$(grep -c 'proven where the wall time is not' "$out/$1.txt" || true)
	echo "$w $c $([ $st = 3 ] && echo 1 || echo 0) $([ $tc = 3 ] && echo 1 || echo 0)"
}
for what in slow aa; do
	f=1.05; [ $what = aa ] && f=1.00
	i=0 wall=0 line=0 either=0 gate=0 gtc=0
	while [ "$i" -lt "$k" ]; do
		set -- $(trial "$what$i" $f)
		wall=$((wall + $1)) line=$((line + $2)) gate=$((gate + $3)) gtc=$((gtc + $4))
		[ "$1" = 1 ] || [ "$2" = 1 ] && either=$((either + 1))
		i=$((i + 1))
	done
	if [ $what = slow ]; then
		echo "   5% CPU slowdown (factor 1.05), $k trials:"
		echo "     proven by the wall time:          $wall of $k"
		echo "     proven by the CPU line:           $line of $k (the wall time proving nothing)"
		echo "     proven by either in the report:   $either of $k"
		echo "     --gate-on cpu --fail-if-slower 1 tripped: $gate of $k"
		echo "     --gate-on task-clock --fail-if-slower 1 (same runs): $gtc of $k"
	else
		echo "   A/A (factor 1.00 against itself), $k trials:"
		echo "     wall time 'slower': $wall of $k; CPU line: $line of $k"
		echo "     --gate-on cpu --fail-if-slower 1 tripped: $gate of $k (target <= 5%)"
		echo "     --gate-on task-clock --fail-if-slower 1 (same runs): $gtc of $k"
	fi
done
echo "   load after: $(cut -d' ' -f1-3 /proc/loadavg)"
grep -h 'proven where' "$out"/slow*.txt | sed 's/^ */   e.g. /' | head -n 1
