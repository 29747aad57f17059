#!/bin/sh
# sample-cost.sh - the added CPU that record states (tachy's own and the
# kernel's work for the samples, measured after the recording) against what
# interleaved runs with and without the profiler measure (issue 36, item 5):
# the CPU time of tachy and the workload together (wait4's rusage of the
# children) less the workload's alone, ROUNDS interleaved rounds, for
# record -F 999, -F 3999 -g and -a -F 2000 (with -a, the line that states
# what the command's run paid: tachy's own CPU and the kernel's work for the
# command's samples; the other tasks' samples are theirs, in neither
# figure), and -a -F 2000 on make -j2 of a generated C project of NFILES
# files (cleaned in the command: both sides alike).
# Then -a against the kernel's floor (bench/system-floor.c: the same events
# and rings, drained unread) on the same CPU-bound command at two lengths (N
# and 10 N), interleaved: tachy's CPU and the command's together, less the
# floor's: the part that grows with the samples is the extra work per
# sample, the rest tachy's fixed cost.
# Usage: [ROUNDS=5] [N=200000000] [NFILES=24] [FLOOR=1] sh bench/sample-cost.sh.
# Needs root for -a; FLOOR=0 leaves the floor's part out.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="${TACHY:-$TOP/tachy}" # TACHY: another build (main, before a change)
out="$TOP/bench/out/sample-cost"
mkdir -p "$out"
[ -x "$T" ] || { echo "sample-cost: build tachy first (make)"; exit 1; }
cc -O2 -o "$out/cpu" bench/workload-cpu.c || exit 1
floor=""
[ "$(id -u)" = 0 ] && [ "${FLOOR:-1}" = 1 ] && make -s build/std/bench/system-floor >/dev/null 2>&1 && floor="$TOP/build/std/bench/system-floor"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
python3 - "$T" "$out" "${ROUNDS:-5}" "${N:-200000000}" "$floor" "${NFILES:-24}" <<'PY'
import os, re, statistics, subprocess, sys
T, out, rounds, n, floor = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
W = [out + "/cpu", n]
proj = out + "/proj"  # make -j2's project: NFILES files of 60 small functions
os.makedirs(proj, exist_ok=True)
for i in range(int(sys.argv[6])):
    with open(f"{proj}/u{i}.c", "w") as f:
        f.write("#include <stdio.h>\n")
        for j in range(60):
            f.write(f"static int f{j}(int x) {{ int s = 0; for (int k = 0; k < x; k++) s += k * {j} ^ (s >> 3); return s; }}\n")
        f.write(f"int unit{i}(int x) {{ return 0" + "".join(f" + f{j}(x)" for j in range(60)) + "; }\n")
with open(proj + "/Makefile", "w") as f:
    f.write("SRC := $(wildcard u*.c)\nall: $(SRC:.c=.o)\n%.o: %.c\n\tcc -O2 -c -o $@ $<\n")
MAKE = ["sh", "-c", f"rm -f {proj}/*.o; make -s -j2 -C {proj} >/dev/null"]

def cpu(cmd):
    """The CPU time (s) of CMD and all it waited for, and its stderr."""
    with open(out + "/err", "w") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, _, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime, open(out + "/err").read()

modes = [("-F 999", ["-F", "999"], W), ("-F 3999 -g", ["-F", "3999", "-g"], W)]
if os.geteuid() == 0:
    modes.append(("-a -F 2000", ["-a", "-F", "2000"], W))
    modes.append(("-a make -j2", ["-a", "-F", "2000"], MAKE))
rows = {m: ([], []) for m, _, _ in modes}
whole = {m: [] for m, _, _ in modes}  # -a: the line of every task's samples, beside
missing = {}
for r in range(rounds):
    for m, args, w in modes:
        if r % 2:  # the order alternates: a drift of the load falls on both sides
            tot, err = cpu([T, "record"] + args + ["-o", "/dev/null", "--"] + w)
            base, _ = cpu(w)
        else:
            base, _ = cpu(w)
            tot, err = cpu([T, "record"] + args + ["-o", "/dev/null", "--"] + w)
        s = re.search(r"added CPU to the command's run about ([0-9.]+) s", err) or \
            re.search(r"added CPU about ([0-9.]+) s", err)
        if not s:  # the cost could not be measured: counted, said
            missing[m] = missing.get(m, 0) + 1
            continue
        rows[m][0].append(tot - base)
        rows[m][1].append(float(s.group(1)))
        a = re.search(r"added CPU about ([0-9.]+) s", err)
        if "-a" in args and a and a is not s:
            whole[m].append(float(a.group(1)))
print(f"  {'record':<12} {'measured':>9} {'stated':>9} {'stated/measured':>16}  (medians of {rounds} interleaved rounds; range of the ratio)")
for m, _, _ in modes:
    me, st = rows[m]
    if missing.get(m):
        print(f"  {m:<12} {missing[m]} of {rounds} recordings stated no added CPU (not measured)")
    if not me:
        continue
    r = sorted(b / a for a, b in zip(me, st) if a > 0)
    print(f"  {m:<12} {statistics.median(me):8.3f}s {statistics.median(st):8.3f}s "
          f"{statistics.median(st) / statistics.median(me):15.2f}x  ({r[0]:.2f}-{r[-1]:.2f})")
    if len(whole[m]) == len(me):  # the whole machine's figure: others' samples in it
        r = sorted(b / a for a, b in zip(me, whole[m]) if a > 0)
        print(f"  {'  all tasks':<12} {statistics.median(me):8.3f}s {statistics.median(whole[m]):8.3f}s "
              f"{statistics.median(whole[m]) / statistics.median(me):15.2f}x  ({r[0]:.2f}-{r[-1]:.2f})")
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
