#!/bin/sh
# history.sh - tachy history's figures (BENCHMARKS.md, "History"):
#   1. detection on synthetic histories (bench/history-detect.c): the share
#      of 2/5/10% steps found within 1 commit and the false change points per
#      1,000 commits, against the rule "2 sigma against the previous commit"
#      on the same histories; and detect's own time on 100 series;
#   2. adding 10,000 results to SQLite through `tachy history add` (100
#      hyperfine exports of 100 benchmarks x 10 runs, one add per commit);
#   3. `tachy history detect` over 100 benchmarks x 1,000 commits in SQLite.
# Deterministic inputs (fixed seeds); times are wall and CPU seconds of this
# run (/usr/bin/time), with the load average beside them: on a shared machine
# the wall time is mostly waiting for a core.
set -eu
cd "$(dirname "$0")/.."
out=bench/out/history
rm -rf "$out"; mkdir -p "$out"
# BENCH_SMOKE=1 (make bench-smoke): tiny sizes, the same steps.
if [ "${BENCH_SMOKE:-0}" = 1 ]; then NHIST=3 NADD=3 NBENCH=4 NCOMMITS=40; else
	NHIST=100 NADD=100 NBENCH=100 NCOMMITS=1000; fi
make -s --no-print-directory bench-progs >/dev/null || { echo "history: make bench-progs failed"; exit 1; }
echo "-- detection ($NHIST histories)"
build/std/bench/history-detect "$NHIST"

echo "-- adding $((NADD * 100)) results to SQLite (tachy history add)"
python3 - "$out" "$NADD" <<'PY'
import json, random, sys
random.seed(1)
for c in range(int(sys.argv[2])):
    res = []
    for b in range(100):
        t = [0.01 * (1 + 0.01 * random.gauss(0, 1)) for _ in range(10)]
        m = sum(t) / 10
        res.append({"command": "bench-%03d" % b, "mean": m, "stddev": 0.0001, "median": m,
                    "user": 0.001, "system": 0.001, "min": min(t), "max": max(t), "times": t})
    json.dump({"results": res}, open("%s/c%03d.json" % (sys.argv[1], c), "w"))
PY
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "$((NADD * 100)) results added in %e s wall, %U s user + %S s system (bound: 10 s)" \
	sh -c 'for f in "$1"/c*.json; do
		GIT_DIR=/nonexistent ./tachy history add --db "$1/add.db" --commit "$(basename "$f" .json)" \
			--machine m "$f" 2>/dev/null || exit 1
	done' sh "$out"
./tachy history list --db "$out/add.db" | awk 'NR > 1 { n += $4 } END { print n " runs stored" }'

echo "-- detect over $NBENCH benchmarks x $NCOMMITS commits"
build/std/bench/history-fill "$out/detect.db" "$NBENCH" "$NCOMMITS"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for k in 1 2 3; do
	/usr/bin/time -f "detect, run $k: %e s wall, %U s user + %S s system (bound: 2 s)" \
		./tachy history detect --db "$out/detect.db" > "$out/detect.txt"
done
echo "$(grep -c ': at ' "$out/detect.txt") change points found ($NBENCH planted, one per series)"
