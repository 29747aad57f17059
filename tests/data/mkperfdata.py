#!/usr/bin/env python3
"""mkperfdata.py DIR - write small perf.data files, good and damaged, for
tests/cli/report-perfdata-bad (sched*.data: report-perfdata-sched-bad) and
the corpus of tests/fuzz/fuzz-perfdata.c.

The layout is perf's (tools/perf/util/header.c): a 104-byte header
("PERFILE2", its size, the size of one attr entry, the sections of the
attrs, the data and the event types, a 256-bit feature map), the attrs
(perf_event_attr, then the section of its ids), the ids, the data, and one
section per feature after the data. One cpu-clock event, samples of
IP|TID|TIME|CALLCHAIN|PERIOD with sample_id_all, in a program mapped from
/nonexistent/prog (so no file of this machine enters the output)."""
import os
import struct
import sys

IP, TID, TIME, CALLCHAIN, ID, CPU, PERIOD = 1, 2, 4, 32, 64, 128, 256
ST = IP | TID | TIME | CALLCHAIN | PERIOD
PID = 4242


def attr(config=0):
    flags = (1 << 8) | (1 << 9) | (1 << 10) | (1 << 18) | (1 << 23)  # mmap comm freq id_all mmap2
    a = struct.pack("<IIQQQQQ", 1, 128, config, 1000, ST, 0, flags)
    return a + b"\0" * (128 - len(a))


def rec(typ, body, misc=0):
    body += b"\0" * (-len(body) % 8)
    return struct.pack("<IHH", typ, misc, 8 + len(body)) + body


def trailer(t):
    return struct.pack("<IIQ", PID, PID, t)


def comm(name, t, tid=PID, tr=trailer):
    n = name.encode() + b"\0"
    n += b"\0" * (-len(n) % 8)
    return rec(3, struct.pack("<II", PID, tid) + n + tr(t), misc=1 << 13)


def mmap2(start, length, path, t, tr=trailer):
    n = path.encode() + b"\0"
    n += b"\0" * (-len(n) % 8)
    body = struct.pack("<IIQQQIIQQII", PID, PID, start, length, 0, 8, 1, 99, 0, 5, 2)
    return rec(10, body + n + tr(t), misc=2)


def sample(t, chain, nr=None):
    body = struct.pack("<QIIQ", chain[0], PID, PID, t)
    body += struct.pack("<Q", 1000000)  # PERIOD
    body += struct.pack("<Q", len(chain) if nr is None else nr)
    body += b"".join(struct.pack("<Q", a) for a in chain)
    return rec(9, body, misc=2)


def pstring(s):
    b = s.encode() + b"\0"
    b += b"\0" * (-len(b) % 64)
    return struct.pack("<I", len(b)) + b


def features(names):
    """The feature sections' payloads by bit: cmdline (11), event desc (12),
    build-id (2)."""
    cmd = struct.pack("<I", 3) + b"".join(pstring(w) for w in ["perf", "record", "./prog"])
    desc = struct.pack("<II", len(names), 128)
    for i, n in enumerate(names):
        desc += attr(i) + struct.pack("<I", 1) + pstring(n) + struct.pack("<Q", 100 + i)
    path = b"/nonexistent/prog\0"
    path += b"\0" * (-len(path) % 8)
    bid = struct.pack("<IHHi", 67, 2, 8 + 4 + 24 + len(path), PID)
    bid += bytes(range(1, 21)) + bytes([20, 0, 0, 0]) + path
    bid = bytearray(bid)
    struct.pack_into("<H", bid, 6, len(bid))
    struct.pack_into("<H", bid, 4, 2 | (1 << 15))
    return {2: bytes(bid), 11: cmd, 12: desc}


def data_records():
    d = comm("prog", 1000) + mmap2(0x400000, 0x10000, "/nonexistent/prog", 1001)
    for i in range(10):
        d += sample(2000 + i, [0x401000 + 16 * (i % 3), 0x402000, 0x403000])
    return d


