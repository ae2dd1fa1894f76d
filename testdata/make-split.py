#!/usr/bin/env python3
"""make-split.py OUT flat|chains SEED - a recording whose hist entries perf
splits: the same key printed as two rows.

Pipe mode, little-endian, one thread, no maps: every address is unresolved,
so perf's symbol key compares two entries by the wrapping difference of
their addresses, which is no order when they lie 2^63 or more apart. perf's
entry tree then changes shape under a key, and a later sample of that key
may miss the entry it made before and make a second one (perf report
--sort sym prints both; a collapse key such as comm merges them again).
The same seed gives the same file.
"""
import random
import struct
import sys


def main(out, mode, seed):
    rnd = random.Random(int(seed))
    chains = mode == "chains"
    st = 0x1 | 0x2 | 0x4 | 0x80 | 0x100 | (0x20 if chains else 0)  # IP TID TIME CPU PERIOD [CALLCHAIN]
    b = bytearray(b"PERFILE2" + struct.pack("<Q", 16))
    attr = struct.pack("<IIQQQQQ", 1, 128, 0, 4000, st, 0, 0) + bytes(128 - 48)
    b += struct.pack("<IHH", 64, 0, 8 + len(attr) + 8) + attr + struct.pack("<Q", 1)

    def rec(rtype, misc, body):
        return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body

    name = b"spin"
    b += rec(3, 0, struct.pack("<II", 100, 100) + name + b"\0" * (8 - len(name) % 8))
    addrs = [rnd.getrandbits(64) & ~7 for _ in range(40)]
    t = 1000
    for _ in range(3000):
        t += 10
        ip = rnd.choice(addrs)
        cpu = rnd.randint(0, 1)
        body = struct.pack("<QIIQIIQ", ip, 100, 100, t, cpu, 0, 1000 + rnd.randint(0, 3))
        if chains:
            chain = [2**64 - 512, ip] + [rnd.choice(addrs) for _ in range(rnd.randint(0, 4))]
            body += struct.pack("<Q", len(chain)) + b"".join(struct.pack("<Q", c) for c in chain)
        b += rec(9, 2, body)  # PERF_RECORD_SAMPLE, user
    with open(out, "wb") as f:
        f.write(b)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[2] not in ("flat", "chains"):
        sys.exit("usage: make-split.py OUT flat|chains SEED")
    main(*sys.argv[1:])
