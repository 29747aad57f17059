#!/bin/sh
# instructions.sh - run --instructions: determinism of the counts (10 runs
# each of xz, gzip, sqlite3, a C program of ours and a python3 script:
# the spread of the counts) and the cost (wall time of `tachy run
# --instructions -r 1 CMD` against valgrind run by hand with the same
# options, and against the command run natively; medians of 3, interleaved).
set -u
cd "$(dirname "$0")/.."
T=${TACHY:-$PWD/tachy}
out=$PWD/bench/out/instructions
rm -rf "$out"
mkdir -p "$out"
for c in valgrind cc python3; do
	command -v $c >/dev/null 2>&1 || { echo "instructions.sh: $c missing, skipped (sh scripts/deps.sh bench)"; exit 0; }
done
cd "$out"
head -c 200000 /dev/urandom | od -An -tx1 >input.txt # 600 kB of text
cc -O1 -fno-stack-protector -static -nostdlib -o loop ../../../tests/data/instructions/loop.c || exit 1
cat >script.py <<'PY'
d = {}
for i in range(2000):
    d[str(i)] = i * i
print(sum(d.values()))
PY
PY=/usr/bin/python3 # not a shim of pyenv and the like: Valgrind would follow its shell scripts
[ -x $PY ] || PY=$(command -v python3)
set -- "./loop" "gzip -c input.txt" "xz -0 -c input.txt" "$PY script.py" \
	"$PY -c print(1)"
command -v sqlite3 >/dev/null 2>&1 && set -- "$@" "sqlite3 :memory: select(1)"
# BENCH_SMOKE=1 (make bench-smoke): our program only, 2 runs, 1 repetition.
runs=10 reps="1 2 3" costly='"./loop" "gzip -c input.txt" "$PY script.py"'
if [ "${BENCH_SMOKE:-0}" = 1 ]; then set -- "./loop"; runs=2 reps=1 costly='"./loop"'; fi
echo "Determinism: tachy run --instructions -r $runs CMD (counts over $runs runs)"
printf '%-28s %15s %15s %10s %9s\n' command min max spread distinct
for cmd in "$@"; do
	name=$(echo "$cmd" | tr -c 'a-z0-9\n' '_')
	$T run -q --style none --instructions -r $runs --export-json "$name.json" -- $cmd >/dev/null 2>&1 ||
		{ echo "$cmd: failed"; continue; }
	python3 - "$name.json" "$cmd" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["results"][0]["tachy"]["runs"]
c = [r["counters"]["instructions"] for r in runs]
print("%-28s %15d %15d %9.4f%% %9d" % (sys.argv[2], min(c), max(c), 100 * (max(c) - min(c)) / min(c), len(set(c))))
PY
done
now() { date +%s.%N; }
med() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo
echo "Cost: wall seconds, median of 3 (interleaved), and ratios"
printf '%-28s %10s %10s %10s %12s %12s\n' command native valgrind tachy tachy/vg vg/native
eval "set -- $costly"
for cmd in "$@"; do
	: >n.t; : >v.t; : >t.t
	for i in $reps; do
		a=$(now); $cmd >/dev/null 2>&1; b=$(now); echo "$b - $a" | bc -l >>n.t
		a=$(now); valgrind -q --tool=cachegrind --cache-sim=no --trace-children=yes \
			--cachegrind-out-file=/dev/null $cmd >/dev/null 2>&1; b=$(now)
		echo "$b - $a" | bc -l >>v.t
		a=$(now); $T run -q --style none --instructions -r 1 -- $cmd >/dev/null 2>&1; b=$(now)
		echo "$b - $a" | bc -l >>t.t
	done
	n=$(med <n.t) v=$(med <v.t) t=$(med <t.t)
	printf '%-28s %10.3f %10.3f %10.3f %11.3fx %11.1fx\n' "$cmd" "$n" "$v" "$t" \
		"$(echo "$t / $v" | bc -l)" "$(echo "$v / $n" | bc -l)"
done
