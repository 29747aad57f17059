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
#   exec window: tachy's samples under [exec] (the kernel loading a new image
#     after the old one is gone: no user frame of either exists; counted
#     incomplete above, and the share of the others that is complete beside).
#     As root the exec probe gives them the chain of their execve call:
#     only the command's own first exec stays there
#     (TACHY_NO_EXEC_PROBE=1 in the environment: without it)
# Workloads: Debian's xz -6 -T1, xz -6 -T2 --block-size=1MiB, gzip -9 (on
# three copies of xz's input), python3 (a dict/str loop, 4,000,000 rounds), sqlite3 (a recursive CTE), make -j2 on 20 C
# files, an -O2 program without frame pointers, and mawk (an array loop,
# 3,000,000 rounds). RATE (default 999) Hz;
# ONLY="xz1 make" runs only those workloads (names: xz1 xz2 gzip python
# sqlite make nofp mawk), REPEAT times each (default 1), without the report-speed
# part; REUSE=1 analyses the last recordings again. Each run's incomplete
# chains are classified (TACHY_UNWIND_DEBUG: program, fork/exec phase, why
# the chain stopped), the counts printed under its line, every such sample
# in $out/NAME.unwind.txt.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
RATE=${RATE:-999}
# perf's rate (PRATE), 1% above tachy's by default: at one rate the two
# timers keep the phase the exec gave them (equal periods; a context switch
# saves and restarts both), so in a run one sampler always fires at the same
# distance after the other's interrupt, which biases it (BENCHMARKS.md: the
# python agreement). 1% apart, the phase sweeps the whole period every 100
# samples: every distance equally often, in every run. Both still sample the
# same execution; shares are of each tool's own samples.
PRATE=${PRATE:-$((RATE + RATE / 100))}
# the call-graph options: perf's (PCG, default dwarf: 8 KiB of stack) and
# tachy's (TCG, default dwarf: 64 KiB), e.g. PCG=dwarf,65528 for copies of
# one size on both sides
PCG=${PCG:-dwarf}
TCG=${TCG:-dwarf}
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
# gzip -9 is fast: three copies, for samples enough for the agreement figure
[ -s "$out/data3.txt" ] || cat "$out/data.txt" "$out/data.txt" "$out/data.txt" > "$out/data3.txt"
cat > "$out/dict.py" <<'PY'
d = {}
for i in range(4000000):
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
# perf's leaves named by tachy's resolver: the common key of the agreement.
LEAFKEY="$PWD/build/std/bench/leaf-key"
export LEAFKEY
make -s --no-print-directory bench-progs >/dev/null || { echo "record-unwind: make bench-progs failed"; exit 1; }

record() { # NAME COMMAND...
	name=$1; shift
	rm -f "$out/$name.prof" "$out/$name.data"
	make -s -C "$out/mk" clean >/dev/null 2>&1
	TACHY_UNWIND_DEBUG="$out/$name.unwind.txt" \
	perf record -q -e cpu-clock -F "$PRATE" --call-graph "$PCG" -o "$out/$name.data" -- \
		"$T" record -q -F "$RATE" --call-graph "$TCG" -o "$out/$name.prof" -- "$@" >/dev/null 2>"$out/$name.err" || {
		echo "$name: failed"; cat "$out/$name.err"; return 1; }
	"$T" report --folded "$out/$name.prof" > "$out/$name.t.folded"
	perf script -i "$out/$name.data" -F comm,ip,sym,dso 2>/dev/null > "$out/$name.p.script"
	# the leaf's DSO and function without inlined callees (the chains above
	# may hold only inlined frames, whose DSO perf does not print)
	perf script --no-inline -G -i "$out/$name.data" -F comm,ip,sym,dso 2>/dev/null > "$out/$name.p.leaf"
}
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
	[ -n "${REUSE:-}" ] || record "$name" "$@" || return 1
	# tachy's samples lost (its ring buffer full while its drain was starved):
	# a hole in its side of the comparison
	"$T" report --limit 1 "$out/$name.prof" 2>/dev/null |
		sed -n '1s/.* \([0-9][0-9]*\) lost.*/\1/p' > "$out/$name.lost"
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
def exec_window(chains):  # the share under [exec], the others' completeness
    n = sum(c for _, c, _ in chains) or 1
    x = sum(c for f, c, _ in chains if f and f[0] == "[exec]")
    comp = sum(c for f, c, _ in chains if any(y in START for y in f))
    return 100.0 * x / n, 100.0 * comp / max(n - x, 1)
