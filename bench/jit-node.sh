#!/bin/sh
# jit-node.sh - JIT chains under load (issue 36): `node --perf-basic-prof` on
# a recursive function (fib(22) for 1.5 s of wall time), recorded with
# `tachy record -g` beside two busy loops, RUNS times (default 20). Prints
# each run's share of chains complete (rooted at the program's or a thread's
# start) and its samples in no mapping (TACHY_UNWIND_DEBUG's "no mapping"),
# then how many runs reached 98%. TACHY=path picks the binary (default
# build/std/tachy: `make all` first).
set -u
cd "$(dirname "$0")/.."
TACHY=${TACHY:-$PWD/build/std/tachy}
RUNS=${RUNS:-20}
command -v node >/dev/null 2>&1 || { echo "jit-node: skipped: node is not installed (apt-get install nodejs)"; exit 0; }
out=$(mktemp -d) || exit 1
trap 'kill $b1 $b2 2>/dev/null; rm -rf "$out"' EXIT INT TERM
cat > "$out/fib.js" <<'JS'
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
let s = 0; const t = Date.now();
while (Date.now() - t < 1500) s += fib(22);
if (s < 0) console.log(s);
JS
sh -c 'while :; do :; done' & b1=$!
sh -c 'while :; do :; done' & b2=$!
ok=0
i=1
while [ $i -le "$RUNS" ]; do
	TACHY_UNWIND_DEBUG=1 "$TACHY" record -g -o "$out/p.tprof" -- \
		sh -c 'cd "${1%/*}"; echo $$ > "$1"; exec node --perf-basic-prof "$2"' sh "$out/pid" "$out/fib.js" \
		>"$out/err" 2>&1
	pct=$(sed -n 's/.* \([0-9.]*\)% of \([0-9]*\) chains complete.*/\1 \2/p' "$out/err")
	nomap=$(awk '/^unwind: +[0-9]+  .*no mapping, / { n += $2 } END { print n + 0 }' "$out/err")
	set -- $pct
	printf 'run %2d: %5s%% of %s chains complete, %s in no mapping\n' $i "${1:-?}" "${2:-?}" "$nomap"
	awk -v p="${1:-0}" 'BEGIN { exit !(p >= 98) }' && ok=$((ok + 1))
	rm -f "/tmp/perf-$(cat "$out/pid").map"
	i=$((i + 1))
done
echo "runs at >= 98%: $ok of $RUNS"
