#!/bin/sh
# perfdata.sh - tachy report on perf.data files against perf's own readers,
# on perf record's recordings of xz (-g: frame pointers; --call-graph
# dwarf), SIZE MB of base64 compressed at -6, sampled at 999 Hz:
#   - the time of `tachy report` (flat) against `perf report --stdio` and
#     `perf script | awk` (a stackcollapse: folded stacks), median of REPS;
#   - the share of samples whose chain is complete (it reaches _start or
#     libc's start, or a thread's clone/start_thread), from each tool's folded
#     stacks (tachy report --folded; the awk over perf script);
#   - the top-10 self functions of tachy report against perf report's on
#     the -g recording, matched by name (perf names stripped code by
#     address, which is no function: those rows are counted apart);
#   - the size of tachy's converted profile (--convert) against perf.data's.
# Root only (perf_event_paranoid 2 allows perf record the kernel's samples
# for root); skipped with a message otherwise, or without perf and xz.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
REPS=${REPS:-3}
SIZE=${SIZE:-8}
[ -n "${BENCH_SMOKE:-}" ] && SIZE=1 REPS=1
out="$TOP/bench/out/perfdata"
mkdir -p "$out"
[ -x "$T" ] || { echo "perfdata: build tachy first (make)"; exit 1; }
command -v perf >/dev/null 2>&1 || { echo "perfdata: skipped: perf is not installed"; exit 0; }
command -v xz >/dev/null 2>&1 || { echo "perfdata: skipped: xz is not installed"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "perfdata: skipped: needs root (perf record of kernel samples at perf_event_paranoid 2)"; exit 0; }

head -c $((SIZE * 750000)) /dev/urandom | base64 > "$out/in.txt"
perf record -q -e cpu-clock -F 999 -g -o "$out/fp.data" -- xz -6 -T1 -c "$out/in.txt" >/dev/null 2>&1 || exit 1
perf record -q -e cpu-clock -F 999 --call-graph dwarf -o "$out/dwarf.data" -- xz -6 -T1 -c "$out/in.txt" >/dev/null 2>&1 || exit 1

now() { date +%s%N; }
# median of the numbers on stdin
median() { sort -n | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# perf script's samples as folded stacks (root first), as stackcollapse-perf does
collapse() {
	awk '/^[^ \t]/ {n = 0; next}
	     /^$/ {if (n) {s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]; c[s]++} n = 0; next}
	     {sym = $2; sub(/\+0x[0-9a-f]*$/, "", sym); f[++n] = sym}
	     END {if (n) {s = f[n]; for (i = n - 1; i >= 1; i--) s = s ";" f[i]; c[s]++}
		  for (s in c) print s, c[s]}'
}
# the share of a folded file's samples whose chain reaches an outermost
# frame: _start (or libc's start, which only _start calls: perf names no
# _start in a stripped program), a thread's clone or start_thread
complete() {
	awk '{n = $NF; t += n; split($1, f, ";")
	      if (f[1] ~ /^(_start|clone|clone3|__clone|__clone3|start_thread)$/ ||
		  f[2] ~ /^__libc_start_main(_impl)?$/) c += n}
	     END {printf "%.1f", t ? 100 * c / t : 0}' "$1"
}

for kind in fp dwarf; do
	f="$out/$kind.data"
	: > "$out/t.times"; : > "$out/r.times"; : > "$out/s.times"
	for i in $(seq "$REPS"); do
		a=$(now); "$T" report "$f" > "$out/$kind.tachy" 2> "$out/$kind.tachy.err"; b=$(now)
		echo $(((b - a) / 1000000)) >> "$out/t.times"
		a=$(now); perf report -i "$f" --stdio --no-children > /dev/null 2>&1; b=$(now)
		echo $(((b - a) / 1000000)) >> "$out/r.times"
		a=$(now); perf script -i "$f" 2>/dev/null | collapse > "$out/$kind.perf.folded"; b=$(now)
		echo $(((b - a) / 1000000)) >> "$out/s.times"
	done
	t=$(median < "$out/t.times"); r=$(median < "$out/r.times"); s=$(median < "$out/s.times")
	n=$(sed -n '1s/^Flat profile: \([0-9]*\) samples.*/\1/p' "$out/$kind.tachy")
	"$T" report --folded "$f" > "$out/$kind.tachy.folded" 2>/dev/null
	echo "$kind: $n samples, $(($(stat -c %s "$f") / 1024)) KiB"
	awk -v t="$t" -v r="$r" -v s="$s" 'BEGIN {
		printf "  tachy report %d ms; perf report --stdio %d ms (%.1fx); perf script | collapse %d ms (%.1fx)\n",
		    t, r, t ? r / t : 0, s, t ? s / t : 0 }'
	echo "  complete chains: tachy $(complete "$out/$kind.tachy.folded")%, perf $(complete "$out/$kind.perf.folded")%"
	"$T" report --convert "$out/$kind.prof" "$f" 2>/dev/null | sed 's/^/  converted: /'
done

# the top 10 of each on the -g recording, self shares matched by name
"$T" report --limit 10 "$out/fp.data" 2>/dev/null | awk 'NR > 6 && NF >= 8 {print $7, $1}' > "$out/top.tachy"
perf report -i "$out/fp.data" --stdio --no-children --sort sym -q -g none 2>/dev/null |
	awk '{sub(/%/, "", $1); print $3, $1}' > "$out/all.perf"
awk 'FNR == NR {p[$1] = $2; next}
     {k++; if (!($1 in p)) {unnamed++; next}
      d = $2 - p[$1]; if (d < 0) d = -d; m++; if (d <= 1) w++; if (d > worst) worst = d}
     END {printf "top-10 self functions (fp): %d of %d named by perf, %d of those within 1 point (largest difference %.2f); %d stripped-code rows perf shows by address\n",
	  m, k, w, worst, unnamed}' "$out/all.perf" "$out/top.tachy"
