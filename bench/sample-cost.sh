#!/bin/sh
# sample-cost.sh - the added CPU that record states (tachy's own and the
# kernel's work for the samples, measured at the start) against what
# interleaved runs with and without the profiler measure (issue 36, item 5):
# the CPU time of tachy and the workload together (wait4's rusage of the
# children) less the workload's alone, ROUNDS interleaved rounds, for
# record -F 999, -F 3999 -g and -a -F 2000 (with -a the other tasks' share
# of the kernel's work is in the stated figure and not in the measured one:
# on a machine with other work the -a row is a bound from above).
# Usage: [ROUNDS=5] [N=200000000] sh bench/sample-cost.sh. Needs root for -a.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
out="$TOP/bench/out/sample-cost"
mkdir -p "$out"
[ -x "$T" ] || { echo "sample-cost: build tachy first (make)"; exit 1; }
cc -O2 -o "$out/cpu" bench/workload-cpu.c || exit 1
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
python3 - "$T" "$out" "${ROUNDS:-5}" "${N:-200000000}" <<'PY'
import os, re, statistics, subprocess, sys
T, out, rounds, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
W = [out + "/cpu", n]

def cpu(cmd):
    """The CPU time (s) of CMD and all it waited for, and its stderr."""
    with open(out + "/err", "w") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime, open(out + "/err").read()

modes = [("-F 999", ["-F", "999"]), ("-F 3999 -g", ["-F", "3999", "-g"])]
if os.geteuid() == 0:
    modes.append(("-a -F 2000", ["-a", "-F", "2000"]))
rows = {m: ([], []) for m, _ in modes}
for _ in range(rounds):
    for m, args in modes:
        base, _ = cpu(W)
        tot, err = cpu([T, "record"] + args + ["-o", "/dev/null", "--"] + W)
        s = re.search(r"added CPU about ([0-9.]+) s", err)
        if not s:
            sys.exit(f"sample-cost: no added CPU line for {m}:\n{err}")
        rows[m][0].append(tot - base)
        rows[m][1].append(float(s.group(1)))
print(f"  {'record':<12} {'measured':>9} {'stated':>9} {'stated/measured':>16}  (medians of {rounds} interleaved rounds; range of the ratio)")
for m, _ in modes:
    me, st = rows[m]
    r = sorted(b / a for a, b in zip(me, st) if a > 0)
    print(f"  {m:<12} {statistics.median(me):8.3f}s {statistics.median(st):8.3f}s "
          f"{statistics.median(st) / statistics.median(me):15.2f}x  ({r[0]:.2f}-{r[-1]:.2f})")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
