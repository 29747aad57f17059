#!/bin/sh
# instr-history.sh - history detect on instruction counts: a git repository
# made in a temporary directory, COMMITS commits of a C program (loop.c,
# each commit a comment changed), at commit STEP the program executes
# about 0.3% more instructions (303 more rounds in planted()); at every
# commit it is built and `tachy run --instructions -r 1 --history` stores
# one run; then `tachy history detect --figure instructions` (and, for
# contrast, the wall time under Valgrind). Found: the change point at STEP,
# and the change points elsewhere (false). Usage: instr-history.sh [COMMITS
# [STEP]] (defaults 50, 31).
set -u
cd "$(dirname "$0")/.."
T=${TACHY:-$PWD/tachy}
top=$PWD
n=${1:-50} step=${2:-31}
for c in valgrind cc git; do
	command -v $c >/dev/null 2>&1 || { echo "instr-history.sh: $c missing, skipped (sh scripts/deps.sh bench)"; exit 0; }
done
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
cd "$d" || exit 1
git init -q -b trunk . || exit 1
g() { git -c user.name=bench -c user.email=bench@localhost "$@"; }
start=$(date +%s)
i=1
while [ "$i" -le "$n" ]; do
	plant=0
	[ "$i" -ge "$step" ] && plant=303
	{ echo "/* commit $i */"; sed "s/^#define PLANT 0$/#define PLANT $plant/" "$top/tests/data/instructions/loop.c"; } >loop.c
	cp "$top/tests/data/instructions/sys.h" .
	g add loop.c sys.h && g commit -q -m "commit $i" || exit 1
	cc -O1 -fno-stack-protector -static -nostdlib -o loop loop.c || exit 1
	$T run -q --style none --instructions -r 1 --history="$d/h.db" -n loop ./loop 2>/dev/null ||
		{ echo "run at commit $i failed"; exit 1; }
	i=$((i + 1))
done
want=$(git rev-list --reverse HEAD | sed -n "${step}p")
echo "$n commits, +0.3% instructions from commit $step (${want%"${want#????????????}"}), $(($(date +%s) - start)) s"
for fig in instructions wall; do
	$T history detect --db "$d/h.db" --figure $fig >"detect-$fig.txt" 2>&1
	found=$(grep -c "^loop on .*, $fig: at " "detect-$fig.txt")
	at=$(sed -n "s/^loop on .*, $fig: at \([0-9a-f]*\) (commit \([0-9]*\) of .*/\2/p" "detect-$fig.txt" | tr '\n' ' ')
	hit=0
	for c in $at; do [ "$c" = "$step" ] && hit=1; done
	printf '%-13s change points: %s (at commits: %s); at commit %s: %s; false: %s\n' "$fig" "$found" \
		"${at:-none}" "$step" "$([ $hit = 1 ] && echo found || echo missed)" $((found - hit))
	grep -A2 ", $fig: at " "detect-$fig.txt" | sed 's/^/    /'
done
