#!/bin/sh
# calls-cost.sh - what record --calls costs, stated against measured (issue
# 36, item 4), on bench/calls-cost.c (a function of known length beginning
# with a push, emulated at a probe's trap, or with a mov, stepped out of
# line):
# 1. Cost per hit: tachy record -o /dev/null with and without --calls on
#    the function, interleaved, ROUNDS rounds, CALLS calls of a ~3 us
#    function per run: the workload's own CPU time (its clock) with less
#    without, per call (measured), against the "a probe hit costs N ns" that
#    the recording states; per kind.
# 2. Fixed cost: the profiler CPU of a --calls recording of 10 calls (the
#    "profiler CPU" it states) and how long after tachy's start the command
#    starts (its probes are placed before its exec).
# 3. Self ns/call: functions of 1.5, 3 and 10 us (their loops sized by
#    unprofiled runs), recorded with --calls; the report's self ns/call (the
#    probes' samples at the traps' return taken off; '<N' where it is a
#    bound) against the unprofiled time per call (the least of 3 runs
#    before each recording) and against the CPU time per call of its twin
#    (the same code, not probed, run in turns with it in the recorded
#    process: the same load, the same profiler), medians of ROUNDS. With
#    BEFORE=PATH (another tachy, e.g. the last release's) each round
#    records with it too, interleaved: before and after in the same run.
# Usage: [ROUNDS=5] [CALLS=20000] [BEFORE=PATH] sh bench/calls-cost.sh.
# Needs root (uprobes).
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
out="$TOP/bench/out/calls-cost"
mkdir -p "$out"
[ -x "$T" ] || { echo "calls-cost: build tachy first (make)"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "calls-cost: needs root (uprobes)"; exit 0; }
cc -O1 -o "$out/work" bench/calls-cost.c || exit 1
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"
python3 - "$T" "$out" "${ROUNDS:-5}" "${CALLS:-20000}" "${BEFORE:-}" <<'PY'
import re, statistics, subprocess, sys, time
T, out, rounds, calls, before = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
W = out + "/work"

def work(n, c, kind, calls_glob=None, tachy=T, twin=False):
    """(the workload's CPU s, its start - ours, tachy's stderr, the twin's CPU s a call)"""
    cmd = [tachy, "record", "-q", "-o", "/dev/null"]
    if calls_glob:
        cmd = [tachy, "record", "--calls", calls_glob, "-o", out + "/c.prof"]
    t = time.time()
    p = subprocess.run(cmd + ["--", W, str(n), str(c), kind] + (["t"] if twin else []),
                       capture_output=True, text=True)
    m = re.search(r"start ([0-9.]+) cpu ([0-9.]+) twin ([0-9.]+)", p.stdout)
    return float(m.group(2)), float(m.group(1)) - t, p.stderr, float(m.group(3))

def plain(n, c, kind):
    p = subprocess.run([W, str(n), str(c), kind], capture_output=True, text=True)
    return float(p.stdout.split()[3])

# the loop length of a function of US microseconds, unprofiled
probe = min(plain(10000, 2000, "p") for _ in range(3)) / 2000 / 10000
def iters(us): return max(1, int(us * 1e-6 / probe))

print(f"1. cost per hit: {rounds} interleaved rounds of {calls} calls of a 3 us function, "
      f"the workload's CPU with --calls less without")
n3 = iters(3)
print(f"  (a loop iteration {probe * 1e9:.2f} ns unprofiled; the 3 us function {n3} iterations)")
for kind, fn in (("p", "pushed_work"), ("s", "stepped_work")):
    meas, stated = [], []
    for _ in range(rounds):
        base = work(n3, calls, kind)[0]
        cpu, _, err, _ = work(n3, calls, kind, fn)
        meas.append((cpu - base) / calls * 1e9)
        m = re.search(r"a probe hit costs ([0-9]+) ns", err)
        stated.append(float(m.group(1)))
    ms, ss = statistics.median(meas), statistics.median(stated)
    print(f"  {fn:<13} measured {ms:7.0f} ns/hit (runs {min(meas):.0f}-{max(meas):.0f}), "
          f"stated {ss:7.0f} ns/hit: stated/measured {ss / ms:.2f}")

print("2. fixed cost of a --calls recording of 10 calls (its profiler CPU; the command's start after tachy's)")
cpus, starts = [], []
for _ in range(rounds):
    _, st, err, _ = work(10, 10, "p", "pushed_work")
    m = re.search(r"profiler CPU ([0-9.]+) s", err)
    cpus.append(float(m.group(1)))
    starts.append(st)
print(f"  profiler CPU median {statistics.median(cpus):.3f} s (runs {min(cpus):.3f}-{max(cpus):.3f}); "
      f"the command started {statistics.median(starts):.3f} s after tachy (runs {min(starts):.3f}-{max(starts):.3f})")

print("3. self ns/call of the report against the function's own time: unprofiled (the least of 3 runs), "
      "and its twin's in the same run")
tachys = [("after", T)] + ([("before", before)] if before else [])
for us in (1.5, 3, 10):
    n = iters(us)
    c = max(200, int(0.3 / (us * 1e-6 + 20e-6)))  # about 0.3 s of probes and work
    for kind, fn in (("p", "pushed_work"), ("s", "stepped_work")):
        errs = {name: ([], [], []) for name, _ in tachys}  # against own, twin; raw against own
        bound = {name: 0 for name, _ in tachys}
        for _ in range(rounds):
            own = min(plain(n, c, kind) for _ in range(3)) / c * 1e9  # the least disturbed
            for name, tachy in tachys:
                twin = work(n, c, kind, fn, tachy, True)[3] * 1e9
                rep = subprocess.run([tachy, "report", out + "/c.prof"], capture_output=True,
                                     text=True).stdout
                for line in rep.splitlines():
                    f = line.split()
                    if len(f) >= 10 and f[-1] == "work" and f[-2] == fn:
                        bound[name] += f[-4].startswith("<")
                        v = float(f[-4].lstrip("<"))
                        errs[name][0].append(v / own - 1)
                        errs[name][1].append(v / twin - 1)
                        errs[name][2].append(float(f[2]) * 1e9 / c / own - 1)
        for name, _ in tachys:
            e, t, r = (statistics.median(x) for x in errs[name])
            print(f"  {us:4} us {fn:<13} {c:6} calls {name:<6}: self ns/call{' (a bound)' if bound[name] else ''} "
                  f"{100 * e:+6.1f}% of its own time (runs {100 * min(errs[name][0]):+.1f}% to "
                  f"{100 * max(errs[name][0]):+.1f}%), {100 * t:+6.1f}% of its twin's (runs "
                  f"{100 * min(errs[name][1]):+.1f}% to {100 * max(errs[name][1]):+.1f}%); the samples' "
                  f"self time / calls {100 * r:+.1f}% of its own")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