# A sched:sched_switch recording (perf record -a -e sched:sched_switch):
# a tracepoint event whose samples carry the tracepoint's raw record, and
# the tracing data (feature 1) with its format.
RAW = 1 << 10
SST = IP | TID | TIME | CPU | PERIOD | RAW
SWITCH_ID = 372
SWITCH_FMT = """name: sched_switch
ID: %d
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;
\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;
\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;
\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;
\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;
\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;
\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;

print fmt: "prev_comm=%%s prev_pid=%%d"
"""


def sched_attr(i=0):
    flags = (1 << 8) | (1 << 9) | (1 << 18) | (1 << 23)  # mmap comm id_all mmap2
    a = struct.pack("<IIQQQQQ", 2, 128, SWITCH_ID, 1, SST, 0, flags)
    return a + b"\0" * (128 - len(a))


def tracing(fmt):
    t = b"\x17\x08Dtracing" + b"0.6\0" + b"\0" + b"\x08" + struct.pack("<I", 4096)
    t += b"header_page\0" + struct.pack("<Q", 4) + b"abcd"
    t += b"header_event\0" + struct.pack("<Q", 0)
    t += struct.pack("<I", 0)  # ftrace's formats
    t += struct.pack("<I", 1) + b"sched\0" + struct.pack("<I", 1)
    t += struct.pack("<Q", len(fmt)) + fmt
    return t + struct.pack("<II", 0, 0)  # kallsyms, printk


def switch(t, prev, state, nxt, cpu=0, rawlen=None, rawsize=None):
    """A sched_switch sample: the task PREV leaves in STATE for NXT."""
    raw = struct.pack("<HBBi", SWITCH_ID, 0, 0, prev) + b"prog".ljust(16, b"\0")
    raw += struct.pack("<iiq", prev, 120, state) + b"prog".ljust(16, b"\0")
    raw += struct.pack("<ii", nxt, 120)
    raw = raw[:rawlen] if rawlen is not None else raw
    raw += b"\0" * (-(4 + len(raw)) % 8)
    body = struct.pack("<QIIQII", 0x401000 + 16 * (prev - PID), PID, prev, t, cpu, 0)
    body += struct.pack("<Q", 1)  # PERIOD
    body += struct.pack("<I", len(raw) if rawsize is None else rawsize) + raw
    return rec(9, body, misc=2)


def sched_records(per_task=False, short=False, cut=False):
    """Thread PID sleeps 5 ms (S), waits 2 ms for I/O (D); PID+1 is runnable
    1 ms (preempted, R) and 3 ms (R+, the kernel's preemption mark): 11 ms
    off the CPU. Per task: PID's switch-outs only."""
    def tr(t, tid=PID):  # the trailer of SST: TID, TIME, CPU
        return struct.pack("<IIQII", PID, tid, t, 0, 0)
    d = comm("prog", 1000, tr=tr)
    d += comm("worker", 1001, tid=PID + 1, tr=lambda t: tr(t, PID + 1))
    d += mmap2(0x400000, 0x10000, "/nonexistent/prog", 1002, tr=tr)
    sw = [(1000000, PID, 1, PID + 1), (6000000, PID + 1, 0, PID),
          (7000000, PID, 2, PID + 1), (9000000, PID + 1, 0x100, PID),
          (12000000, PID, 1, PID + 1)]
    for i, (t, prev, state, nxt) in enumerate(sw):
        if per_task and prev != PID:
            continue
        kw = {}
        if short and i == 4:
            kw["rawlen"] = 40  # the record ends before next_pid
        if cut and i == 4:
            kw["rawsize"] = 4000  # larger than its record
        d += switch(t, prev, state, nxt, **kw)
    return d


