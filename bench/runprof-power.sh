#!/bin/sh
# runprof-power.sh - power and A/A of `tachy run --profile` on a real
# program of 24 functions (bench/runprof-power.c: fK has K/300 of the
# time), against the peers that compare one profile a side.
#
# Each planted trial: B is the program with one function fK given 3% of
# the whole more (the program 3% slower); `tachy run --profile -r ROUNDS`
# (interleaved, paired rounds, Holm at 5%) of A and B, and in
# the same trial one profile a side of A and B by `perf record -g` +
# `perf diff` and by `tachy record -g` + `tachy report --diff`, each at
# 499 Hz (the rate of run --profile) and at its default rate (perf 4000,
# tachy record 999). tachy run's result: fK ranked first and flagged, and
# how many other functions were flagged; the peers': is fK the largest
# change (|delta| of the self share), or is a noise function's larger.
# Each A/A trial: A against A, any function flagged (self, and total).
# The planted functions go round PLANTED; A/A trials alternate with them.
#   sh bench/runprof-power.sh [TRIALS_PER_K] [AA_TRIALS] [N] [ROUNDS] [PLANTED]
set -u
cd "$(dirname "$0")/.."
tk=${1:-5}
naa=${2:-10}
n=${3:-600000}
rounds=${4:-30}
planted=${5:-"24 12 4"}
out=bench/out/power
mkdir -p "$out"
cc -O1 -fno-omit-frame-pointer -o "$out/pw" bench/runprof-power.c || exit 1
[ -x ./tachy ] || { echo "build tachy first (make)"; exit 1; }
command -v perf >/dev/null 2>&1 || { echo "no perf"; exit 1; }
log=$out/trials.txt
: > "$log"

# tachy run's verdicts: "run K first flagged others_self others_total"
judge_run() {
	./tachy compare --format json "$out/t.json" | python3 -c '
import json, sys
k = sys.argv[1]
d = json.load(sys.stdin)
r = [r for r in d["rows"] if "functions" in r][0]
f, t = r["functions"], r["functions_total"]
flag = [x["symbol"] for x in f if x["verdict"] != "~"]
first = f[0]["symbol"] == k and f[0]["verdict"] == "slower"
# totals: fK, its caller stepK and the chain above (main, libc start) grew
chain = {k, "step" + k[1:], "main", "__libc_start_call_main", "__libc_start_main_impl",
         "__libc_start_main", "_start"}
tflag = [x["symbol"] for x in t if x["verdict"] != "~" and x["symbol"] not in chain]
print("run", k, int(first), int(k in flag), len([s for s in flag if s != k]), len(tflag),
      ",".join(s or "pooled" for s in flag if s != k) or "-")
' "$1"
}

# One profile a side: "TOOL RATE K planted_largest largest_symbol"
perf_side() { # rate k
	perf record -q -F "$1" -g -o "$out/a.data" "$out/pw" "$n" >/dev/null 2>&1 &&
		perf record -q -F "$1" -g -o "$out/b.data" "$out/pw" "$n" "$2" >/dev/null 2>&1 &&
		perf diff "$out/a.data" "$out/b.data" 2>/dev/null | python3 -c '
import re, sys
best = None
for line in sys.stdin:
    if line.startswith("#") or ("[.]" not in line and "[k]" not in line):
        continue
    head, sym = re.split(r"\[[.k]\]", line, 1)
    pc = re.findall(r"[-+]?[0-9.]+%", head)
    if len(pc) == 2:
        d = float(pc[1][:-1])
    elif len(pc) == 1 and pc[0][0] in "+-":
        d = float(pc[0][:-1])
    elif len(pc) == 1:
        d = -float(pc[0][:-1])
    else:
        continue
    if best is None or abs(d) > abs(best[0]):
        best = (d, sym.strip())
k = sys.argv[2]
print("perf", sys.argv[1], k, int(best is not None and best[1] == k), best[1] if best else "-")
' "$1" "f$2"
}

tachy_side() { # rate k
	./tachy record -q -F "$1" -g -o "$out/a.prof" "$out/pw" "$n" >/dev/null 2>&1 &&
		./tachy record -q -F "$1" -g -o "$out/b.prof" "$out/pw" "$n" "$2" >/dev/null 2>&1 &&
		./tachy report --diff "$out/a.prof" "$out/b.prof" 2>/dev/null | awk -v k="f$2" -v r="$1" '
/^ +self%:/ {getline; print "report", r, k, ($6 == k) ? 1 : 0, $6; exit}'
}

i=0
aa=0
set -- $planted
np=$#
total=$((tk * np))
while [ $i -lt "$total" ] || [ $aa -lt "$naa" ]; do
	if [ $i -lt "$total" ]; then
		idx=$((i % np + 1))
		eval k=\${$idx}
		./tachy run -q --style none --profile -r "$rounds" --export-json "$out/t.json" \
			-n A "$out/pw $n" -n B "$out/pw $n $k" || exit 1
		judge_run "f$k" >> "$log"
		for rate in 499 4000; do perf_side $rate "$k" >> "$log"; done
		for rate in 499 999; do tachy_side $rate "$k" >> "$log"; done
		i=$((i + 1))
	fi
	if [ $aa -lt "$naa" ]; then
		./tachy run -q --style none --profile -r "$rounds" --export-json "$out/t.json" \
			-n A "$out/pw $n" -n B "$out/pw $n" || exit 1
		./tachy compare --format json "$out/t.json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = [r for r in d["rows"] if "functions" in r][0]
s = [x["symbol"] or "pooled" for x in r["functions"] if x["verdict"] != "~"]
t = [x["symbol"] for x in r["functions_total"] if x["verdict"] != "~"]
print("aa", len(s), len(t), ",".join(s + t) or "-")
' >> "$log"
		aa=$((aa + 1))
	fi
	echo "trial $i/$total planted, $aa/$naa A/A: $(date -u +%H:%M:%S)" >&2
done

python3 - "$log" "$planted" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
ks = sys.argv[2].split()
run = [r for r in rows if r[0] == "run"]
print("tachy run --profile, %d planted trials (3%% of the whole into one function):" % len(run))
for k in ks:
    rk = [r for r in run if r[1] == "f" + k]
    if rk:
        print("  f%s (%.1f%% of the time, %.3gx slower): first and flagged in %d of %d; "
              "another function flagged (self) in %d of %d trials" % (
                  k, 100 * int(k) / 300, 1 + 9 / int(k), sum(int(r[2]) for r in rk), len(rk),
                  sum(int(r[4]) > 0 for r in rk), len(rk)))
print("  all: first and flagged %d of %d; other self flags %d of %d function-trials; "
      "total-time flags off fK's chain in %d trials" % (
          sum(int(r[2]) for r in run), len(run), sum(int(r[4]) for r in run), 23 * len(run),
          sum(int(r[5]) > 0 for r in run)))
aa = [r for r in rows if r[0] == "aa"]
print("A/A: %d trials; any function flagged (self) in %d, (total) in %d" % (
    len(aa), sum(int(r[1]) > 0 for r in aa), sum(int(r[2]) > 0 for r in aa)))
for tool, rate in (("perf", "499"), ("perf", "4000"), ("report", "499"), ("report", "999")):
    t = [r for r in rows if r[0] == tool and r[1] == rate]
    if t:
        name = "perf diff" if tool == "perf" else "tachy report --diff"
        print("%s, one profile a side at %s Hz: planted fK the largest change in %d of %d; "
              "a noise function larger in %d" % (name, rate, sum(int(r[3]) for r in t), len(t),
                                                 sum(int(r[3]) == 0 for r in t)))
PY
