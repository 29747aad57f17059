#!/bin/sh
# instr-cost.sh - what `tachy run --instructions -r 1 CMD` costs beyond
# Valgrind: its wall time against valgrind run by hand with the same
# options on the same command (cachegrind, --cache-sim=no,
# --trace-children=yes, its output file written, as a user who wants the
# count does), ROUNDS rounds interleaved (the order alternating), for a
# short program (loop.c: Valgrind's start-up dominates, so tachy's own
# cost shows most) and gzip on 600 kB. Reported per command: the median
# wall of each, and the ratio tachy/valgrind of each round: its median,
# quartiles, min and max (target: median <= 1.05). Also the median of
# tachy run --instructions's own wall without Valgrind's part: tachy run
# -r 1 natively (-w 0), for what tachy itself costs around a run.
# Usage: instr-cost.sh [ROUNDS] (default 15).
set -u
cd "$(dirname "$0")/.."
T=${TACHY:-$PWD/tachy}
top=$PWD
rounds=${1:-15}
for c in valgrind cc gzip python3; do
	command -v $c >/dev/null 2>&1 || { echo "instr-cost.sh: $c missing, skipped (sh scripts/deps.sh bench)"; exit 0; }
done
out=$PWD/bench/out/instr-cost
rm -rf "$out"
mkdir -p "$out/vg"
cd "$out" || exit 1
cc -O1 -fno-stack-protector -static -nostdlib -o loop "$top/tests/data/instructions/loop.c" || exit 1
head -c 200000 /dev/urandom | od -An -tx1 >input.txt
now() { date +%s%N; }
echo "tachy run --instructions -r 1 CMD against valgrind -q --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file=vg/cg.%p CMD; $rounds rounds interleaved"
printf '%-20s %10s %10s %10s   %s\n' command valgrind tachy native "tachy/valgrind: median [q1, q3] (min, max)"
for cmd in "./loop" "gzip -c input.txt"; do
	: >rows
	i=1
	while [ "$i" -le "$rounds" ]; do
		for k in 1 2; do
			if [ $(((i + k) % 2)) = 0 ]; then
				rm -f vg/cg.*
				a=$(now)
				# shellcheck disable=SC2086
				valgrind -q --tool=cachegrind --cache-sim=no --trace-children=yes \
					--cachegrind-out-file=vg/cg.%p $cmd >/dev/null 2>&1
				v=$(($(now) - a))
			else
				a=$(now)
				# shellcheck disable=SC2086
				$T run -q --style none --instructions -r 1 -- $cmd >/dev/null 2>&1
				t=$(($(now) - a))
			fi
		done
		a=$(now)
		# shellcheck disable=SC2086
		$T run -q --style none -r 1 -w 0 -- $cmd >/dev/null 2>&1
		n=$(($(now) - a))
		echo "$v $t $n" >>rows
		i=$((i + 1))
	done
	python3 - "$cmd" rows <<'PY'
import statistics, sys
rows = [list(map(int, l.split())) for l in open(sys.argv[2])]
v = [r[0] / 1e9 for r in rows]; t = [r[1] / 1e9 for r in rows]; n = [r[2] / 1e9 for r in rows]
ratio = sorted(b / a for a, b in zip(v, t))
q = statistics.quantiles(ratio, n=4) if len(ratio) > 1 else [ratio[0]] * 3
print("%-20s %9.3fs %9.3fs %9.3fs   %.3f [%.3f, %.3f] (%.3f, %.3f)" % (
    sys.argv[1], statistics.median(v), statistics.median(t), statistics.median(n),
    statistics.median(ratio), q[0], q[2], ratio[0], ratio[-1]))
PY
done
