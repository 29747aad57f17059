#!/bin/sh
# instr-cost.sh - what `tachy run --instructions -r 1 CMD` costs beyond
# Valgrind: its wall time against valgrind run by hand with the same
# options on the same command (cachegrind, --cache-sim=no,
# --trace-children=yes, its output file written, as a user who wants the
# count does), ROUNDS rounds interleaved (the order alternating), for a
# short program (loop.c: Valgrind's start-up dominates, so tachy's own
# cost shows most) and gzip on 600 kB. Reported per command: the median
# wall of each, and the ratio tachy/valgrind of each round: its median,
# quartiles, min and max (target: median <= 1.05); the same for the CPU
# time (user + system of everything waited for: what tachy adds in work,
# whatever the load). Also the median wall of tachy run -r 1 natively
# (-w 0, no Valgrind), for what tachy itself costs around a run.
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
echo "tachy run --instructions -r 1 CMD against valgrind -q --tool=cachegrind --cache-sim=no --trace-children=yes --cachegrind-out-file=vg/cg.%p CMD; $rounds rounds interleaved"
echo "wall: seconds; cpu: user + system seconds of the process and all it waited for (wait4)"
python3 - "$T" "$rounds" <<'PY'
import glob, os, statistics, sys, time
T, rounds = sys.argv[1], int(sys.argv[2])
def run(argv):
    for f in glob.glob("vg/cg.*"):
        os.unlink(f)
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1); os.dup2(fd, 2)
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, st, ru = os.wait4(pid, 0)
    return time.monotonic() - t0, ru.ru_utime + ru.ru_stime
def q(v):
    v = sorted(v)
    qs = statistics.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
    return "%.3f [%.3f, %.3f] (%.3f, %.3f)" % (statistics.median(v), qs[0], qs[2], v[0], v[-1])
vg = ["valgrind", "-q", "--tool=cachegrind", "--cache-sim=no", "--trace-children=yes",
      "--cachegrind-out-file=vg/cg.%p"]
print("%-18s %8s %8s %8s %8s %8s  %-38s %s" % ("command", "vg wall", "ty wall", "native", "vg cpu", "ty cpu",
      "tachy/valgrind wall: median [q1, q3] (min, max)", "cpu"))
for cmd in (["./loop"], ["gzip", "-c", "input.txt"]):
    rows = []
    for i in range(rounds):
        pair = [("vg", vg + cmd), ("ty", [T, "run", "-q", "--style", "none", "--instructions", "-r", "1", "--"] + cmd)]
        if i % 2:
            pair.reverse()
        r = dict((k, run(a)) for k, a in pair)
        r["native"] = run([T, "run", "-q", "--style", "none", "-r", "1", "-w", "0", "--"] + cmd)
        rows.append(r)
    med = lambda k, j: statistics.median(r[k][j] for r in rows)
    print("%-18s %8.3f %8.3f %8.3f %8.3f %8.3f  %-38s %s" % (" ".join(cmd), med("vg", 0), med("ty", 0),
          med("native", 0), med("vg", 1), med("ty", 1),
          q([r["ty"][0] / r["vg"][0] for r in rows]),
          q([r["ty"][1] / r["vg"][1] for r in rows if r["vg"][1] > 0])))
PY
