#!/usr/bin/env python3
"""annorank_gen.py OUT BINARY - a recording (file mode, little-endian, one
cpu-clock event of a fixed period) of two processes running BINARY (as
objsym_gen.py takes it), whose symbols rank differently by each process's
samples and by all of them: perf annotate orders symbols by their whole
period, ties by DSO and symbol name.

  alpha: main+4 x3, _start+4 x5
  beta:  main+8 x3, _Z3fibIlET_S0_+0x10 x5
By all samples: main (6), then _Z3fib... and _start (5 each, by name).
By each process's: _Z3fib... and _start (5), then main (3).
"""
import struct
import sys

from objsym_gen import BASE, EXCLUDE_GUEST, MISC_USER, elf_info, padded, rec, write_file

ST = 0x1 | 0x2 | 0x4 | 0x80 | 0x100  # IP TID TIME CPU PERIOD


def records(binary):
    segs, syms = elf_info(binary)
    t = 100
    for pid, comm in ((4601, "alpha"), (4602, "beta")):
        yield rec(3, 0, struct.pack("<II", pid, pid) + padded(comm))
        for vaddr, off, memsz, flags in segs:
            if flags & 1:  # the code
                start = BASE + (vaddr & ~0xFFF)
                length = (BASE + vaddr + memsz - start + 0xFFF) & ~0xFFF
                yield rec(1, MISC_USER, struct.pack("<IIQQQ", pid, pid, start, length,
                                                    off & ~0xFFF) + padded(binary))
    hits = [(4601, "main", 4, 3), (4601, "_start", 4, 5),
            (4602, "main", 8, 3), (4602, "_Z3fibIlET_S0_", 0x10, 5)]
    for pid, name, off, n in hits:
        for _ in range(n):
            t += 10
            yield rec(9, MISC_USER, struct.pack("<QIIQIIQ", BASE + syms[name] + off, pid, pid,
                                                t, 0, 0, 1000000))
    yield rec(68, 0, b"")


def main(out, binary):
    write_file(out, b"".join(records(binary)), ST, 1000000, EXCLUDE_GUEST)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: annorank_gen.py OUT BINARY")
    main(sys.argv[1], sys.argv[2])
