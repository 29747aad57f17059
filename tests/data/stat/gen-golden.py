#!/usr/bin/python3
"""gen-golden.py - (re)make the data sets in tests/data/stat/ and the
expected outputs of the tests/cli/stat-* cases from a build of FreeBSD's
ministat.c as it is today (not Debian's 2015 ministat, whose median of an
even count and relative interval differ).

    MINISTAT=/path/to/ministat MINISTAT_FIXED=/path/to/ministat-fixed \\
        /usr/bin/python3 tests/data/stat/gen-golden.py

MINISTAT_FIXED is the same program with the one deliberate fix tachy makes:
the plot's height is the tallest stack of any set (ministat keeps the last
set's, cutting taller stacks of earlier sets). Expected outputs come from
the fixed build; the cases where the two differ get a file `differs`.
Nothing of ministat is in this repository; this script only runs it.
"""
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
CLI = os.path.join(TOP, "tests", "cli")
MINISTAT = os.environ.get("MINISTAT", "/work/peers/ministat/ministat")
FIXED = os.environ.get("MINISTAT_FIXED", "/work/peers/ministat/ministat-fixed")


def fmt(x, digits=3):
    s = "%.*f" % (digits, x)
    return s


def write(name, lines):
    with open(os.path.join(HERE, name), "w", newline="") as f:
        f.write("".join(lines))


def gauss_set(name, seed, n, mu, sd, digits=3):
    rng = random.Random(seed)
    write(name, [fmt(rng.gauss(mu, sd), digits) + "\n" for _ in range(n)])


def int_set(name, seed, n, lo, hi):
    rng = random.Random(seed)
    write(name, ["%d\n" % rng.randint(lo, hi) for _ in range(n)])


def make_data():
    # FreeBSD's own sample files
    write("chameleon", ["150\n", "400\n", "720\t\n", "500\n", "930\n"])
    write("iguana", ["# ministat's sample\n", "50\n", "200\n", "150\n", "400\n", "750\n",
                     "400\n", "150\n"])
    for i, (n, mu, sd) in enumerate([(10, 100, 5), (12, 104, 6), (8, 99, 12), (30, 101, 3),
                                     (5, 130, 40), (57, 100.5, 4.5), (3, 95, 1)]):
        gauss_set("g%d" % (i + 1), 1000 + i, n, mu, sd)
    for i, (n, lo, hi) in enumerate([(40, 1, 10), (25, 3, 8), (300, 1, 30), (12, 5, 6)]):
        int_set("i%d" % (i + 1), 2000 + i, n, lo, hi)
    gauss_set("big1", 3001, 5000, 50, 10, 4)
    gauss_set("big2", 3002, 4000, 50.4, 9, 4)
    gauss_set("neg", 3003, 20, -7.5, 2)
    gauss_set("tiny", 3004, 15, 3e-9, 1e-10, 14)
    gauss_set("huge", 3005, 15, 4e12, 3e10, 0)
    rng = random.Random(3006)
    e1 = ["# timings, mixed notations\n", "\n"]
    forms = ["%g", "%.3e", "+%.2f", "%.4f", "  %.1f", "\t%.2f", "%.2f   ", "%.2f # note",
             "%.2f\r", "%.5E"]
    for k in range(60):
        v = rng.expovariate(1 / 500.0)
        e1.append((forms[k % len(forms)] % v) + "\n")
        if k % 17 == 0:
            e1.append("   \n")
    e1.append("%.2f" % 123.25)  # no final newline
    write("e1", e1)
    write("dot", ["5.\n", ".5\n", "0.5e1\n", "5e-1\n", "-0\n", "0x10\n"])
    rng = random.Random(3007)
    rows = ["# a b c\n"]
    for k in range(40):
        rows.append("%d %.2f\t%.3f  x%d\n" % (k, rng.gauss(10, 1), rng.gauss(20, 2), k))
        if k % 9 == 0:
            rows.append("%d # skipped %d\n" % (k, k))
    write("cols.txt", rows)
    rows = ["id,t1,t2\n"] if False else []
    for k in range(30):
        rows.append("%d,%.2f,%.2f\n" % (k, rng.gauss(10, 1), rng.gauss(10.8, 1.2)))
    write("cols.csv", rows)
    rows = []
    for k in range(25):
        rows.append("r%d:%.3f;%.3f\n" % (k, rng.gauss(3, 0.2), rng.gauss(3.1, 0.25)))
    write("cols.sc", rows)
    write("zeros", ["0\n", "-0\n", "0.5\n", "-0.5\n", "-0.0\n", "0\n", "-0\n", "1\n", "-1\n"])
    write("zeros-even", ["-0\n", "0\n", "-0\n", "0\n", "2\n", "-2\n", "-0\n", "0\n", "-0\n", "0\n"])
    write("zeros-max", ["-3\n", "0\n", "-1\n", "-0\n"])
    write("const", ["7\n"] * 5)
    write("const2", ["7\n"] * 8)
    write("two", ["1\n", "2\n"])
    write("empty", [])
    write("comments", ["# nothing\n", "   \n", "#1\n", "\n"])
    write("bad1", ["1\n", "2\n", "# fine\n", "abc\n", "5\n"])
    write("bad2", ["1\n", "1,5\n", "2\n"])
    write("bad3", ["10\n", "11\n", "12\n", "13\n", "\n", "14ms\n"])
    write("nan", ["1\n", "2\n", "nan\n", "3\n"])
    write("inf", ["1\n", "2\n", "3\n", "-inf\n"])
    write("overflow", ["1\n", "2\n", "1e999\n", "3\n"])


