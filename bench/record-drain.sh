#!/bin/sh
# record-drain.sh - tachy's own CPU per sample under record -a with a
# command (issue 36 item 7: the work per sample under -a), this build
# against another (BASE, e.g. main's before a change), interleaved: record
# -a -F 2000 -o /dev/null on a CPU-bound command at two lengths (N and 4 N),
# ROUNDS rounds, the order alternating. Tachy's own CPU and the samples of
# every task are read from the "added CPU" line; the growth of tachy's CPU
# between the two lengths over the growth of the samples is its work per
# sample (the drain and the resolution at the end), the fixed cost left out.
# Usage: BASE=/path/to/other/tachy [ROUNDS=5] [N=100000000] sh bench/record-drain.sh
# Needs root (-a).
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="${TACHY:-$TOP/tachy}"
B="${BASE:-}"
out="$TOP/bench/out/record-drain"
mkdir -p "$out"
[ -x "$T" ] || { echo "record-drain: build tachy first (make)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "record-drain: run as root (record -a)"; exit 1; }
cc -O2 -o "$out/cpu" bench/workload-cpu.c || exit 1
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
python3 - "$out" "${ROUNDS:-5}" "${N:-100000000}" "$T" $B <<'PY'
import re, statistics, subprocess, sys
out, rounds, n, builds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
names = ["this", "base"][:len(builds)]
line = re.compile(r"added CPU about [0-9.]+ s: tachy's own ([0-9.]+) s and the kernel's work for ([0-9]+) samples")
res = {(b, k): [] for b in names for k in (1, 4)}
for r in range(rounds):
    order = names if r % 2 == 0 else names[::-1]
    for k in (1, 4):
        for name in order:
            t = builds[names.index(name)]
            p = subprocess.run([t, "record", "-a", "-F", "2000", "-o", "/dev/null", "--",
                                out + "/cpu", str(k * n)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
            m = line.search(p.stderr)
            if m:
                res[(name, k)].append((float(m.group(1)), int(m.group(2))))
print(f"  {'build':<6} {'own (N)':>9} {'samples':>8} {'own (4N)':>9} {'samples':>8} {'per sample':>11}  (medians of {rounds} rounds)")
for name in names:
    a, b = res[(name, 1)], res[(name, 4)]
    if not a or not b:
        print(f"  {name:<6} no added CPU line (not measured)")
        continue
    oa, sa = statistics.median(x for x, _ in a), statistics.median(x for _, x in a)
    ob, sb = statistics.median(x for x, _ in b), statistics.median(x for _, x in b)
    per = (ob - oa) / (sb - sa) if sb > sa else 0
    print(f"  {name:<6} {oa:8.3f}s {sa:8.0f} {ob:8.3f}s {sb:8.0f} {1e6 * per:9.2f}us")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
