#!/usr/bin/env python3
"""mkprof.py KIND > FILE - write a synthetic tachy profile (format version 1),
independently of the C writer, for the report tests.

KIND: basic (main -> {a, b -> c}, hostile names), old (the same program with
b shrunk), events (basic as page-faults sampled every 3 events), separators
(basic with a ';' and a line break in a name), terminal (basic with ESC,
OSC, CR and C1 controls in names, the DSO, the thread and the command), bidi
(basic with bidi controls, zero-width characters and a literal backslash-n in
names, the DSO, the thread and the command), bad-version, bad-index, no-end,
wall (format version 2: basic on-CPU plus off-CPU time in every state on two
threads), bad-state (wall with a state out of range).
Format version 3 (a CRC-32 per section and of the header): v3 (basic),
v3-wall (wall), v3-flip (basic with one bit of wall_ns flipped after the
checks were made), v3-unsealed (basic as version 3 with the checks left 0)."""
import struct
import sys
import zlib

def s32(v): return struct.pack('<I', v)
def s64(v): return struct.pack('<Q', v)
def sstr(b): return s32(len(b)) + b

SEALED = False

def section(tag, payload):
    check = zlib.crc32(s32(tag) + s64(len(payload)) + payload) if SEALED else 0
    return s32(tag) + s32(check) + s64(len(payload)) + payload

def profile(kind):
    global SEALED
    v3 = kind.startswith('v3')
    SEALED = v3 and kind != 'v3-unsealed'
    kind = {'v3-wall': 'wall'}.get(kind, 'basic' if v3 else kind)
    strings = [b'main', b'/bin/prog', b'a', b'b', b'c<&"\'>', b'libc.so.6', b'prog', b'helper']
    if kind == 'separators':
        strings[4] = b'c;d\ne'
    if kind == 'terminal':
        strings[2] = b'a\x1b[2J\x1b[H'
        strings[4] = b'\x1b]0;pwned\x07c\rd'
        strings[5] = b'lib\x9bc\xc2\x9b.so'
        strings[6] = b'pr\x1b[31mog\x7f'
    if kind == 'bidi':
        strings[2] = 'evil\u202etxt.exe'.encode()
        strings[4] = 'c\u2066d\u2069\u200be'.encode()
        strings[5] = 'lib\u200fc\ufeff.so'.encode()
        strings[6] = b'back\\slash\\n'
        strings[3] = b'b\\x1b'
    funcs = [(0, 1), (2, 1), (3, 1), (4, 5), (7, 1)]  # main a b hostile helper
    locs = [(0x1000, 0), (0x1100, 1), (0x1200, 2), (0x2000, 3), (0x1300, 4)]
    # stacks, leaf first
    stacks = [[1, 0], [3, 2, 0], [2, 0], [0], [4, 2, 0]]
    if kind == 'old':
        counts = [30, 40, 20, 5, 5]
    else:
        counts = [50, 30, 10, 5, 5]
    meta = [(b'event', b'cpu-clock'), (b'command', b'prog --fast'), (b'use_freq', b'1'),
            (b'rate', b'999'), (b'callchain', b'1'), (b'period_ns', b'1'), (b'lost', b'0'),
            (b'throttled', b'0'), (b'unthrottled', b'0'), (b'profiler_cpu_ns', b'1000'),
            (b'workload_cpu_ns', b'100000000'), (b'wall_ns', b'100000000')]
    if kind == 'terminal':
        meta[1] = (b'command', b'prog \x1b]2;title\x07 --fast')
    if kind == 'bidi':
        meta[1] = (b'command', 'prog \u202e--fast'.encode())
    period = 1000000
    if kind == 'events':
        meta[0] = (b'event', b'page-faults')
        meta[2] = (b'use_freq', b'0')
        meta[3] = (b'rate', b'3')
        meta[5] = (b'period_ns', b'0')
        period = 3
    v2 = kind in ('wall', 'bad-state')
    if v2:
        meta.append((b'off_cpu', b'2'))
        # 2026-12-01 10:00:00 UTC on the wall's clock, at 5 ms on the samples'
        meta += [(b'start_unix_ns', b'1796119200000000000'), (b'start_mono_ns', b'5000000')]
    version = 99 if kind == 'bad-version' else 2 if v2 else 1
    if v3:
        version = 3
    out = b'TACHYPRF' + s32(version)
    out += s32(zlib.crc32(out) if SEALED else 0)
    out += section(1, s32(len(meta)) + b''.join(sstr(k) + sstr(v) for k, v in meta))
    out += section(2, s32(len(strings)) + b''.join(sstr(x) for x in strings))
    out += section(3, s32(len(funcs)) + b''.join(s32(a) + s32(b) for a, b in funcs))
    out += section(4, s32(len(locs)) + b''.join(s64(a) + s32(f) for a, f in locs))
    st = s32(len(stacks))
    for s in stacks:
        st += s32(len(s)) + b''.join(s32(x if kind != 'bad-index' else x + 7) for x in s)
    out += section(5, st)
    threads = s32(1) + s32(100) + s32(100) + s32(6)
    if v2:
        threads = s32(2) + s32(100) + s32(100) + s32(6) + s32(100) + s32(101) + s32(7)
    out += section(6, threads)
    samples = b''
    n = 0
    for i, c in enumerate(counts):
        for j in range(c):
            samples += s64(n * 1000) + s64(period) + s32(100) + s32(0) + s32(i)
            if v2 or v3:
                samples += s32(0)
            n += 1
    if v2:
        # (time, ns off the CPU, tid, stack, state): sleeping 30 ms in b,
        # I/O 20 ms in a, lock 10 ms in main, runnable 5 ms in c.
        off = [(200000, 10000000, 100, 2, 1), (300000, 10000000, 100, 2, 1),
               (400000, 10000000, 100, 2, 1), (500000, 20000000, 101, 0, 2),
               (600000, 10000000, 101, 3, 3),
               (700000, 5000000, 101, 1, 9 if kind == 'bad-state' else 4)]
        for t, w, tid, st, state in off:
            samples += s64(t) + s64(w) + s32(tid) + s32(1) + s32(st) + s32(state)
            n += 1
    out += section(7, s64(n) + samples)
    if kind != 'no-end':
        out += section(0x454e44, b'')
    return out

kind = sys.argv[1] if len(sys.argv) > 1 else 'basic'
data = profile(kind)
if kind == 'v3-flip':
    at = data.index(b'100000000', data.index(b'wall_ns'))
    data = data[:at] + bytes([data[at] ^ 0x08]) + data[at + 1:]  # '1' -> '9'
sys.stdout.buffer.write(data)
