#!/usr/bin/env python3
# gen.py - write the hand-made tachy exports (docs/json-schema.md, schema 1)
# that the compare and plot tests read. Deterministic: python3 gen.py
import json, random, statistics as st

def result(name, command, mean_s, sd_rel, n, rng, counters=True, shift=1.0):
    runs, times = [], []
    for i in range(n):
        w = max(1e-6, rng.gauss(mean_s, mean_s * sd_rel)) * shift
        wall_ns = int(round(w * 1e9))
        times.append(wall_ns / 1e9)
        r = {"start_ns": 1000 + i * 2 * wall_ns, "wall_ns": wall_ns,
             "user_ns": int(wall_ns * 0.3), "system_ns": int(wall_ns * 0.1),
             "maxrss_kb": 1792 + rng.randrange(8), "minflt": 80 + rng.randrange(3),
             "majflt": 0, "nvcsw": 2, "nivcsw": rng.randrange(2),
             "exit_code": 0, "signal": 0, "timed_out": False}
        if counters:
            r["counters"] = {"task-clock": int(wall_ns * 0.4),
                             "page-faults": 80 + rng.randrange(3),
                             "cycles": None}
        runs.append(r)
    def summ(xs, unit):
        return {"unit": unit, "n": len(xs), "mean": st.mean(xs),
                "ci_low": st.mean(xs), "ci_high": st.mean(xs),
                "median": st.median(xs), "stddev": st.stdev(xs),
                "min": min(xs), "max": max(xs)}
    res = {"command": command, "mean": st.mean(times), "stddev": st.stdev(times),
           "median": st.median(times), "user": 0.3 * st.mean(times),
           "system": 0.1 * st.mean(times), "min": min(times), "max": max(times),
           "times": times, "memory_usage_byte": [r["maxrss_kb"] * 1024 for r in runs],
           "exit_codes": [0] * n,
           "tachy": {"name": name, "runs": runs,
                     "summary": {"wall": summ(times, "s")},
                     "warnings": []}}
    if counters:
        res["tachy"]["counters"] = {
            "task-clock": {"supported": True, "unit": "ns", "scaled": False, "running_share": 1.0},
            "page-faults": {"supported": True, "unit": "", "scaled": False, "running_share": 1.0},
            "cycles": {"supported": False, "unit": "", "scaled": False, "running_share": 0.0}}
        res["tachy"]["summary"]["task-clock"] = summ([r["counters"]["task-clock"] for r in runs], "ns")
    return res

def env(kernel):
    return {"cpu_model": "Test CPU @ 2.00GHz", "cores": 2, "kernel": kernel,
            "clocksource": "tsc", "governor": "performance", "virtualization": "kvm",
            "tachy_version": "0.1.0", "date": "2026-11-29T20:00:00Z"}

def doc(results, kernel, comparisons=None):
    return {"results": results,
            "tachy": {"schema": 1, "version": "0.1.0", "reference": 0, "confidence": 95.0,
                      "test": "welch", "clock": "CLOCK_MONOTONIC", "environment": env(kernel),
                      "comparisons": comparisons or []}}

def write(name, d):
    with open(name, "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")

rng = random.Random(5)
old = [result("sleep", "sleep 0.01", 0.0104, 0.01, 12, rng),
       result("true", "true", 0.0008, 0.05, 12, rng),
       result("ls", "ls -l /", 0.0021, 0.03, 12, rng)]
new = [result("sleep", "sleep 0.01", 0.0104, 0.01, 12, rng, shift=1.06),
       result("true", "true", 0.0008, 0.05, 12, rng),
       result("ls", "ls -l /", 0.0021, 0.03, 12, rng, shift=0.9)]
write("old.json", doc(old, "6.1.0-13-amd64"))
write("new.json", doc(new, "6.1.0-18-amd64"))
# One file, several commands against its reference; one hostile name.
multi = [result("base", "sleep 0.01", 0.0104, 0.01, 15, rng),
         result("slow", "sleep 0.011", 0.0104, 0.01, 15, rng, shift=1.1),
         result("<script>alert(1)</script>", "echo '<script>alert(1)</script>' & true",
                0.0104, 0.01, 15, rng)]
write("multi.json", doc(multi, "6.1.0-13-amd64"))
few = [result("sleep", "sleep 0.01", 0.0104, 0.01, 3, rng)]
write("few-old.json", doc(few, "6.1.0-13-amd64"))
few = [result("sleep", "sleep 0.01", 0.0104, 0.01, 3, rng, shift=1.5)]
write("few-new.json", doc(few, "6.1.0-13-amd64"))
# Hostile names for the plot: shown as text, never run.
hostile = [result("base", "true", 0.0010, 0.02, 10, rng),
           result("<script>document.body.setAttribute('data-pwned','1')</script>",
                  "echo pwned", 0.0010, 0.02, 10, rng),
           result("<img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">",
                  "a & b \"quoted\" </td></tr></table>", 0.0011, 0.02, 10, rng)]
write("hostile.json", doc(hostile, "6.1.0-13-amd64"))
