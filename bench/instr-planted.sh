#!/bin/sh
# instr-planted.sh - a 0.5% planted change proven from instruction counts on
# a loaded machine: two builds of loop.c at two paths (b/: 505 more rounds
# in planted(), about +0.5% of the program's instructions), two busy loops
# beside (killed at the end), TRIALS trials of
#   tachy run --instructions --profile -r 1 --gate-on instructions
#             --fail-if-slower 0.25 ./a/loop ./b/loop     (planted)
#   the same on ./a/loop ./a2/loop (A/A: one build at two paths)
# Reported: the exact verdict on the counts (1 run a side), the function
# named first in "Where it changed" and whether its counts equal those
# cachegrind gives by hand, the gate's exit status; for A/A, what is
# flagged and the exit status (0 wanted). Usage: instr-planted.sh [TRIALS]
# (default 5).
set -u
cd "$(dirname "$0")/.."
T=${TACHY:-$PWD/tachy}
top=$PWD
trials=${1:-5}
for c in valgrind cc; do
	command -v $c >/dev/null 2>&1 || { echo "instr-planted.sh: $c missing, skipped (sh scripts/deps.sh bench)"; exit 0; }
done
out=$PWD/bench/out/instr-planted
rm -rf "$out"
mkdir -p "$out/a" "$out/a2" "$out/b"
cd "$out" || exit 1
src=$top/tests/data/instructions/loop.c
cc -g -O1 -fno-stack-protector -static -nostdlib -o a/loop "$src" || exit 1
cp a/loop a2/loop
cc -g -O1 -fno-stack-protector -static -nostdlib -DPLANT=505 -o b/loop "$src" || exit 1
planted() {
	valgrind -q --tool=cachegrind --cache-sim=no --cachegrind-out-file=cg.out "$1" 2>/dev/null
	awk '/^fn=/ { f = substr($0, 4) } /^[0-9]/ && f == "planted" { s += $2 } END { print s }' cg.out
}
grouped() { printf "%s" "$1" | rev | sed 's/\([0-9]\{3\}\)/\1,/g; s/,$//' | rev; }
pa=$(planted ./a/loop) pb=$(planted ./b/loop)
sh -c 'while :; do :; done' &
b1=$!
sh -c 'while :; do :; done' &
b2=$!
trap 'kill $b1 $b2 2>/dev/null' EXIT
echo "two busy loops beside (pids $b1 $b2); planted() by hand: $(grouped "$pa") -> $(grouped "$pb")"
echo "cmd: $T run --style basic --color never --instructions --profile -r 1 --gate-on instructions --fail-if-slower 0.25 A B"
printf '%-6s %-8s %-44s %-10s %-22s %s\n' trial case "verdict on the counts" "first row" "its counts as by hand" exit
ok=0 aa_ok=0
t=1
while [ "$t" -le "$trials" ]; do
	for k in planted aa; do
		new=./b/loop
		[ $k = aa ] && new=./a2/loop
		$T run --style basic --color never --instructions --profile -r 1 --gate-on instructions \
			--fail-if-slower 0.25 ./a/loop $new >"$k-$t.txt" 2>"$k-$t.err"
		st=$?
		v=$(sed -n "s/^  \.\/[ab2]*\/loop: \(.*\)/\1/p" "$k-$t.txt" | tail -n 1 | cut -c1-44)
		row=$(sed -n '/^Where it changed/,$p' "$k-$t.txt" | awk '/^  function / {getline; print $1}')
		byhand=-
		if [ $k = planted ]; then
			grep -q "^  planted  *$(grouped "$pa")  *$(grouped "$pb")  *+$(grouped $((pb - pa))) " "$k-$t.txt" &&
				byhand=yes || byhand=no
			[ "$byhand" = yes ] && [ "$row" = planted ] && [ $st = 3 ] && ok=$((ok + 1))
		else
			grep -q "No function's count changed" "$k-$t.txt" && row="(none)"
			[ "$row" = "(none)" ] && [ $st = 0 ] && aa_ok=$((aa_ok + 1))
		fi
		printf '%-6s %-8s %-44s %-10s %-22s %s\n' "$t" "$k" "$v" "${row:-?}" "$byhand" "$st"
	done
	t=$((t + 1))
done
echo "planted: proven, named with its exact count and gated (exit 3) in $ok of $trials trials"
echo "A/A: nothing flagged, exit 0 in $aa_ok of $trials trials"
