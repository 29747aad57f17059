#!/bin/sh
# record-system.sh - tachy record -a against perf record -a, in the same run
# (issue 26's figures):
#  1. agreement: both recorders at once for SECS seconds on a mix (a CPU-bound
#     process started before, an mmap/munmap loop, short-lived /bin/true's):
#     each one's share of the samples, and the mmap loop's top kernel
#     functions, side by side;
#  2. the profiler's own share of the samples (tachy's pid; perf's comm) in
#     the same recordings;
#  3. seed 000's measurement: make -j2 of a generated C project (NFILES files,
#     cleaned before each build), plain vs under tachy record -a -F 2000 -o
#     /dev/null vs under perf record -a -F 2000 -o /dev/null vs under the
#     kernel's floor (bench/system-floor.c: the same events and rings,
#     drained unread), interleaved (the order rotates each round), ROUNDS
#     rounds: median wall time and the ratios to plain and to the floor;
#  4. peak RSS of a MEMSECS-second system-wide -g recording, both at once
#     (tachy's at the end, where it names every sampled address, file by
#     file; perf record's while it writes its raw samples);
#  5. --calls: exact counts on a program that knows its calls, self ns/call
#     against the program's own timing without probes, a probe hit's cost.
# Run as root (system-wide sampling). Prints a table; numbers are this
# machine's, at the load it had.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="${TACHY:-$TOP/tachy}" # TACHY: another build (main, before a change)
[ -x "$T" ] || T="$TOP/build/std/tachy"
SECS=${SECS:-5}
ROUNDS=${ROUNDS:-5}
NFILES=${NFILES:-24}
MEMSECS=${MEMSECS:-60}
PARTS=${PARTS:-12345} # the parts to run: PARTS=4 measures the memory alone
want() { case $PARTS in *$1*) return 0 ;; esac; return 1; }
out="$TOP/bench/out/record-system"
rm -rf "$out"
mkdir -p "$out"
[ "$(id -u)" = 0 ] || { echo "record-system: run as root (system-wide sampling)"; exit 1; }
command -v perf >/dev/null 2>&1 || { echo "record-system: perf is not installed"; exit 1; }

cat >"$out/spin.c" <<'C'
volatile unsigned long sink;
int main(void) { for (;;) sink++; }
C
cc -O1 -o "$out/spinner" "$out/spin.c" || exit 1
cc -O1 -o "$out/mmaploop" bench/workload-mmap.c || exit 1

if want 1 || want 2; then
	echo "== 1, 2: agreement and own share (${SECS} s, cpu-clock at 999 Hz, both at once)"
	"$out/spinner" & spin=$!
	( while :; do "$out/mmaploop" 20000; done ) & mm=$!
	( while :; do /bin/true; done ) & tr=$!
	sleep 1
	perf record -q -a -F 999 -e cpu-clock -o "$out/p.data" -- sleep "$SECS" 2>/dev/null &
	pp=$!
	"$T" record -a -F 999 -e cpu-clock --duration "$SECS" -o "$out/t.prof" 2>"$out/t.err"
	wait $pp
	kill $spin $mm $tr 2>/dev/null
	wait 2>/dev/null
	tail -n 1 "$out/t.err"
	"$T" report --by comm --limit 1000 "$out/t.prof" |
		awk '/^ *[0-9.]+ / {print $NF, $1}' >"$out/t.comm"
	perf report -i "$out/p.data" --sort comm --stdio 2>/dev/null |
		awk '/^ *[0-9.]+%/ {sub("%", "", $1); print $2, $1}' >"$out/p.comm"
	printf '%-12s %8s %8s %8s\n' process tachy% perf% diff
	for c in spinner mmaploop true; do
		a=$(awk -v c=$c '$1 == c {s += $2} END {print s + 0}' "$out/t.comm")
		b=$(awk -v c=$c '$1 == c {s += $2} END {print s + 0}' "$out/p.comm")
		printf '%-12s %8.2f %8.2f %+8.2f\n' $c "$a" "$b" "$(echo "$a - $b" | bc -l)"
	done
	own_t=$(sed -n 's/.*tachy.s own samples [0-9]* (\([0-9.]*\)%).*/\1/p' "$out/t.err")
	own_p=$(awk '$1 == "perf" {s += $2} END {print s + 0}' "$out/p.comm")
	echo "own share of the samples: tachy ${own_t}%, perf ${own_p}% (perf's comm)"
	echo "mmaploop's top kernel functions:"
	"$T" report --comm mmaploop --limit 5 "$out/t.prof" | awk '/^ *[0-9.]+ / {print "  tachy", $1, $(NF-1)}'
	perf report -i "$out/p.data" --sort comm,sym --stdio 2>/dev/null |
		awk '/^ *[0-9.]+%/ && $2 == "mmaploop" {sub("%", "", $1); v[++n] = $1; s[n] = $NF; t += $1}
		     END {for (i = 1; i <= n && i <= 5; i++) printf "  perf  %.2f %s\n", 100 * v[i] / t, s[i]}'