tch = []
for line in open(f"{out}/{name}.t.folded"):
    stack, _, cnt = line.rstrip("\n").rpartition(" ")
    fr = stack.split(";")
    tch.append((fr, int(cnt), any(x.endswith(" in [unknown]") for x in fr)))
# perf's side: every sample not of tachy's own process (comm "tachy": the
# recorder, and a workload child before its exec). Each leaf (its function:
# the first frame that is not an inlined callee) goes to leaf-key, which
# names perf's DSO and offset as tachy names its own samples.
pch, cur, comm, ev, leaves = [], None, None, [], []
def flush():
    global cur, nsamples
    if cur and comm != "tachy":
        pch.append(([s for s, _, _ in cur[::-1]], 1, any(d == "[unknown]" for _, d, _ in cur)))
        # the leaf: the first frame's address (perf gives it relative to the
        # file), in the DSO of the sample's ip (from p.leaf, sample by sample)
        leaves.append((nsamples, cur[0][2], [s for s, _, _ in cur]))
    if cur is not None:
        nsamples += 1
    cur = None
nsamples = 0
for line in open(f"{out}/{name}.p.script"):
    if not line.strip():
        flush()
        continue
    if not line.startswith((" ", "\t")):
        flush()
        comm = line.split()[0]
        cur = []
        continue
    m = re.match(r"\s*([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$", line)
    if m and cur is not None:
        sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
        cur.append((sym, m.group(3), int(m.group(1), 16)))
flush()
plv = []  # (sym, dso) of every sample's ip, in the order of p.script
for line in open(f"{out}/{name}.p.leaf"):
    m = re.match(r"\s*(.*?)\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$", line)
    plv.append((re.sub(r"\+0x[0-9a-f]+$", "", m.group(3)), m.group(4)) if m else ("[unknown]", "[unknown]"))
if len(plv) != nsamples:
    sys.exit(f"{name}: perf script gave {nsamples} chains but {len(plv)} leaves")
for i, (k, ip, fr) in enumerate(leaves):
    ev.append(f"{plv[k][1]}\t{ip:x}")
    leaves[i] = (plv[k][0], plv[k][1], fr)
tc, tu, tn = judge(tch)
pc, pu, pn = judge(pch)
tx, txc = exec_window(tch)
import subprocess
keys = subprocess.run([os.environ["LEAFKEY"]], input="\n".join(ev) + "\n", capture_output=True,
                      text=True, check=True).stdout.splitlines()
def key(sym):  # one spelling for both tools: no C++ arguments
    return re.sub(r"\(.*\)( const)?$", "", sym)
def unk(n):  # tachy's unnamed frames carry their address: one key per DSO
    m = re.match(r"^\[unknown\] 0x[0-9a-f]+ in (.*)$", n)
    return f"[unknown] in {m.group(1)}" if m else n
fp, names = {}, {}
for k, (psym, pdso, _) in zip(keys, leaves):
    n, _, d = k.partition("\t")
    n = unk(f"{n} in {d}") if n == "[unknown]" else n
    fp[n] = fp.get(n, 0) + 1
    # perf's own name of the function, where it has one (not [unknown], not
    # hidden behind inlined callees), against tachy's: C++ arguments and
    # symbol versions aside, what differs is spelling (aliases) or range
    if psym and psym != "[unknown]" and key(re.sub(r"@@?[A-Z][A-Za-z0-9_.]*$", "", psym)) != key(n):
        names[(psym, n)] = names.get((psym, n), 0) + 1
fp = {k: 100.0 * v / max(len(keys), 1) for k, v in fp.items()}
ft = {}
for fr, c, _ in tch:  # the leaf's function: the innermost frame not inlined
    leaf = next((x for x in reversed(fr) if not x.endswith(" (inlined)")), fr[-1])
    ft[unk(leaf)] = ft.get(unk(leaf), 0) + c
