#!/bin/sh
# offcpu.sh - the figures of record --off-cpu and --wall (BENCHMARKS.md):
# 1. shares: a program that computes 40% of its wall time, sleeps 35% and
#    blocks 25% on a pipe, recorded with --wall: each share against the
#    program's own clock, as root and (when runuser and nobody exist) as an
#    unprivileged user (user space only: the waits as one share).
# 2. overhead: bench/offcpu-cost.sh (a ping-pong calibrated to 100,000
#    switches a second, tachy and perf interleaved, the kernel's own cost
#    per switch), and bench/offcpu-chains.sh (off-CPU chains of Debian's xz
#    and python3 reaching their start).
# 3. make: a --wall profile of make -j2 on 20 C files: where make and the
#    compiler drivers wait.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
RUNS=${RUNS:-7}
out="$TOP/bench/out/offcpu"
mkdir -p "$out"
[ -x "$T" ] || { echo "offcpu: build tachy first (make)"; exit 1; }
cc -O2 -fno-omit-frame-pointer -o "$out/mix" tests/data/offcpu-mix.c || exit 1

shares() { # LABEL [runuser -u nobody --]
	label=$1
	shift
	"$@" "$T" record --wall -g -q -o "$out/mix-$label.prof" -- "$out/mix" 100 > "$out/mix-$label.txt" || return 1
	"$@" "$T" report --by state "$out/mix-$label.prof" > "$out/mix-$label.report" || return 1
	python3 - "$out/mix-$label.txt" "$out/mix-$label.report" "$label" <<'PY'
import re, sys
own = {k: float(v) for k, v in re.findall(r'(\w+) ([0-9.]+)%', open(sys.argv[1]).read())}
rep = open(sys.argv[2]).read()
st = {k: float(v) for k, v in re.findall(r'(on-CPU|sleeping|I/O|lock|runnable|blocked) [0-9.]+ s \(([0-9.]+)%\)', rep)}
print(f"shares ({sys.argv[3]}): own clock compute {own['compute']:.1f}% sleep {own['sleep']:.1f}% pipe {own['pipe']:.1f}%")
print(f"  profile: " + ', '.join(f"{k} {v:.1f}%" for k, v in st.items()))
c = st.get('on-CPU', 0) + st.get('runnable', 0)
print(f"  compute vs on-CPU+runnable: {c - own['compute']:+.1f} points")
if 'Limits:' in rep:
    w = st.get('blocked', 0)
    print(f"  sleep+pipe vs blocked: {w - own['sleep'] - own['pipe']:+.1f} points (user space only)")
else:
    print(f"  sleep vs sleeping: {st.get('sleeping', 0) - own['sleep']:+.1f} points; pipe vs I/O: {st.get('I/O', 0) - own['pipe']:+.1f} points")
PY
}

shares root
if command -v runuser >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	chmod 755 "$out" "$out/mix"
	chown nobody "$out"
	shares nobody runuser -u nobody --
fi

# the overhead at 100,000 switches a second, and the chains at a switch-out
# (make bench-smoke runs those two on their own)
if [ "${BENCH_SMOKE:-0}" != 1 ]; then
	RUNS=$RUNS sh bench/offcpu-cost.sh
	sh bench/offcpu-chains.sh
fi
NMAKE=20
[ "${BENCH_SMOKE:-0}" = 1 ] && NMAKE=3

# make -j2 on NMAKE C files
src="$out/make20"
rm -rf "$src"
mkdir -p "$src"
i=1
while [ $i -le $NMAKE ]; do
	{
		echo "#include <stdio.h>"
		j=0
		while [ $j -lt 60 ]; do
			echo "static int f${j}(int x) { int s = 0; for (int k = 0; k < x; k++) s += k * $j; return s; }"
			j=$((j + 1))
		done
		echo "int file$i(void) { return f1(3) + f59($i); }"
	} > "$src/f$i.c"
	i=$((i + 1))
done
printf 'OBJS = %s\nall: $(OBJS)\n%%.o: %%.c\n\tcc -O2 -c -o $@ $<\n' \
	"$(i=1; while [ $i -le $NMAKE ]; do printf 'f%d.o ' $i; i=$((i + 1)); done)" > "$src/Makefile"
"$T" record --wall -g -q -o "$out/make.prof" -- make -s -j2 -C "$src" || exit 1
echo "make -j2, $NMAKE files: thread time by command and state"
"$T" report --by state "$out/make.prof" | sed -n 2p
"$T" report --by comm --limit 8 "$out/make.prof" | sed -n '/^ *%/,$p'
echo "where make and the drivers wait (off-CPU, folded, largest first):"
"$T" report --off-cpu --folded "$out/make.prof" | awk '{n=$NF; $NF=""; print n, $0}' | sort -rn | head -n 6 |
	awk '{printf "  %8.3f s  ", $1 / 1e9; $1=""; s=$0; if (length(s) > 150) s="..." substr(s, length(s) - 147); print s}'