def random_data():
    """r01..r16: sizes, spreads, ties and shapes chosen at random (seeded)."""
    rng = random.Random(4242)
    for i in range(1, 17):
        n = rng.choice([3, 4, 5, 7, 10, 16, 33, 64, 101, 250, 400])
        kind = rng.choice(["gauss", "ints", "lognorm", "bimodal", "outlier", "coarse"])
        mu = rng.choice([0.5, 10, 100, 2500, -40])
        sd = abs(mu) * rng.choice([0.01, 0.1, 0.3]) + 0.01
        vals = []
        for _ in range(n):
            if kind == "gauss":
                v = "%.*f" % (rng.randint(0, 5), rng.gauss(mu, sd))
            elif kind == "ints":
                v = "%d" % round(rng.gauss(mu, sd / 3 + 1))
            elif kind == "lognorm":
                v = "%.4g" % (abs(mu) * rng.lognormvariate(0, 0.5))
            elif kind == "bimodal":
                v = "%.3f" % rng.gauss(mu + (sd * 4 if rng.random() < 0.5 else 0), sd)
            elif kind == "outlier":
                v = "%.2f" % (mu if rng.random() < 0.9 else mu + 50 * sd)
            else:
                v = "%.1f" % round(rng.gauss(mu, sd), 1)
            vals.append(v + "\n")
        write("r%02d" % i, vals)


def random_cases():
    rng = random.Random(777)
    cases = []
    for k in range(1, 61):
        nsets = rng.choice([1, 2, 2, 2, 3, 3, 4, 5, 7])
        files = [("r%02d" % rng.randint(1, 16)) for _ in range(nsets)]
        opts = []
        for flag in ["-A", "-n", "-q", "-s"]:
            if rng.random() < 0.2:
                opts.append(flag)
        if rng.random() < 0.5:
            opts.append("-w %d" % rng.choice([2, 3, 5, 11, 30, 60, 74, 99, 150]))
        if rng.random() < 0.5:
            opts.append("-c %g" % rng.choice([80, 90, 95, 98, 99, 99.5]))
        cases.append(("random-%02d" % k, " ".join(opts + files), None, None))
    return cases


