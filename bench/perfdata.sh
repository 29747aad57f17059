#!/bin/sh
# perfdata.sh - tachy report on perf.data files against perf's own readers,
# on perf record's recordings (cpu-clock at 999 Hz, -g: frame pointers, and
# --call-graph dwarf) of
#   - xz: SIZE MB of base64 compressed at -6, at 999 Hz;
#   - cc1plus: g++ -O2 -c of a C++ file of the standard library's heavy
#     headers (unordered_map, sstream, algorithm), written here;
#   - node (where installed): a 3e8-step loop, JIT-compiled code;
# cc1plus and node at SLOW_HZ (default 99): perf's readers take ~0.1 s a
# dwarf sample of theirs, the 999 Hz files minutes a run.
# WORKLOADS="xz cc1plus node" chooses among them; TACHY_BASE=PATH times
# another tachy binary too (a build before a change), in the same rounds.
# For each file:
#   - the time of `tachy report` (flat) against `perf report --stdio` and
#     `perf script | awk` (a stackcollapse: folded stacks), median of REPS,
#     the three interleaved (the ratios are those of one run, on a busy
#     machine as on a quiet one);
#   - the share of samples whose chain is complete (it reaches _start or
#     libc's start, or a thread's clone/start_thread), from each tool's folded
#     stacks (tachy report --folded; the awk over perf script);
#   - the size of tachy's converted profile (--convert) against perf.data's.
# Then the top-10 self functions of tachy report against perf report's on
# xz's -g recording, matched by name (perf names stripped code by address,
# which is no function: those rows are counted apart).
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

WORKLOADS=${WORKLOADS:-xz cc1plus node}
[ -n "${BENCH_SMOKE:-}" ] && WORKLOADS=xz

SLOW_HZ=${SLOW_HZ:-99}
# rec NAME HZ COMMAND...: NAME-fp.data and NAME-dwarf.data, or a line saying why not
rec() {
	name=$1
	hz=$2
	shift 2
	perf record -q -e cpu-clock -F "$hz" -g -o "$out/$name-fp.data" -- "$@" >/dev/null 2>&1 &&
		perf record -q -e cpu-clock -F "$hz" --call-graph dwarf -o "$out/$name-dwarf.data" -- "$@" \
			>/dev/null 2>&1 && return 0
	echo "$name: skipped: perf record failed"
	return 1
}
recorded=
for w in $WORKLOADS; do
	case $w in
	xz)
		head -c $((SIZE * 750000)) /dev/urandom | base64 > "$out/in.txt"
		rec xz 999 xz -6 -T1 -c "$out/in.txt" && recorded="$recorded xz"
		;;
	cc1plus)
		if ! command -v g++ >/dev/null 2>&1; then
			echo "cc1plus: skipped: g++ is not installed"
			continue
		fi
		cat > "$out/heavy.cc" <<'CC'
#include <algorithm>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>
std::unordered_map<std::string, std::vector<double>> group(const std::vector<std::pair<std::string, double>> &v)
{
	std::unordered_map<std::string, std::vector<double>> g;
	for (auto &p : v)
		g[p.first].push_back(p.second);
	for (auto &e : g)
		std::sort(e.second.begin(), e.second.end());
	return g;
}
std::string join(const std::vector<std::string> &v)
{
	std::ostringstream o;
	for (auto &s : v)
		o << s << ',';
	return o.str();
}
CC
		rec cc1plus "$SLOW_HZ" g++ -O2 -c -o "$out/heavy.o" "$out/heavy.cc" && recorded="$recorded cc1plus"
		;;
	node)
		if ! command -v node >/dev/null 2>&1; then
			echo "node: skipped: node is not installed"
			continue
		fi
		rec node "$SLOW_HZ" node -e 'let s = 0; for (let i = 0; i < 3e8; i++) s += i % 7; console.log(s)' &&
			recorded="$recorded node"
		;;
	*)
		echo "perfdata: no workload $w (xz, cc1plus, node)"
		exit 2
		;;
	esac
done

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

for w in $recorded; do
	for kind in fp dwarf; do
		f="$out/$w-$kind.data"
		: > "$out/t.times"; : > "$out/r.times"; : > "$out/s.times"; : > "$out/b.times"
		for i in $(seq "$REPS"); do
			if [ -n "${TACHY_BASE:-}" ]; then
				a=$(now); "$TACHY_BASE" report "$f" > /dev/null 2>&1; b=$(now)
				echo $(((b - a) / 1000000)) >> "$out/b.times"
			fi
			a=$(now); "$T" report "$f" > "$out/$w-$kind.tachy" 2> "$out/$w-$kind.tachy.err"; b=$(now)
			echo $(((b - a) / 1000000)) >> "$out/t.times"
			a=$(now); perf report -i "$f" --stdio --no-children > /dev/null 2>&1; b=$(now)
			echo $(((b - a) / 1000000)) >> "$out/r.times"
			a=$(now); perf script -i "$f" 2>/dev/null | collapse > "$out/$w-$kind.perf.folded"; b=$(now)
			echo $(((b - a) / 1000000)) >> "$out/s.times"
		done
		t=$(median < "$out/t.times"); r=$(median < "$out/r.times"); s=$(median < "$out/s.times")
		n=$(sed -n '1s/^Flat profile: \([0-9]*\) samples.*/\1/p' "$out/$w-$kind.tachy")
		"$T" report --folded "$f" > "$out/$w-$kind.tachy.folded" 2>/dev/null
		echo "$w $kind: $n samples, $(($(stat -c %s "$f") / 1024)) KiB"
		awk -v t="$t" -v r="$r" -v s="$s" 'BEGIN {
			printf "  tachy report %d ms; perf report --stdio %d ms (%.1fx); perf script | collapse %d ms (%.1fx)\n",
			    t, r, t ? r / t : 0, s, t ? s / t : 0 }'
		[ -n "${TACHY_BASE:-}" ] && awk -v t="$(median < "$out/b.times")" -v r="$r" -v s="$s" 'BEGIN {
			printf "  TACHY_BASE report %d ms (%.1fx; %.1fx)\n", t, t ? r / t : 0, t ? s / t : 0 }'
		echo "  complete chains: tachy $(complete "$out/$w-$kind.tachy.folded")%, perf $(complete "$out/$w-$kind.perf.folded")%"
		"$T" report --convert "$out/$w-$kind.prof" "$f" 2>/dev/null | sed 's/^/  converted: /'
	done
done

case " $recorded " in *" xz "*) ;; *) exit 0 ;; esac
# the top 10 of each on the -g recording, self shares matched by name
"$T" report --limit 10 "$out/xz-fp.data" 2>/dev/null | awk 'NR > 6 && NF >= 8 {print $7, $1}' > "$out/top.tachy"
perf report -i "$out/xz-fp.data" --stdio --no-children --sort sym -q -g none 2>/dev/null |
	awk '{sub(/%/, "", $1); print $3, $1}' > "$out/all.perf"
awk 'FNR == NR {p[$1] = $2; next}
     {k++; if (!($1 in p)) {unnamed++; next}
      d = $2 - p[$1]; if (d < 0) d = -d; m++; if (d <= 1) w++; if (d > worst) worst = d}
     END {printf "top-10 self functions (fp): %d of %d named by perf, %d of those within 1 point (largest difference %.2f); %d stripped-code rows perf shows by address\n",
	  m, k, w, worst, unnamed}' "$out/all.perf" "$out/top.tachy"
