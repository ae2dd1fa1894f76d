#!/usr/bin/env python3
"""firstip_gen.py OUT BINARY [no-ids] - a recording (file mode,
little-endian, one cpu-clock event, no call chains) of one process
sampling BINARY's main (BINARY as objsym_gen.py takes it) at two
addresses a round, the later sample in time written first: as two CPUs'
buffers of one round come. perf report -v shows the address of an
entry's first sample in time; pa's flat report sums a round's samples in
the file's order. "no-ids": the event does not have sample_id_all (perf
before 2.6.38), so that its other records have no time, and perf report
and script read the whole file in its order.

Round 1: the COMM and MMAP (at time 1); round 2: main+8 at 1020, main+4
at 1010 (CPU 1's buffer, then CPU 0's); round 3: main+0xc at 1030, main+4
at 1040. (Round 2 is delivered at round 3's end, up to round 2's newest
time: all of it, in the file's order by a pass that does not sort.)
"""
import struct
import sys

from objsym_gen import BASE, MISC_USER, elf_info, padded, rec

ST = 0x1 | 0x2 | 0x4 | 0x80 | 0x100  # IP TID TIME CPU PERIOD
PID = 4444


def sample(t, ip, cpu):
    return rec(9, MISC_USER, struct.pack("<QIIQIIQ", ip, PID, PID, t, cpu, 0, 1000000))


def records(binary, ids):
    segs, syms = elf_info(binary)
    main = BASE + syms["main"]
    # sample_id_all: TID, TIME and CPU after the record's own fields
    trailer = struct.pack("<IIQII", PID, PID, 1, 0, 0) if ids else b""
    yield rec(3, 0, struct.pack("<II", PID, PID) + padded("firstip") + trailer)
    for vaddr, off, memsz, flags in segs:
        if flags & 1:  # the code
            start = BASE + (vaddr & ~0xFFF)
            length = (BASE + vaddr + memsz - start + 0xFFF) & ~0xFFF
            yield rec(1, MISC_USER, struct.pack("<IIQQQ", PID, PID, start, length, off & ~0xFFF) +
                      padded(binary) + trailer)
    yield rec(68, 0, b"")
    yield sample(1020, main + 8, 1)
    yield sample(1010, main + 4, 0)
    yield rec(68, 0, b"")
    yield sample(1030, main + 0xC, 0)
    yield sample(1040, main + 4, 0)
    yield rec(68, 0, b"")


def main(out, binary, ids):
    data = b"".join(records(binary, ids))
    flags = (1 << 20) | (1 << 18 if ids else 0)  # exclude_guest, sample_id_all
    attr = struct.pack("<IIQQQQQ", 1, 128, 0, 4000, ST, 0, flags) + bytes(128 - 48)
    ids = struct.pack("<QQ", 0, 0)
    data_off = 104 + len(attr) + len(ids)
    head = b"PERFILE2" + struct.pack("<QQ", 104, len(attr) + len(ids))
    head += struct.pack("<QQQQQQ", 104, len(attr) + len(ids), data_off, len(data), 0, 0)
    head += bytes(32)
    with open(out, "wb") as f:
        f.write(head + attr + ids + data)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["no-ids"]):
        sys.exit("usage: firstip_gen.py OUT BINARY [no-ids]")
    main(sys.argv[1], sys.argv[2], len(sys.argv) == 3)