def seed000():
    """Data sets with the N, min, max, median, mean and stddev that seed 000
    prints (ten runs each, values in hundredths), found by a seeded search."""
    import math
    sets = {
        "real-before": (76.4, 127.62, 84.845, 88.577, 15.100031),
        "real-after": (59.71, 60.79, 60.135, 60.179, 0.29957192),
        "sys-before": (2277.96, 6948.53, 2949.47, 3341.492, 1385.2677),
        "sys-after": (1038.7, 1081.06, 1070.555, 1064.017, 15.85404),
        "real-nopmc": (58.38, 59.15, 58.86, 58.847, 0.22504567),
        "sys-nopmc": (1010.15, 1073.31, 1025.465, 1031.524, 18.135705),
    }
    n = 10
    for name, (mn, mx, med, mean, sd) in sets.items():
        rng = random.Random(name)
        MN, MX, M2, S = round(mn * 100), round(mx * 100), round(med * 200), round(mean * n * 100)
        free = [1, 2, 3, 6, 7, 8]

        def sdv(v):
            m = sum(v) / n / 100
            return math.sqrt(sum((x / 100 - m) ** 2 for x in v) / (n - 1))

        found = None
        while not found:
            x5 = rng.randint(max(MN, M2 - MX), M2 // 2)
            x6 = M2 - x5
            xs = [MN] + sorted(rng.randint(MN, x5) for _ in range(3)) + [x5, x6] + \
                sorted(rng.randint(x6, MX) for _ in range(3)) + [MX]
            bounds = {i: (MN, x5) if i < 5 else (x6, MX) for i in free}
            diff = S - sum(xs)
            for _ in range(1000):
                if diff == 0:
                    break
                i = rng.choice(free)
                lo, hi = bounds[i]
                want = diff if abs(diff) < 50 else (rng.randint(0, diff) if diff > 0 else rng.randint(diff, 0))
                step = max(lo - xs[i], min(hi - xs[i], want))
                xs[i] += step
                diff -= step
            if diff:
                continue
            cur = sdv(xs)
            for _ in range(20000):
                if "%.8g" % cur == "%.8g" % sd:
                    break
                i, j = rng.sample(free, 2)
                d = rng.choice([1, 1, 1, 2, 3, 5, 10, 30, 100])
                if not (bounds[i][0] <= xs[i] + d <= bounds[i][1] and
                        bounds[j][0] <= xs[j] - d <= bounds[j][1]):
                    continue
                xs[i] += d
                xs[j] -= d
                new = sdv(xs)
                if abs(new - sd) <= abs(cur - sd):
                    cur = new
                else:
                    xs[i] -= d
                    xs[j] += d
            if "%.8g" % cur == "%.8g" % sd:
                found = xs
        rng.shuffle(found)
        d = os.path.join(HERE, "seed000")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), "w") as f:
            for x in found:
                f.write(("%d.%02d" % divmod(x, 100)).rstrip("0").rstrip(".") + "\n")


