#!/bin/sh
# record-unwind.sh - call chains from CFI on real software (issue 12):
# completeness, frames in no mapping, agreement of the top 5 self-time
# functions, profile size and report speed, each against
# `perf record --call-graph dwarf` sampling THE SAME EXECUTION: perf records
# tachy record recording the workload (tachy's own samples are dropped
# from perf's side by their comm).
#   complete: the chain reaches the program's start (__libc_start_call_main,
#     __libc_start_main, _start), a thread's start (start_thread, clone3,
#     clone) or ld.so's (_dl_start, _dl_start_user); judged by names, the
#     same way for both tools
#   unmapped: a frame in no mapping ([unknown] DSO)
# Workloads: Debian's xz -6 -T1, xz -6 -T2 --block-size=1MiB, gzip -9,
# python3 (a dict/str loop), sqlite3 (a recursive CTE), make -j2 on 20 C
# files, and an -O2 program without frame pointers. RATE (default 999) Hz.
# ONLY="make" (names: xz1 xz2 gzip python sqlite make nofp) runs those
# alone, REPEAT times each (default 1), without the report-speed part.
# Each run's incomplete chains are classified (TACHY_UNWIND_DEBUG: program,
# fork/exec phase, why the chain stopped), counts printed under its line,
# every sample in $out/NAME.unwind.txt.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
RATE=${RATE:-999}
ONLY=${ONLY:-}
REPEAT=${REPEAT:-1}
out="$TOP/bench/out/record-unwind"
mkdir -p "$out/mk"
[ -x "$T" ] || { echo "record-unwind: build tachy first (make)"; exit 1; }
command -v perf >/dev/null 2>&1 || { echo "record-unwind: skipped: perf is not installed"; exit 0; }
perf record -q -e cpu-clock -o "$out/probe.data" true >/dev/null 2>&1 ||
	{ echo "record-unwind: skipped: perf record cannot sample here"; exit 0; }

# Inputs, made once.
[ -s "$out/data.txt" ] || head -c 3000000 /dev/urandom | base64 > "$out/data.txt"
cat > "$out/dict.py" <<'PY'
d = {}
for i in range(1500000):
    k = "k%d" % (i % 50000)
    d[k] = d.get(k, "")[:20] + str(i)
print(len(d))
PY
echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 2000000) SELECT sum(x) FROM c;" > "$out/cte.sql"
i=1
while [ $i -le 20 ]; do
	printf '#include <stdio.h>\n#include <string.h>\nint f%d(int x){int s=0;for(int i=0;i<x;i++)s+=i*%d;return s;}\n' $i $i > "$out/mk/f$i.c"
	i=$((i + 1))
done
printf 'all: $(patsubst %%.c,%%.o,$(wildcard *.c))\n%%.o: %%.c\n\tcc -O2 -c $< -o $@\nclean:\n\trm -f *.o\n' > "$out/mk/Makefile"
cc -O2 -fomit-frame-pointer -o "$out/nofp" bench/workload-nofp.c || exit 1

run() { # NAME COMMAND...
	name=$1; shift
	case " ${ONLY:-$name} " in *" $name "*) ;; *) return 0 ;; esac
	k=0
	while [ $k -lt "$REPEAT" ]; do
		run1 "$name" "$@"
		k=$((k + 1))
	done
}
run1() { # NAME COMMAND...
	name=$1; shift
	rm -f "$out/$name.prof" "$out/$name.data"
	make -s -C "$out/mk" clean >/dev/null 2>&1
	TACHY_UNWIND_DEBUG="$out/$name.unwind.txt" \
	perf record -q -e cpu-clock -F "$RATE" --call-graph dwarf -o "$out/$name.data" -- \
		"$T" record -q -F "$RATE" -g -o "$out/$name.prof" -- "$@" >/dev/null 2>"$out/$name.err" || {
		echo "$name: failed"; cat "$out/$name.err"; return 1; }
	"$T" report --folded "$out/$name.prof" > "$out/$name.t.folded"
	perf script -i "$out/$name.data" -F comm,ip,sym,dso 2>/dev/null > "$out/$name.p.script"
	"$T" report "$out/$name.prof" > "$out/$name.t.flat"
	perf report -i "$out/$name.data" --comms "$(comms "$name")" --no-children --sort dso,sym --stdio \
		-q -g none --percentage relative 2>/dev/null > "$out/$name.p.flat"
	python3 - "$out" "$name" <<'PY'
import os, re, sys
out, name = sys.argv[1], sys.argv[2]
START = {"__libc_start_call_main", "__libc_start_main", "__libc_start_main_alias_2", "_start",
         "start_thread", "clone3", "__clone3", "clone", "__clone", "_dl_start", "_dl_start_user"}
def judge(chains):  # [(frames root-first, count, unmapped?)]
    n = sum(c for _, c, _ in chains) or 1
    comp = sum(c for f, c, _ in chains if any(x in START for x in f))
    unm = sum(c for _, c, u in chains if u)
    return 100.0 * comp / n, 100.0 * unm / n, n
tch = []
for line in open(f"{out}/{name}.t.folded"):
    stack, _, cnt = line.rstrip("\n").rpartition(" ")
    fr = stack.split(";")
    tch.append((fr, int(cnt), any(x.endswith(" in [unknown]") for x in fr)))
pch, cur, comm = [], None, None
for line in open(f"{out}/{name}.p.script"):
    if not line.strip():
        if cur is not None and comm != "tachy":
            pch.append((cur[::-1], 1, any(d == "[unknown]" for _, d in cur) and True))
        cur = None
        continue
    if not line.startswith((" ", "\t")):
        comm = line.split()[0] if line.split() else ""
        cur = []
        continue
    m = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$", line)
    if m and cur is not None:
        sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(1))
        cur.append((sym, m.group(2)))
