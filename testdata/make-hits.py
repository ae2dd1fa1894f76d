#!/usr/bin/env python3
"""make-hits.py OUT - a recording whose DSO hits depend on the order of its
records, for buildid-list --with-hits (which orders samples only against
the records that change maps and threads; pa's "hit pass").

File mode, little-endian, one event (IP TID TIME PERIOD, sample_id_all),
one process (pid 100, "hits") mapping six libraries, each MMAP2 with a
build-id. FINISHED_ROUND splits the records into rounds as perf record
writes them, so that the order in time differs from the order in the file:
- liba: its sample comes a round before its MMAP2, which is earlier in
  time: hit only when the samples wait for their round (perf's order);
- libb: a sample and the MMAP2 at the same time, the sample first in the
  file: not hit (equal times keep the file's order);
- libc: the same with the MMAP2 first: hit;
- libd: samples in rounds with no other record: hit;
- libe: tid 201's first sample in time names pid -1 (a thread of its own,
  with no maps: no hit), its second pid 100 (then the thread joins
  process 100's maps); in the file the second comes first, which would
  make the first land in libe;
- libf: mapped, never sampled;
- libg: mapped over libd's addresses in a round of libd's samples; the
  samples after it are libg's.
So perf buildid-list --with-hits lists liba, libc, libd and libg.
"""
import struct
import sys

PID = 100
ST = 0x1 | 0x2 | 0x4 | 0x100  # IP TID TIME PERIOD
SAMPLE_ID_ALL = 1 << 18
MISC_USER = 2
MISC_MMAP_BUILD_ID = 1 << 14
LIBS = "abcdefg"


def base(lib):
    return 0x7F0000000000 + LIBS.index(lib) * 0x100000


def rec(rtype, misc, body):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def trailer(pid, tid, t):
    return struct.pack("<IIQ", pid & 0xFFFFFFFF, tid, t)


def padded(name):
    b = name.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


def comm(t, name):
    return rec(3, 0, struct.pack("<II", PID, PID) + padded(name) + trailer(PID, PID, t))


def mmap2(t, lib, at=None):
    bid = bytes([0xA0 + LIBS.index(lib)]) * 20
    body = struct.pack("<IIQQQ", PID, PID, base(at or lib), 0x100000, 0)
    body += struct.pack("<B3x20s", 20, bid) + struct.pack("<II", 5, 2)  # r-x, private
    body += padded(f"/opt/hits/lib{lib}.so") + trailer(PID, PID, t)
    return rec(10, MISC_USER | MISC_MMAP_BUILD_ID, body)


def sample(t, lib, pid=PID, tid=PID):
    ip = base(lib) + 0x1230
    return rec(9, MISC_USER, struct.pack("<QIIQQ", ip, pid & 0xFFFFFFFF, tid, t, 1000))


def finished_round():
    return rec(68, 0, b"")


def records():
    # round 1: flushed at the end of round 2 (up to its newest time, 50)
    yield comm(10, "hits")
    yield sample(50, "a")
    yield finished_round()
    # round 2: flushed at the end of round 3, up to 80
    yield mmap2(40, "a")
    yield mmap2(45, "e")
    yield mmap2(46, "f")
    yield sample(70, "b")
    yield mmap2(70, "b")
    yield mmap2(80, "c")
    yield sample(80, "c")
    yield mmap2(85, "d")
    yield finished_round()
    # round 3
    yield sample(96, "a", PID, 201)
    yield sample(95, "e", -1, 201)
    for i in range(8):
        yield sample(100 + i, "d")
    yield finished_round()
    # rounds of samples alone
    for r in range(3):
        for i in range(16):
            yield sample(200 + 100 * r + (i * 7) % 16, "d")
        yield finished_round()
    # libg over libd, between samples of the same thread at those addresses
    yield sample(500, "d")
    yield mmap2(505, "g", at="d")
    yield sample(510, "d")
    yield finished_round()


def main(out):
    data = b"".join(records())
    attr = struct.pack("<IIQQQQQ", 1, 128, 0, 4000, ST, 0, SAMPLE_ID_ALL) + bytes(128 - 48)
    ids = struct.pack("<QQ", 0, 0)  # no ids: one event
    attrs_off = 104
    data_off = attrs_off + len(attr) + len(ids)
    head = b"PERFILE2" + struct.pack("<QQ", 104, len(attr) + len(ids))
    head += struct.pack("<QQQQQQ", attrs_off, len(attr) + len(ids), data_off, len(data), 0, 0)
    head += bytes(32)  # no features
    with open(out, "wb") as f:
        f.write(head + attr + ids + data)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make-hits.py OUT")
    main(sys.argv[1])