# (name, args, stdin file or None, tachy's message for error cases)
CASES = [
    ("sample", "chameleon iguana", None, None),
    ("sample-reversed", "iguana chameleon", None, None),
    ("sample-s", "-s chameleon iguana", None, None),
    ("sample-A", "-A chameleon iguana", None, None),
    ("sample-n", "-n chameleon iguana", None, None),
    ("sample-q", "-q chameleon iguana", None, None),
    ("sample-qA", "-q -A chameleon iguana", None, None),
    ("one-set", "g1", None, None),
    ("one-set-n", "-n g4", None, None),
    ("two-sets", "g1 g2", None, None),
    ("c80", "-c 80 g1 g2", None, None),
    ("c90", "-c 90 g1 g2", None, None),
    ("c95", "-c 95 g1 g4", None, None),
    ("c98", "-c 98 g4 g6", None, None),
    ("c99", "-c 99 g1 g3", None, None),
    ("c99.5", "-c 99.5 g4 g5", None, None),
    ("c99.5-big", "-c 99.5 -A big1 big2", None, None),
    ("c80-ties", "-c 80 -A i1 i2", None, None),
    ("w2", "-w 2 chameleon iguana", None, None),
    ("w10", "-w 10 g1 g2 g3", None, None),
    ("w40-s", "-w 40 -s g1 g2 g3", None, None),
    ("w120", "-w 120 g4 g6", None, None),
    ("w200-s", "-s -w 200 i1 i2", None, None),
    ("three", "g1 g2 g3", None, None),
    ("four-s", "-s g1 g2 g3 g4", None, None),
    ("five", "g1 g2 g3 g4 g5", None, None),
    ("six-s", "-s g1 g2 g3 g4 g5 g6", None, None),
    ("seven", "g1 g2 g3 g4 g5 g6 g7", None, None),
    ("seven-s", "-s g7 g6 g5 g4 g3 g2 g1", None, None),
    ("seven-A", "-A g1 g2 g3 g4 g5 g6 g7", None, None),
    ("ties", "i1 i2", None, None),
    ("ties-taller-first", "i3 i1", None, None),
    ("ties-three", "i1 i3 i4", None, None),
    ("ties-s", "-s i4 i2 i1", None, None),
    ("ties-w20", "-w 20 i3 i2", None, None),
    ("big", "big1 big2", None, None),
    ("big-w30-s", "-w 30 -s big1 big2", None, None),
    ("big-A", "-A big1 big2", None, None),
    ("big-small", "-A big1 g6", None, None),
    ("neg", "neg g1", None, None),
    ("neg-only", "neg", None, None),
    ("tiny", "tiny", None, None),
    ("huge", "huge huge", None, None),
    ("formats", "e1", None, None),
    ("formats-two", "-s e1 i3", None, None),
    ("dot", "dot", None, None),
    ("const", "const const2", None, None),
    ("signed-zeros", "zeros zeros-even zeros-max", None, None),
    ("signed-zeros-n", "-n zeros-even zeros", None, None),
    ("const-mixed", "const g1", None, None),
    ("column2", "-C 2 cols.txt", None, None),
    ("column3", "-C 3 cols.txt", None, None),
    ("csv", "-d , -C 2 cols.csv", None, None),
    ("csv-vs", "-d , -C 3 cols.csv", None, None),
    ("delims", "-d ':;' -C 2 cols.sc", None, None),
    ("delims3", "-d ';:' -C 3 -w 50 cols.sc", None, None),
    ("stdin", "", "g3", None),
    ("stdin-dash", "-", "g3", None),
    ("stdin-first", "- g2", "g1", None),
    ("stdin-n", "-n", "chameleon", None),
    ("options-joined", "-qsw60 g1 g2", None, None),
    ("column-joined", "-C2 -w50 cols.txt", None, None),
    # errors
    ("err-open", "nope", None, "Cannot open nope: No such file or directory"),
    ("err-open-second", "bad1 nope", None, "Cannot open nope: No such file or directory"),
    ("err-invalid", "bad1", None, "Invalid data on line 4 in bad1"),
    ("err-invalid-second", "g1 bad1", None, "Invalid data on line 4 in bad1"),
    ("err-invalid-comma", "bad2", None, "Invalid data on line 2 in bad2"),
    ("err-invalid-unit", "-A g1 bad3", None, "Invalid data on line 6 in bad3"),
    ("err-invalid-stdin", "", "bad3", "Invalid data on line 6 in <stdin>"),
    ("err-invalid-column", "-C 4 cols.txt", None, "Invalid data on line 2 in cols.txt"),
    ("err-two", "two", None, "Dataset two must contain at least 3 data points"),
    ("err-empty", "g1 empty", None, "Dataset empty must contain at least 3 data points"),
    ("err-comments", "comments", None, "Dataset comments must contain at least 3 data points"),
    ("err-column-beyond", "-C 9 cols.txt", None, "Dataset cols.txt must contain at least 3 data points"),
    ("err-c-level", "-c 97 g1 g2", None, "usage:No support for confidence level"),
    ("err-c-number", "-c 95x g1 g2", None, "usage:Not a floating point number"),
    ("err-C-zero", "-C 0 g1", None, "usage:Column number should be positive."),
    ("err-C-negative", "-C -3 g1", None, "usage:Column number should be positive."),
    ("err-C-number", "-C two g1", None, "usage:Invalid column number."),
    ("err-w-negative", "-w -5 g1", None, "usage:Unable to move beyond left margin."),
    ("err-w-number", "-w 7x g1", None, "usage:Invalid width, not a number."),
    ("err-d-empty", "-d '' g1", None, "usage:Can't use empty delimiter string"),
    ("err-too-many", "g1 g2 g3 g4 g5 g6 g7 g1", None, "usage:Too many datasets."),
    ("err-option", "-x g1", None, "usage:Unknown option -x"),
]

