#!/bin/sh
# offcpu-chains.sh - are the off-CPU chains of record --off-cpu -g whole on
# Debian's own stripped binaries (BENCHMARKS.md, issue 15)? xz compressing
# what it reads from a pipe (-T1, and -T2 with its threads), python3 in
# time.sleep under a few Python calls, and the -O2 program without frame
# pointers of tests/data/offcpu-nofp.c: for each, the off-CPU intervals of
# that command and the share of them (and of their time) whose chain
# reaches _start, main or a thread's start (clone3, start_thread), and the
# share cut by the stack copy ([truncated]); the
# stack copy is the default (2048 bytes) unless SIZE is set.
set -u
cd "$(dirname "$0")/.."
TOP=$(pwd)
T="$TOP/tachy"
out="$TOP/bench/out/offcpu"
mkdir -p "$out"
cg=${SIZE:+--call-graph dwarf,$SIZE}
cg=${cg:--g}
cc -O2 -fomit-frame-pointer -pthread -o "$out/nofp" tests/data/offcpu-nofp.c || exit 1
# BENCH_SMOKE=1 (make bench-smoke): 1 MB of input, 20 Python calls.
bytes=30000000 calls=200
[ "${BENCH_SMOKE:-0}" = 1 ] && bytes=1000000 calls=20
head -c $bytes /dev/urandom > "$out/random.bin"
one() { # NAME COMM COMMAND...
	name=$1 comm=$2
	shift 2
	"$T" record -q --off-cpu $cg -o "$out/chains-$name.prof" -- "$@" || return 1
	"$T" report --off-cpu --speedscope "$out/chains-$name.json" "$out/chains-$name.prof" || return 1
	python3 - "$out/chains-$name.json" "$name" "$comm" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
frames = d['shared']['frames']
# the outermost frame: _start (named xz+0x... where stripped, so: the
# caller of __libc_start_main), main, or a thread's start
outer = {'_start', 'main', 'clone3', 'clone', 'start_thread'}
def whole(names):
    return bool(names) and (names[0] in outer or
                            (len(names) > 1 and names[1] == '__libc_start_main'))
c = k = cut = 0
t = s = 0.0
for p in d['profiles']:  # one per thread, "command [tid]"
    if p['name'].rsplit(' [', 1)[0] != sys.argv[3]:
        continue
    for st, w in zip(p['samples'], p['weights']):
        c += 1
        t += w
        if whole([frames[i]['name'] for i in st[:2]]):
            k += 1
            s += w
        cut += any(frames[i]['name'] == '[truncated]' for i in st)
print(f"  {sys.argv[2]:<8} {c:6d} intervals, {100 * k / max(c, 1):5.1f}% reach _start/main/a thread start "
      f"({100 * s / max(t, 1):5.1f}% of {t / 1e9:.3f} s off the CPU), {100 * cut / max(c, 1):.1f}% cut by the copy")
PY
}
echo "record --off-cpu $cg: off-CPU chains reaching the outermost frame"
one xz-T1 xz sh -c "cat $out/random.bin | xz -3 -T1 > /dev/null"
one xz-T2 xz sh -c "cat $out/random.bin | xz -3 -T2 --block-size=1MiB > /dev/null"
one python3 python3 /usr/bin/python3 -c 'import time
def f(n):
    return f(n - 1) if n else time.sleep(0.002)
for i in range('"$calls"'): f(5)'
one nofp nofp "$out/nofp" 50
