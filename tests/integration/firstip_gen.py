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

from objsym_gen import (BASE, EXCLUDE_GUEST, MISC_USER, SAMPLE_ID_ALL, elf_info, padded, rec,
                        write_file)

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
    flags = EXCLUDE_GUEST | (SAMPLE_ID_ALL if ids else 0)
    write_file(out, b"".join(records(binary, ids)), ST, 4000, flags)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["no-ids"]):
        sys.exit("usage: firstip_gen.py OUT BINARY [no-ids]")
    main(sys.argv[1], sys.argv[2], len(sys.argv) == 3)