# seed 000: its six comparisons
SEED = [
    ("seed000-real", "-A real-before real-after"),
    ("seed000-sys", "-A sys-before sys-after"),
    ("seed000-head-real", "-A real-nopmc real-before"),
    ("seed000-patched-real", "-A real-nopmc real-after"),
    ("seed000-head-sys", "-A sys-nopmc sys-before"),
    ("seed000-patched-sys", "-A sys-nopmc sys-after"),
]


def run(prog, args, stdin, cwd):
    inp = open(os.path.join(HERE, stdin), "rb") if stdin else subprocess.DEVNULL
    env = dict(os.environ, POSIXLY_CORRECT="1")
    env.pop("COLUMNS", None)
    p = subprocess.run("%s %s" % (prog, args), shell=True, cwd=cwd, stdin=inp,
                       capture_output=True, env=env)
    return p.returncode, p.stdout, p.stderr


def make_case(name, args, stdin, err, cwd_rel="."):
    d = os.path.join(CLI, "stat-" + name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    cwd = os.path.join(HERE, cwd_rel)
    st, out, errtext = run(MINISTAT, args, stdin, cwd)
    st2, out2, _ = run(FIXED, args, stdin, cwd)
    loc = "$TOP/tests/data/stat" + ("" if cwd_rel == "." else "/" + cwd_rel)
    with open(os.path.join(d, "cmd"), "w") as f:
        f.write("# expected output: FreeBSD ministat (today's ministat.c)\n")
        f.write('cd "%s" && exec "$TACHY" stat %s\n' % (loc, args))
    if stdin:
        shutil.copy(os.path.join(HERE, stdin), os.path.join(d, "stdin"))
    with open(os.path.join(d, "expected-stdout"), "wb") as f:
        f.write(out2)
    with open(os.path.join(d, "expected-status"), "w") as f:
        f.write("%d\n" % st2)
    if out != out2 or st != st2:
        with open(os.path.join(d, "differs"), "w") as f:
            f.write("ministat's own output differs here: it cuts the taller stacks of earlier\n"
                    "sets to the last set's height; tachy shows every point (see tachy-stat(1)).\n")
    if err is not None:
        usage = err.startswith("usage:")
        msg = err[6:] if usage else err
        text = "tachy stat: %s\n" % msg
        if usage:
            text += "Try 'tachy stat --help'.\n"
        with open(os.path.join(d, "expected-stderr"), "w") as f:
            f.write(text)
        core = msg.split(":")[0] if "Cannot open" in msg else msg
        if core.split(" -")[0] not in errtext.decode():
            print("warning: %s: ministat said %r" % (name, errtext.decode()))
        assert st2 == 2, (name, st2)
    else:
        assert st2 == 0, (name, st2, errtext)
    return out2


def main():
    for p in (MINISTAT, FIXED):
        if not os.access(p, os.X_OK):
            sys.exit("gen-golden.py: no ministat at %s" % p)
    make_data()
    random_data()
    seed000()
    for name, args, stdin, err in CASES + random_cases():
        make_case(name, args, stdin, err)
    seed_text = open(os.path.join(HERE, "seed000", "expected-blocks")).read()
    got = ""
    for name, args in SEED:
        out = make_case(name, args, None, None, "seed000").decode()
        got += out[out.index("Difference"):].replace("\t", "")
    if got != seed_text:
        sys.exit("gen-golden.py: seed 000 not reproduced:\n" + got)
    print("%d cases" % (len(CASES) + len(random_cases()) + len(SEED)))


main()