fi
if want 3; then
	echo "== 3: make -j2 of $NFILES files, ROUNDS=$ROUNDS, interleaved"
	proj="$out/proj"
	mkdir -p "$proj"
	make -s --no-print-directory bench-progs >/dev/null || { echo "record-system: make bench-progs failed"; exit 1; }
	i=0
	while [ $i -lt "$NFILES" ]; do
		{
			echo "#include <stdio.h>"
			j=0
			while [ $j -lt 60 ]; do
				echo "static int f${j}(int x) { int s = 0; for (int k = 0; k < x; k++) s += k * $j ^ (s >> 3); return s; }"
				j=$((j + 1))
			done
			echo "int unit$i(int x) { return 0"
			j=0
			while [ $j -lt 60 ]; do echo " + f$j(x)"; j=$((j + 1)); done
			echo "; }"
		} >"$proj/u$i.c"
		i=$((i + 1))
	done
	{
		echo 'SRC := $(wildcard u*.c)'
		echo 'all: $(SRC:.c=.o)'
		echo '%.o: %.c'
		printf '\tcc -O2 -c -o $@ $<\n'
		echo 'clean:'
		printf '\trm -f *.o\n'
	} >"$proj/Makefile"
	# The build's own wall time (the workload's: timed by the command itself)
	# and the whole (the profiler's start and end included: tachy resolves
	# every sampled address of every process before it exits, perf record
	# writes raw samples), in ms.
	# The build's CPU time too (user + system of make and its children, in
	# ms): on a shared machine its wall time is mostly the others' load, but
	# its CPU time holds what the samples cost it (the kernel counts the
	# interrupt to the task it interrupted: no IRQ time accounting here).
	mk="t0=\$(date +%s%N); /usr/bin/time -f '%U %S' -o $out/cpu make -s -j2 -C $proj >/dev/null; echo \$(((\$(date +%s%N) - t0) / 1000000)) >$out/inner"
	build() { # $1: label
		make -s -C "$proj" clean >/dev/null
		t0=$(date +%s%N)
		case $1 in
		plain) sh -c "$mk" ;;
		tachy) "$T" record -q -a -F 2000 -o /dev/null -- sh -c "$mk" >/dev/null 2>&1 ;;
		perf) perf record -q -a -F 2000 -o /dev/null -- sh -c "$mk" >/dev/null 2>&1 ;;
		floor) build/std/bench/system-floor 2000 sh -c "$mk" >/dev/null 2>&1 ;;
		esac
		echo "$(cat "$out/inner") $((($(date +%s%N) - t0) / 1000000)) $(awk '{printf "%d", ($1 + $2) * 1000}' "$out/cpu")"
	}
	build plain >/dev/null # warm the caches
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		case $((r % 4)) in
		0) order="plain tachy perf floor" ;;
		1) order="tachy floor plain perf" ;;
		2) order="perf plain floor tachy" ;;
		3) order="floor perf tachy plain" ;;
		esac
		for c in $order; do echo "$c $(build $c)" >>"$out/builds"; done
		r=$((r + 1))
	done
	med() { awk -v c="$1" -v k="${2:-2}" '$1 == c {print $k}' "$out/builds" | sort -n |
		awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
	mp=$(med plain) mt=$(med tachy) mf=$(med perf) ml=$(med floor)
	wp=$(med plain 3) wt=$(med tachy 3) wf=$(med perf 3)
	for c in plain floor tachy perf; do
		printf '%-6s build %s ms (%s), whole %s ms (%s)\n' $c "$(med $c)" \
			"$(awk -v c=$c '$1 == c {printf "%s%s", n++ ? " " : "", $2}' "$out/builds")" "$(med $c 3)" \
			"$(awk -v c=$c '$1 == c {printf "%s%s", n++ ? " " : "", $3}' "$out/builds")"
	done
	echo "build time, ratios to plain (medians): floor $(echo "scale=3; $ml / $mp" | bc -l)x, tachy $(echo "scale=3; $mt / $mp" | bc -l)x, perf $(echo "scale=3; $mf / $mp" | bc -l)x"
	echo "build time, ratios to the floor (medians): tachy $(echo "scale=3; $mt / $ml" | bc -l)x, perf $(echo "scale=3; $mf / $ml" | bc -l)x"
	echo "whole, ratios to plain (medians): tachy $(echo "scale=3; $wt / $wp" | bc -l)x, perf $(echo "scale=3; $wf / $wp" | bc -l)x"
	cp=$(med plain 4) ct=$(med tachy 4) cf=$(med perf 4) cl=$(med floor 4)
	for c in plain floor tachy perf; do
		printf '%-6s build CPU %s ms (%s)\n' $c "$(med $c 4)" \
			"$(awk -v c=$c '$1 == c {printf "%s%s", n++ ? " " : "", $4}' "$out/builds")"
	done
	echo "build CPU time, ratios to plain (medians): floor $(echo "scale=3; $cl / $cp" | bc -l)x, tachy $(echo "scale=3; $ct / $cp" | bc -l)x, perf $(echo "scale=3; $cf / $cp" | bc -l)x"
	echo "build CPU time, ratios to the floor (medians): tachy $(echo "scale=3; $ct / $cl" | bc -l)x, perf $(echo "scale=3; $cf / $cl" | bc -l)x"

fi
if want 4; then
	echo "== 4: peak RSS of a ${MEMSECS} s system-wide -g recording (both at once)"
	"$out/spinner" & spin=$!
	( while :; do "$out/mmaploop" 20000; done ) & mm=$!
	/usr/bin/time -f '%M' -o "$out/perf.rss" perf record -q -a -g -F 999 -o "$out/pg.data" -- sleep "$MEMSECS" 2>/dev/null &
	pg=$!
	/usr/bin/time -f '%M' -o "$out/tachy.rss" "$T" record -q -a -g -F 999 --duration "$MEMSECS" -o "$out/tg.prof" &
	tg=$!
	# tachy's RSS every half second (a spike's phase: the start, the
	# recording, or the end where addresses are named)
	tp="" i=0
	while [ -z "$tp" ] && [ $i -lt 50 ]; do sleep 0.1; tp=$(pgrep -P $tg -x tachy); i=$((i + 1)); done
	t0=$(date +%s%N)
	while [ -n "$tp" ] && kill -0 "$tp" 2>/dev/null; do
		echo "$((($(date +%s%N) - t0) / 1000000)) $(awk '/^VmRSS/ {print $2}' /proc/$tp/status 2>/dev/null)" >>"$out/tachy.rsslog"
		sleep 0.5
	done
	wait $tg
	wait $pg
	kill $spin $mm 2>/dev/null
	wait 2>/dev/null
	mt=$(tail -n 1 "$out/tachy.rss") mp=$(tail -n 1 "$out/perf.rss")
	echo "peak RSS: tachy $mt KiB, perf record $mp KiB ($(echo "scale=2; $mt / $mp" | bc -l)x perf's)"
	[ -s "$out/tachy.rsslog" ] && sort -k2 -n "$out/tachy.rsslog" | tail -n 1 |
		awk -v s="$MEMSECS" '{printf "tachy'"'"'s highest RSS seen: %d KiB at %.1f s (the recording lasts %d s; after it, the end)\n", $2, $1 / 1000, s}'
fi
if want 5; then
	echo "== 5: --calls"
	cat >"$out/calls.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void leaf_work(int n) { for (int i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void mid_work(int n) { leaf_work(n); leaf_work(n); }
int main(int argc, char **argv)
{
	int calls = atoi(argv[1]), n = atoi(argv[2]);
	struct timespec a, b;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a); /* CPU time, as the samples */
	for (int i = 0; i < calls; i++)
		mid_work(n);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	fprintf(stderr, "own (CPU time, no probes): leaf_work %.0f ns/call, mid_work %.0f ns/call\n",
		((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / calls / 2,
		((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / calls);
	return 0;
}
C
	cc -O1 -o "$out/calls" "$out/calls.c" || exit 1
	"$out/calls" 20000 20000 2>"$out/own.txt"
	"$T" record -g --calls leaf_work --calls mid_work -o "$out/c.prof" -- "$out/calls" 20000 20000 2>"$out/c.err"
	grep -- '--calls' "$out/c.err"
	cat "$out/own.txt"
	"$T" report "$out/c.prof" | awk '$NF == "calls" && ($(NF-1) == "leaf_work" || $(NF-1) == "mid_work") {print "tachy:", $(NF-1), "calls", $7, "self ns/call", $8, "total ns/call", $9}'
fi
