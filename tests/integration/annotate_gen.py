#!/usr/bin/env python3
"""annotate_gen.py OUT BINARY ADDR:COUNT... - a pipe-mode perf.data (host
byte order: little-endian) of one process that mapped BINARY's executable
segment and took COUNT cpu-clock samples at each ADDR (hex, the binary's
own virtual addresses), of period 1000 + the sample's index % 3. BINARY
may be of any ELF arch: pa annotate must decode it whatever the host.
BINARY "//anon": JIT code instead, an anonymous executable page at
0x7f0000000000 (its names in /tmp/perf-4242.map, its bytes nowhere)."""
import struct
import sys


def exec_segment(path):
    with open(path, "rb") as f:
        elf = f.read()
    if elf[:4] != b"\x7fELF":
        sys.exit("not an ELF file: " + path)
    is64, end = elf[4] == 2, "<" if elf[5] == 1 else ">"
    if is64:
        phoff, = struct.unpack_from(end + "Q", elf, 0x20)
        phentsize, phnum = struct.unpack_from(end + "HH", elf, 0x36)
    else:
        phoff, = struct.unpack_from(end + "I", elf, 0x1C)
        phentsize, phnum = struct.unpack_from(end + "HH", elf, 0x2A)
    for i in range(phnum):
        o = phoff + i * phentsize
        if is64:
            ptype, flags, off, vaddr, _, _, memsz, _ = struct.unpack_from(end + "IIQQQQQQ", elf, o)
        else:
            ptype, off, vaddr, _, _, memsz, flags, _ = struct.unpack_from(end + "IIIIIIII", elf, o)
        if ptype == 1 and flags & 1:  # PT_LOAD, PF_X
            return vaddr, off, memsz
    sys.exit("no executable segment in " + path)


def rec(t, misc, body):
    return struct.pack("<IHH", t, misc, 8 + len(body)) + body


def padded(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


def main(argv):
    out, binary, hits = argv[1], argv[2], argv[3:]
    if binary == "//anon":
        start, pgoff, length = 0x7F0000000000, 0, 0x1000
    else:
        vaddr, off, memsz = exec_segment(binary)
        start, pgoff = vaddr & ~0xFFF, off & ~0xFFF
        length = (vaddr + memsz - start + 0xFFF) & ~0xFFF
    st = 0x1 | 0x2 | 0x4 | 0x80 | 0x100  # IP TID TIME CPU PERIOD
    b = bytearray(b"PERFILE2" + struct.pack("<Q", 16))
    attr = struct.pack("<IIQQQQQ", 1, 128, 0, 4000, st, 0, 1 << 20) + bytes(128 - 48)
    b += struct.pack("<IHH", 64, 0, 8 + len(attr) + 8) + attr + struct.pack("<Q", 1)
    pid = 4242
    b += rec(3, 0, struct.pack("<II", pid, pid) + padded("annot"))
    b += rec(1, 2, struct.pack("<IIQQQ", pid, pid, start, length, pgoff) + padded(binary))
    t, n = 1000, 0
    for h in hits:
        addr, count = h.split(":")
        for _ in range(int(count)):
            t += 10
            body = struct.pack("<QIIQIIQ", int(addr, 16), pid, pid, t, 0, 0, 1000 + n % 3)
            b += rec(9, 2, body)
            n += 1
    with open(out, "wb") as f:
        f.write(b)


if __name__ == "__main__":
    main(sys.argv)
