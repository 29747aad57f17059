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
#    process: the same load, the same profiler) and against its twin's
#    self time in the same profile (its samples: the same sampling, and
#    none of the kernel's work for them that its clock counts), medians of
#    ROUNDS. With
#    BEFORE=PATH (another tachy, e.g. the last release's) each round
#    records with it too, interleaved: before and after in the same run.
#    Sampled at HZ (default 4999) with calls for SELF_S (default 0.1) s of
#    the function's own time: about HZ * SELF_S of its samples a round
#    (at 999 Hz and 0.3 s of probes and work it had 20-140, a round's
#    sampling error 10-22%, more than the target).
# Usage: [ROUNDS=5] [CALLS=20000] [BEFORE=PATH] [HZ=4999] [SELF_S=0.1]
#        sh bench/calls-cost.sh.
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
python3 - "$T" "$out" "${ROUNDS:-5}" "${CALLS:-20000}" "${BEFORE:-}" "${HZ:-4999}" "${SELF_S:-0.1}" <<'PY'
import math, re, statistics, subprocess, sys, time
T, out, rounds, calls, before = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
hz, self_s = int(sys.argv[6]), float(sys.argv[7])
W = out + "/work"

def work(n, c, kind, calls_glob=None, tachy=T, twin=False, hz=None):
    """(the workload's CPU s, its start - ours, tachy's stderr, the twin's CPU s a call)"""
    cmd = [tachy, "record", "-q", "-o", "/dev/null"]
    if calls_glob:
        cmd = [tachy, "record", "--calls", calls_glob, "-o", out + "/c.prof"]
    if hz:
        cmd[2:2] = ["-F", str(hz)]
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

print(f"3. self ns/call of the report against the function's own time: unprofiled (the least of 3 runs), "
      f"and its twin's in the same run; -F {hz}, calls for {self_s} s of the function's own time "
      f"(its samples' count n: a round's sampling error about 1/sqrt(n))")
tachys = [("after", T)] + ([("before", before)] if before else [])
for us in (1.5, 3, 10):
    n = iters(us)
    c = max(200, int(self_s / (us * 1e-6)))  # SELF_S s of its own time: hz * SELF_S samples
    for kind, fn in (("p", "pushed_work"), ("s", "stepped_work")):
        # against its own time, its twin's clock, raw against its own, its twin's samples
        errs = {name: ([], [], [], []) for name, _ in tachys}
        nsamp = {name: [] for name, _ in tachys}
        bound = {name: 0 for name, _ in tachys}
        for _ in range(rounds):
            own = min(plain(n, c, kind) for _ in range(3)) / c * 1e9  # the least disturbed
            for name, tachy in tachys:
                twin = work(n, c, kind, fn, tachy, True, hz)[3] * 1e9
                rep = subprocess.run([tachy, "report", out + "/c.prof"], capture_output=True,
                                     text=True).stdout
                m = re.search(r"Flat profile: ([0-9]+) samples .*, ([0-9.]+) s,", rep)
                per = float(m.group(2)) / int(m.group(1))  # seconds a sample
                tw = [int(x.split()[3]) for x in rep.splitlines()
                      if x.split()[-2:] == [fn.replace("_work", "_twin"), "work"]]
                for line in rep.splitlines():
                    f = line.split()
                    if len(f) >= 10 and f[-1] == "work" and f[-2] == fn:
                        bound[name] += f[-4].startswith("<")
                        nsamp[name].append(int(f[3]))
                        v = float(f[-4].lstrip("<"))
                        errs[name][0].append(v / own - 1)
                        errs[name][1].append(v / twin - 1)
                        errs[name][2].append(float(f[2]) * 1e9 / c / own - 1)
                        if tw and tw[0]:
                            errs[name][3].append(v / (tw[0] * per * 1e9 / c) - 1)
        for name, _ in tachys:
            e, t, r, ts = (statistics.median(x) if x else math.nan for x in errs[name])
            print(f"  {us:4} us {fn:<13} {c:6} calls {name:<6}: self ns/call{' (a bound)' if bound[name] else ''} "
                  f"{100 * e:+6.1f}% of its own time (runs {100 * min(errs[name][0]):+.1f}% to "
                  f"{100 * max(errs[name][0]):+.1f}%), {100 * t:+6.1f}% of its twin's (runs "
                  f"{100 * min(errs[name][1]):+.1f}% to {100 * max(errs[name][1]):+.1f}%); the samples' "
                  f"self time / calls {100 * r:+.1f}% of its own; {100 * ts:+6.1f}% of its twin's samples "
                  f"(runs {100 * min(errs[name][3], default=math.nan):+.1f}% to "
                  f"{100 * max(errs[name][3], default=math.nan):+.1f}%); n {statistics.median(nsamp[name]):.0f} "
                  f"samples (+-{100 / math.sqrt(max(1, statistics.median(nsamp[name]))):.0f}% a round)")
PY
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