pch = [([s for s, _ in f], c, u) for f, c, u in [(fr, c, u) for fr, c, u in pch]]
# perf's frames are (sym, dso) tuples reversed above; unmapped judged on dso
tc, tu, tn = judge(tch)
pc, pu, pn = judge(pch)
def key(sym):  # one spelling for both tools: no C++ arguments
    return re.sub(r"\(.*\)( const)?$", "", sym)
starts = {}  # tachy names code without symbols DSO+0xSTART (its FDE's range)
def flat_t():
    rows = {}
    for l in open(f"{out}/{name}.t.flat"):
        p = l.split()
        if len(p) >= 8 and re.match(r"^[0-9.]+$", p[0]) and re.match(r"^[0-9.]+$", p[4]):
            k = key(" ".join(p[6:-1]))
            m = re.match(r"^(.*)\+0x([0-9a-f]+)$", k)
            if m:
                starts.setdefault(m.group(1), []).append(int(m.group(2), 16))
            rows[k] = rows.get(k, 0) + float(p[0])
    return rows
def base(dso, cache={}):  # perf's raw addresses are from the first segment of a non-PIE
    if dso not in cache:
        cache[dso] = 0
        for d in ("/usr/bin", "/usr/lib/x86_64-linux-gnu", "/usr/lib/gcc/x86_64-linux-gnu/12"):
            path = os.path.join(d, dso)
            if os.path.exists(path):
                import subprocess
                ph = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
                v = [int(l.split()[2], 16) for l in ph.splitlines() if l.strip().startswith("LOAD")]
                cache[dso] = min(v) if v else 0
                break
    return cache[dso]
def flat_p():  # perf names such code per address: grouped into tachy's ranges
    rows = {}
    for l in open(f"{out}/{name}.p.flat"):
        m = re.match(r"\s*([0-9.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*?)\s*$", l)
        if not m:
            continue
        dso, sym = m.group(2), key(m.group(3))
        a = re.match(r"^0x([0-9a-f]+)$", sym)
        if a:
            addr = int(a.group(1), 16) + base(dso)
            st = [x for x in starts.get(dso, []) if x <= addr]
            sym = f"{dso}+0x{max(st):x}" if st else sym
        rows[sym] = rows.get(sym, 0) + float(m.group(1))
    return rows
ft, fp = flat_t(), flat_p()
top = sorted(fp.items(), key=lambda kv: -kv[1])[:5]
worst = 0.0
for sym, pv in top:
    tv = ft.get(sym, 0.0)
    worst = max(worst, abs(tv - pv))
ts = os.path.getsize(f"{out}/{name}.prof")
ps = os.path.getsize(f"{out}/{name}.data")
print(f"{name:<10} complete: tachy {tc:5.1f}% perf {pc:5.1f}% | unmapped: tachy {tu:5.2f}% perf {pu:5.2f}%"
      f" | samples {tn}/{pn} | top-5 worst diff {worst:4.1f} pt | size tachy {ts/1024:.0f} KB"
      f" perf {ps/1024:.0f} KB (1/{ps/max(ts,1):.0f})")
with open(f"{out}/top5.txt", "a") as f:
    f.write(f"{name}: " + ", ".join(f"{s} perf {v:.1f} tachy {ft.get(s, 0):.1f}" for s, v in top) + "\n")
PY
	# Why the incomplete chains stopped (program, phase: cause).
	grep -v '^unwind: pid' "$out/$name.unwind.txt" 2>/dev/null | sed 's/^unwind: /    /'
}
# perf report's --comms for the workload (tachy's own samples left out).
comms() {
	case $1 in
	xz1|xz2) echo xz ;; gzip) echo gzip ;; python) echo python3 ;; sqlite) echo sqlite3 ;;
	nofp) echo nofp ;; make) echo make,cc,cc1,as,x86_64-linux-gnu-gcc-12,gcc ;;
	esac
}
: > "$out/top5.txt"
run xz1 xz -6 -T1 -k -c "$out/data.txt"
run xz2 xz -6 -T2 --block-size=1MiB -k -c "$out/data.txt"
run gzip gzip -9 -k -c "$out/data.txt"
run python /usr/bin/python3 "$out/dict.py"
run sqlite sqlite3 :memory: ".read $out/cte.sql"
run make make -s -C "$out/mk" -j2
run nofp "$out/nofp" 2000000000
echo "record-unwind: top-5 rows in $out/top5.txt; load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "$ONLY" ] || exit 0

# Report speed on the dwarf recordings of xz -6 -T1: tachy report (flat) and
# --flame against perf report and perf script (which the flame graph needs).
now() { date +%s.%N; }
: > "$out/times"
for k in 1 2 3; do
	a=$(now); "$T" report "$out/xz1.prof" > /dev/null
	b=$(now); "$T" report --flame "$out/xz1.svg" "$out/xz1.prof"
	c=$(now); perf report -i "$out/xz1.data" --stdio --no-children > /dev/null 2>&1
	d=$(now); perf script -i "$out/xz1.data" > /dev/null 2>&1
	e=$(now); echo "$a $b $c $d $e" >> "$out/times"
done
python3 - "$out/times" <<'PY'
import statistics, sys
t = [list(map(float, l.split())) for l in open(sys.argv[1])]
m = lambda i: statistics.median(r[i + 1] - r[i] for r in t)
tf, tg, pf, pg = m(0), m(1), m(2), m(3)
print(f"report on xz -6 -T1 (median of {len(t)}): flat tachy {tf:.3f} s vs perf report {pf:.3f} s ({pf/tf:.0f}x);"
      f" flame tachy {tg:.3f} s vs perf script {pg:.3f} s ({pg/tg:.0f}x)")
PY