def perfdata(data=None, feats=None, nattr=1, extra_bits=(), attr=attr):
    data = data_records() if data is None else data
    feats = features(["cpu-clock"]) if feats is None else feats
    attrs_off = 104
    entry = 128 + 16
    ids_off = attrs_off + nattr * entry
    data_off = ids_off + 8 * nattr
    attrs = b""
    for i in range(nattr):
        attrs += attr(i) + struct.pack("<QQ", ids_off + 8 * i, 8)
    ids = b"".join(struct.pack("<Q", 100 + i) for i in range(nattr))
    bits = [0, 0, 0, 0]
    for b in list(feats) + list(extra_bits):
        bits[b // 64] |= 1 << (b % 64)
    feat_off = data_off + len(data)
    order = sorted(set(list(feats) + list(extra_bits)))
    table, payload = b"", b""
    at = feat_off + 16 * len(order)
    for b in order:
        p = feats.get(b, b"\x01\x02\x03\x04")
        table += struct.pack("<QQ", at + len(payload), len(p))
        payload += p
    hdr = b"PERFILE2" + struct.pack("<QQQQQQQQ", 104, entry, attrs_off, nattr * entry,
                                    data_off, len(data), 0, 0)
    hdr += struct.pack("<4Q", *bits)
    return bytearray(hdr + attrs + ids + data + table + payload)


def main():
    out = sys.argv[1]
    files = {}
    files["good.data"] = perfdata()
    b = perfdata()
    b[0:8] = b"PERFILE1"
    files["magic.data"] = b
    b = perfdata()
    b[0:8] = b"2ELIFREP"
    files["swapped.data"] = b
    files["trunc-header.data"] = perfdata()[:60]
    files["trunc-attrs.data"] = perfdata()[:150]
    b = perfdata()
    files["trunc-data.data"] = b[:104 + 144 + 8 + 600]
    b = perfdata()
    struct.pack_into("<Q", b, 16, 1 << 40)  # attr entry size
    files["huge-attr-size.data"] = b
    b = perfdata()
    struct.pack_into("<Q", b, 48, 1 << 62)  # data size
    files["huge-data-size.data"] = b
    b = perfdata()
    struct.pack_into("<Q", b, 32, (1 << 63) + 5)  # attrs section size
    files["huge-attrs.data"] = b
    d = data_records() + sample(3000, [0x401000], nr=1 << 60)
    files["huge-chain.data"] = perfdata(data=d)
    d = data_records()
    d = rec(50, b"12345678") + rec(99, b"abcdefgh" * 2) + d + rec(23, b"x" * 8)
    files["unknown-records.data"] = perfdata(data=d, extra_bits=(40, 200))
    d = data_records() + struct.pack("<IHH", 9, 0, 4000)
    files["huge-record.data"] = perfdata(data=d)
    files["no-events.data"] = bytearray(perfdata())
    struct.pack_into("<Q", files["no-events.data"], 32, 0)
    b = perfdata()
    struct.pack_into("<Q", b, 48, 0)
    files["unfinished.data"] = b
    # pipe mode: the header, then the attr, the features and the data as records
    p = b"PERFILE2" + struct.pack("<Q", 16)
    p += rec(64, attr() + struct.pack("<Q", 100))
    for bit, payload in sorted(features(["cpu-clock"]).items()):
        if bit != 2:
            p += rec(80, struct.pack("<Q", bit) + payload)
    p += data_records()
    files["pipe.data"] = p
    files["pipe-no-attr.data"] = b"PERFILE2" + struct.pack("<Q", 16) + data_records()
    fmt = (SWITCH_FMT % SWITCH_ID).encode()

    def sched(data=None, fmt=fmt, tracing_data=None):
        f = features(["sched:sched_switch"])
        f[1] = tracing(fmt) if tracing_data is None else tracing_data
        return perfdata(data=sched_records() if data is None else data, feats=f,
                        attr=sched_attr)
    files["sched.data"] = sched()
    files["sched-per-task.data"] = sched(data=sched_records(per_task=True))
    files["sched-short-raw.data"] = sched(data=sched_records(short=True))
    files["sched-cut-raw.data"] = sched(data=sched_records(cut=True))
    files["sched-other-id.data"] = sched(fmt=(SWITCH_FMT % 999).encode())
    files["sched-no-state.data"] = sched(fmt=fmt.replace(b"prev_state", b"prev_stat"))
    files["sched-cut-tracing.data"] = sched(tracing_data=tracing(fmt)[:80])
    files["sched-bad-tracing.data"] = sched(tracing_data=b"\x17\x08Dtrac")
    f = features(["sched:sched_switch"])
    files["sched-no-tracing.data"] = perfdata(data=sched_records(), feats=f, attr=sched_attr)
    for name, b in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes(b))


main()
