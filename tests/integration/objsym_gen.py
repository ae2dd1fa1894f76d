#!/usr/bin/env python3
"""objsym_gen.py OUT BINARY - a recording (file mode, little-endian, one
cpu-clock event with call chains) of one process that mapped BINARY (an
x86-64 ELF file with a .symtab holding main, _IO_stdin_used,
completed.0 and DW.ref.__gxx_personality_v0), its code and its data (as
perf record -d maps them), whose samples and chains reach into data
objects: a frame-pointer walk through code built without them ends up
there. perf report prints such a symbol as NAME+0xOFFSET.

Samples (ip; the chain after it), all in main, the data objects in
their chains only (a sampled ip is code):
  main+4   <- DW.ref.__gxx_personality_v0+4 (.data) <- main+0x20   x3
  main+8   <- _IO_stdin_used+0 (read-only data) <- main+0x20        x2
  main+0xc <- completed.0 (.bss, where perf finds __TMC_END__)      x1
"""
import struct
import sys

BASE = 0x555555554000
ST = 0x1 | 0x2 | 0x4 | 0x20 | 0x80 | 0x100  # IP TID TIME CALLCHAIN CPU PERIOD
PID = 4343
MISC_USER = 2
MISC_MMAP_DATA = 1 << 13
CONTEXT_USER = (1 << 64) - 512
EXCLUDE_GUEST = 1 << 20  # (attr flags)
SAMPLE_ID_ALL = 1 << 18


def elf_info(path):
    """(PT_LOAD segments as (vaddr, offset, memsz, flags), {name: value})"""
    with open(path, "rb") as f:
        elf = f.read()
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        sys.exit("not a 64-bit little-endian ELF file: " + path)
    phoff, shoff = struct.unpack_from("<QQ", elf, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", elf, 0x36)
    segs = []
    for i in range(phnum):
        ptype, flags, off, vaddr, _, _, memsz, _ = struct.unpack_from(
            "<IIQQQQQQ", elf, phoff + i * phentsize)
        if ptype == 1:
            segs.append((vaddr, off, memsz, flags))
    syms = {}
    for i in range(shnum):
        sh = struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = struct.unpack_from("<IIQQQQIIQQ", elf, shoff + sh[6] * shentsize)
        for k in range(sh[5] // 24):
            name, _, _, _, value, _ = struct.unpack_from("<IBBHQQ", elf, sh[4] + k * 24)
            s = elf[strtab[4] + name:elf.index(b"\0", strtab[4] + name)].decode()
            syms[s] = value
    return segs, syms


def rec(rtype, misc, body):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def padded(name):
    b = name.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


def sample(t, ip, chain):
    ips = [CONTEXT_USER, ip] + chain
    body = struct.pack("<QIIQIIQQ", ip, PID, PID, t, 0, 0, 1000000, len(ips))
    body += b"".join(struct.pack("<Q", x) for x in ips)
    return rec(9, MISC_USER, body)


def records(binary):
    segs, syms = elf_info(binary)
    at = {n: BASE + syms[n] for n in
          ("main", "_IO_stdin_used", "completed.0", "DW.ref.__gxx_personality_v0")}
    yield rec(3, 0, struct.pack("<II", PID, PID) + padded("objsym"))
    for vaddr, off, memsz, flags in segs:
        if vaddr < 0x1000:  # (the headers' page: nothing samples there)
            continue
        start = BASE + (vaddr & ~0xFFF)
        length = (BASE + vaddr + memsz - start + 0xFFF) & ~0xFFF
        misc = MISC_USER | (0 if flags & 1 else MISC_MMAP_DATA)
        yield rec(1, misc, struct.pack("<IIQQQ", PID, PID, start, length, off & ~0xFFF) +
                  padded(binary))
    main, obj = at["main"], at["DW.ref.__gxx_personality_v0"]
    hits = [(main + 4, [obj + 4, main + 0x20])] * 3
    hits += [(main + 8, [at["_IO_stdin_used"], main + 0x20])] * 2
    hits += [(main + 0xC, [at["completed.0"]])]
    for i, (ip, chain) in enumerate(hits):
        yield sample(1000 + 10 * i, ip, chain)
    yield rec(68, 0, b"")


def write_file(out, data, sample_type, period, flags):
    """A file-mode perf.data of one cpu-clock event (no ids, no features)
    holding the records data."""
    attr = struct.pack("<IIQQQQQ", 1, 128, 0, period, sample_type, 0, flags) + bytes(128 - 48)
    ids = struct.pack("<QQ", 0, 0)  # one event: no ids
    data_off = 104 + len(attr) + len(ids)
    head = b"PERFILE2" + struct.pack("<QQ", 104, len(attr) + len(ids))
    head += struct.pack("<QQQQQQ", 104, len(attr) + len(ids), data_off, len(data), 0, 0)
    head += bytes(32)  # no features
    with open(out, "wb") as f:
        f.write(head + attr + ids + data)


def main(out, binary):
    write_file(out, b"".join(records(binary)), ST, 4000, EXCLUDE_GUEST)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: objsym_gen.py OUT BINARY")
    main(sys.argv[1], sys.argv[2])
