#!/bin/sh
# runprof-match.sh - functions matched across two builds at two paths
# (profile-match.h): bench/match24.c (24 functions of equal work) built
# twice, into old/ and new/; a slowdown of PCT percent of the whole planted
# in f7 on the new side; `tachy run --profile -r ROUNDS` of the two with one
# busy loop beside. For TRIALS planted trials: how often f7 is ranked first
# and flagged; for TRIALS A/A trials (PCT 0 on both sides, still two paths):
# how often any function is flagged. Peers on the planted trials, one
# recording a side: `perf diff -s sym` (f7 first by its delta?) and
# `tachy report --diff` (f7 first?).
#   sh bench/runprof-match.sh [TRIALS] [ROUNDS] [N] [PCT]
set -u
cd "$(dirname "$0")/.."
trials=${1:-5}
rounds=${2:-30}
n=${3:-12000000}
pct=${4:-3}
out=bench/out/match
[ -x ./tachy ] || { echo "build tachy first (make)"; exit 1; }
rm -rf "$out"
mkdir -p "$out/old" "$out/new"
cc -O1 -fno-omit-frame-pointer -o "$out/old/match24" bench/match24.c || exit 1
cc -O1 -fno-omit-frame-pointer -o "$out/new/match24" bench/match24.c || exit 1
sh -c 'while :; do :; done' &
busy=$!
trap 'kill $busy 2>/dev/null' EXIT INT TERM

# the self rows of a section: "NAME VERDICT" each, in order
rows() {
	python3 - "$1" <<'PY'
import re, sys
on = False
for l in open(sys.argv[1]):
    if l.startswith("  function "):
        on = True
    elif l.startswith("  Explained") or l.startswith("  No function") or not l.strip():
        on = False
    elif on:
        m = re.match(r"^  (\S+) .*\s(slower|faster|~)( \(.*\))?$", l.rstrip("\n"))
        if m and not m.group(1).startswith("("):  # not the pooled row
            print(m.group(1), m.group(2))
PY
}

first_flag=0 any_flag=0 perf_first=0 perf_ok=0 rep_first=0 t=0
while [ $t -lt "$trials" ]; do
	./tachy run -q --style basic --profile -r "$rounds" \
		"$out/old/match24 $n 0" "$out/new/match24 $n $pct" > "$out/run.txt" || exit 1
	rows "$out/run.txt" > "$out/rows.txt"
	top=$(head -1 "$out/rows.txt")
	[ "$top" = "f7 slower" ] && first_flag=$((first_flag + 1))
	./tachy run -q --style basic --profile -r "$rounds" \
		"$out/old/match24 $n 0" "$out/new/match24 $n 0" > "$out/aa.txt" || exit 1
	# any row flagged, the pooled one too
	{ rows "$out/aa.txt"; grep '^  (.* rare functions)' "$out/aa.txt" | grep -o '\(slower\|faster\)$'; } |
		grep -q 'slower$\|faster$' && any_flag=$((any_flag + 1))
	# peers: one recording a side
	if perf record -q -F 999 -o "$out/a.data" "$out/old/match24" "$n" 0 >/dev/null 2>&1 &&
		perf record -q -F 999 -o "$out/b.data" "$out/new/match24" "$n" "$pct" >/dev/null 2>&1; then
		perf_ok=$((perf_ok + 1))
		perf diff -s sym "$out/a.data" "$out/b.data" 2>/dev/null |
			awk '$1 ~ /%/ && $2 ~ /^[+-]/ {gsub("%", "", $2); d = $2 + 0; s = $NF;
				if (d > best) {best = d; name = s}} END {print name}' > "$out/perf-top"
		[ "$(cat "$out/perf-top")" = f7 ] && perf_first=$((perf_first + 1))
	fi
	./tachy record -q -F 999 -o "$out/a.prof" -- "$out/old/match24" "$n" 0 >/dev/null 2>&1 &&
		./tachy record -q -F 999 -o "$out/b.prof" -- "$out/new/match24" "$n" "$pct" >/dev/null 2>&1 &&
		./tachy report --diff "$out/a.prof" "$out/b.prof" > "$out/rep.txt" &&
		[ "$(awk '$1 ~ /^[0-9.]+$/ && NF >= 6 {print $6; exit}' "$out/rep.txt")" = f7 ] &&
		rep_first=$((rep_first + 1))
	t=$((t + 1))
	echo "trial $t: run --profile first row '$top'; A/A flagged so far $any_flag"
done
echo "two builds at two paths, $pct% planted in f7 of 24, $rounds rounds, one busy loop beside:"
echo "  tachy run --profile: f7 ranked first and flagged in $first_flag of $trials trials"
echo "  A/A at two paths: any function flagged in $any_flag of $trials trials"
if [ "$perf_ok" -gt 0 ]; then
	echo "  perf diff -s sym (one recording a side): f7 the largest rise in $perf_first of $perf_ok"
else
	echo "  perf diff -s sym: perf record failed (not installed, or perf_event_paranoid)"
fi
echo "  tachy report --diff (one recording a side): f7 first in $rep_first of $trials"