ft = {k: 100.0 * v / max(tn, 1) for k, v in ft.items()}
top = sorted(fp.items(), key=lambda kv: -kv[1])[:5]
worst, wsig = 0.0, 0.0
for sym, pv in top:
    tv = ft.get(sym, 0.0)
    if abs(tv - pv) >= worst:  # and its sampling error: two samplers' binomial noise
        p = (tv + pv) / 200.0
        worst = abs(tv - pv)
        wsig = 100.0 * (p * (1 - p) * (1.0 / max(tn, 1) + 1.0 / max(len(keys), 1))) ** 0.5
# Samples taken on the way back to user space from an interrupt (the other
# sampler's, or a reschedule IPI): where two samplers disturb each other.
irq_t = 100.0 * sum(c for fr, c, _ in tch if "irqentry_exit_to_user_mode" in fr) / max(tn, 1)
irq_p = 100.0 * sum(1 for _, _, fr in leaves if "irqentry_exit_to_user_mode" in fr) / max(len(leaves), 1)
with open(f"{out}/names.txt", "a") as f:
    f.write(f"{name}: perf's leaf name / tachy's name of the same address, samples (of {len(keys)}):\n")
    for (a, b), v in sorted(names.items(), key=lambda kv: -kv[1])[:8]:
        f.write(f"  {v:6d}  {a}  /  {b}\n")
try:
    lost = int(open(f"{out}/{name}.lost").read().strip() or 0)
except (OSError, ValueError):
    lost = -1
ts = os.path.getsize(f"{out}/{name}.prof")
ps = os.path.getsize(f"{out}/{name}.data")
print(f"{name:<10} complete: tachy {tc:5.1f}% perf {pc:5.1f}% | unmapped: tachy {tu:5.2f}% perf {pu:5.2f}%"
      f" | samples {tn}/{pn} | top-5 worst diff {worst:4.1f} pt (sigma {wsig:.1f}) | size tachy {ts/1024:.0f} KB"
      f" perf {ps/1024:.0f} KB (1/{ps/max(ts,1):.0f}) | irq-exit tachy {irq_t:.1f}% perf {irq_p:.1f}%"
      f" | tachy lost {lost} | exec window tachy {tx:.2f}% (complete outside it {txc:.1f}%)")
with open(f"{out}/top5.txt", "a") as f:
    f.write(f"{name}: " + ", ".join(f"{s} perf {v:.1f} tachy {ft.get(s, 0):.1f}" for s, v in top) + "\n")
PY
	# Why the incomplete chains stopped (program, phase: cause).
	grep -v '^unwind: pid' "$out/$name.unwind.txt" 2>/dev/null | sed 's/^unwind: /    /'
}
: > "$out/top5.txt"
: > "$out/names.txt"
run xz1 xz -6 -T1 -k -c "$out/data.txt"
run xz2 xz -6 -T2 --block-size=1MiB -k -c "$out/data.txt"
run gzip gzip -9 -k -c "$out/data3.txt"
run python /usr/bin/python3 "$out/dict.py"
run sqlite sqlite3 :memory: ".read $out/cte.sql"
run make make -s -C "$out/mk" -j2
run nofp "$out/nofp" "${NOFP_N:-2000000000}"
run mawk mawk 'BEGIN { for (i = 0; i < 3000000; i++) a[i % 5000] += i * 3 }'
echo "record-unwind: top-5 rows in $out/top5.txt, naming differences in $out/names.txt;" \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
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

# What an unwind table costs to make (is an on-disk cache by build-id worth
# it?): the first sample in a file, each FDE's rows on first use, a look-up,
# and the whole table made eagerly, for the biggest files of the workloads.
build/std/bench/unwind-tables 5 /usr/bin/python3.11 /usr/lib/gcc/x86_64-linux-gnu/12/cc1 \
		/usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1 \
		/usr/bin/x86_64-linux-gnu-gcc-12 /usr/bin/x86_64-linux-gnu-as
