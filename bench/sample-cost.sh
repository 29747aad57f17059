#!/bin/sh
# sample-cost.sh - the added CPU that record states (tachy's own and the
# kernel's work for the samples, measured after the recording) against what
# interleaved runs with and without the profiler measure (issue 36, item 5):
# the CPU time of tachy and the workload together (wait4's rusage of the
# children) less the workload's alone, ROUNDS interleaved rounds, for
# record -F 999, -F 3999 -g and -a -F 2000 (with -a the other tasks' share
# of the kernel's work is in the stated figure and not in the measured one:
# on a machine with other work the -a row is a bound from above).
# Then -a against the kernel's floor (bench/system-floor.c: the same events
# and rings, drained unread) on the same CPU-bound command at two lengths (N
# and 10 N), interleaved: tachy's CPU and the command's together, less the
# floor's: the part that grows with the samples is the extra work per
# sample, the rest tachy's fixed cost.
# Usage: [ROUNDS=5] [N=200000000] sh bench/sample-cost.sh. Needs root for -a.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
out="$TOP/bench/out/sample-cost"
mkdir -p "$out"
[ -x "$T" ] || { echo "sample-cost: build tachy first (make)"; exit 1; }
cc -O2 -o "$out/cpu" bench/workload-cpu.c || exit 1
floor=""
[ "$(id -u)" = 0 ] && make -s build/std/bench/system-floor >/dev/null 2>&1 && floor="$TOP/build/std/bench/system-floor"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
python3 - "$T" "$out" "${ROUNDS:-5}" "${N:-200000000}" "$floor" <<'PY'
import os, re, statistics, subprocess, sys
T, out, rounds, n, floor = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
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
missing = {}
for _ in range(rounds):
    for m, args in modes:
        base, _ = cpu(W)
        tot, err = cpu([T, "record"] + args + ["-o", "/dev/null", "--"] + W)
        s = re.search(r"added CPU about ([0-9.]+) s", err)
        if not s:  # the cost could not be measured: counted, said
            missing[m] = missing.get(m, 0) + 1
            continue
        rows[m][0].append(tot - base)
        rows[m][1].append(float(s.group(1)))
print(f"  {'record':<12} {'measured':>9} {'stated':>9} {'stated/measured':>16}  (medians of {rounds} interleaved rounds; range of the ratio)")
for m, _ in modes:
    me, st = rows[m]
    if missing.get(m):
        print(f"  {m:<12} {missing[m]} of {rounds} recordings stated no added CPU (not measured)")
    if not me:
        continue
    r = sorted(b / a for a, b in zip(me, st) if a > 0)
    print(f"  {m:<12} {statistics.median(me):8.3f}s {statistics.median(st):8.3f}s "
          f"{statistics.median(st) / statistics.median(me):15.2f}x  ({r[0]:.2f}-{r[-1]:.2f})")
if floor:
    print("  -a -F 2000 against the kernel's floor: tachy's CPU and the command's less the floor's and the command's")
    ex = {}
    for length in (n, str(10 * int(n))):
        w = [out + "/cpu", length]
        d, base = [], []
        for _ in range(rounds):
            f, _ = cpu([floor, "2000"] + w)
            t, _ = cpu([T, "record", "-a", "-F", "2000", "-o", "/dev/null", "--"] + w)
            d.append(t - f)
            base.append(cpu(w)[0])
        ex[length] = (statistics.median(d), statistics.median(base))
        print(f"    a command of {ex[length][1]:.3f} s: tachy {ex[length][0]:+.3f} s over the floor "
              f"(runs {min(d):+.3f} to {max(d):+.3f})")
    (a, ba), (b, bb) = ex[n], ex[str(10 * int(n))]
    per = (b - a) / ((bb - ba) * 2000 * os.cpu_count()) if bb > ba else 0
    print(f"    growth with the samples: {1e6 * per:+.1f} us a sample (at most {os.cpu_count()} CPUs x 2000 Hz), "
          f"fixed about {a - per * ba * 2000 * os.cpu_count():.3f} s")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
