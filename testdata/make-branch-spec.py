#!/usr/bin/env python3
"""make-branch-spec.py BIN LIB SEED SAMPLES: a gen-branch spec (see
testdata/src/gen-branch.c) of three processes mapping BIN and LIB, whose
samples carry 0-6 branch entries each: between the two DSOs' functions,
some from an unmapped address, with every flag of perf_branch_entry
(mispredicted, predicted, in_tx, abort, cycles up to past 32767, a few
branch types). Deterministic for a seed."""
import random
import subprocess
import sys

BIN_BASE, LIB_BASE = 0x555555554000, 0x7FFFF7FC0000


def functions(path):
    out = subprocess.run(["nm", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    syms = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "tT" and not p[2].startswith(("_", "deregister", "register", "frame_dummy")):
            syms[p[2]] = int(p[0], 16)
    return syms


def text_segment(path):
    """(file offset, size) of the executable PT_LOAD"""
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if p and p[0] == "LOAD" and "E" in p[6:-1]:
            return int(p[1], 16), int(p[5], 16)
    sys.exit(f"make-branch-spec: no executable segment in {path}")


def main():
    binp, libp, seed, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    targets = [BIN_BASE + a for a in functions(binp).values()]
    targets += [LIB_BASE + a for a in functions(libp).values()]
    targets.sort()
    procs = ((100, 100, "burn"), (200, 201, "worker"), (300, 300, "third"))
    t = 1000
    for pid, tid, name in procs:
        print(f"comm {pid} {tid} {t} {name}")
        for path, base in ((binp, BIN_BASE), (libp, LIB_BASE)):
            off, size = text_segment(path)
            size = (size + off - (off & ~0xFFF) + 0xFFF) & ~0xFFF
            off &= ~0xFFF
            print(f"mmap {pid} {tid} {t} {base + off:#x} {size:#x} {off:#x} {path}")
        t += 1
    rnd = random.Random(seed)
    for i in range(n):
        pid, tid, _ = rnd.choice(procs)
        br = []
        for _ in range(rnd.randint(0, 6)):
            frm = rnd.choice(targets) + rnd.randint(0, 0x20) if rnd.random() > 0.05 else 0x1234
            to = rnd.choice(targets) + rnd.choice((0, 0, 4))
            fl = "".join(c for c in "MPXA" if rnd.random() < 0.2)
            if rnd.random() < 0.5:
                fl += f"c{rnd.choice((3, 7, 40000))}"
            if rnd.random() < 0.5:
                fl += f"t{rnd.choice((1, 2, 4, 6))}"
            br.append(f"{frm:#x}>{to:#x}:{fl or '-'}")
        t += 1
        print(f"sample {pid} {tid} {t} {rnd.choice(targets):#x} 4000 {i % 2} " + " ".join(br))


main()
