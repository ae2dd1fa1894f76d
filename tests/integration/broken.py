#!/usr/bin/env python3
"""broken.py - the broken-input sweep behind broken.sh.

  broken.py PA_CMD TESTDATA WORK [--seed N] [--scale F] [--jobs N]

Every fixture in TESTDATA (*.data) is cut at every record boundary (moved
by a random -3..+3 bytes), at each header section boundary and at ~50 random
offsets, and gets ~200 variants with 1-4 flipped bits (half anywhere, half
aimed at the file header, attribute and feature tables and record headers).
Every 8th variant goes through all four of `pa dump`, `pa header`,
`pa buildid-list` and `pa report`, the others through one of them in turn. Every run must end with
  - exit status 0, stderr empty or only "pa: 'FILE': warning: ..." lines, or
  - exit status 2 and exactly one stderr line "pa: 'FILE': MSG at offset N"
    with N no larger than the file (after any warning lines: a flip may
    also damage an optional feature section, which is only warned about),
never a signal or exit status >= 128, never longer than 10 s (60 s under an
emulator or a sanitizer, whose runs are many times slower, more so on a
loaded machine; PA_BROKEN_TIMEOUT sets another), and within
1 GB of address space (RLIMIT_AS; not under a sanitizer, which reserves far
more than that up front).

Everything is seeded (--seed, default 1): a failure names the fixture and
the variant, and `--only FIXTURE:VARIANT` re-runs just that one, leaving the
file in WORK. PA_CMD is the pa binary, optionally behind an emulator
("qemu-s390x-static -L SYSROOT /path/pa"); --scale takes a fraction of the
variants (cross runs under qemu use 0.1).

Report runs get an empty --symfs, --buildid-dir and --kallsyms: whether a
mutated file's DSOs are found on this machine is not what is tested here,
and a hostile file must not make the test read this machine's binaries.
"""
import argparse
import os
import random
import re
import resource
import shlex
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from perfdata import PerfData  # noqa: E402

TIMEOUT = 10  # natively; see hang_timeout()
SLOW_TIMEOUT = 60  # under an emulator or a sanitizer
MEM_LIMIT = 1 << 30


class Fixture:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        self.data = open(path, "rb").read()
        self.records = []
        self.marks = []  # interesting offsets: header sections, tables
        self.pipe = False
        try:
            pd = PerfData(self.data)
        except SystemExit:
            return  # not PERFILE2: cut and flip it blindly
        self.pipe = pd.pipe
        self.records = pd.records()
        if not pd.pipe:
            self.marks += [pd.attrs_offset, pd.attrs_offset + pd.attrs_size,
                           pd.data_offset, pd.feat_offset, pd.feat_offset + 16 * len(pd.feats)]
            for _bit, so, ss, te in pd.feats:
                self.marks += [so, so + ss, te]


def cut_offsets(fx, rng, scale):
    n = len(fx.data)
    offs = set()
    for off, _typ, _size in fx.records:
        offs.add(off + rng.randint(-3, 3))
    for m in fx.marks:
        offs.add(m + rng.randint(-3, 3))
    for _ in range(50):
        offs.add(rng.randrange(n))
    offs = sorted(o for o in offs if 0 <= o < n)
    if scale < 1:
        offs = sorted(rng.sample(offs, max(1, int(len(offs) * scale))))
    return offs


def flip_variants(fx, rng, count):
    n = len(fx.data)
    targets = []
    for m in fx.marks:
        targets.append((m, 16))
    if not fx.pipe:
        targets.append((0, 104))
    for off, _typ, _size in fx.records:
        targets.append((off, 8))  # the record header: type, misc, size
        targets.append((off + 8, 32))  # its first fields
    out = []
    for _ in range(count):
        flips = []
        for _k in range(rng.randint(1, 4)):
            if targets and rng.random() < 0.5:
                base, span = rng.choice(targets)
                pos = base + rng.randrange(span)
            else:
                pos = rng.randrange(n)
            if 0 <= pos < n:
                flips.append((pos, rng.randrange(8)))
        out.append(flips)
    return out


def set_limits(limit_as):
    """Limits for this process, inherited by every pa it starts (a
    preexec_fn would cost a full fork per run)."""
    if limit_as:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard == resource.RLIM_INFINITY or hard > MEM_LIMIT:
            resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def probe_limit(pa):
    """Can pa start under the address-space limit? Not when a sanitizer
    reserves its shadow memory."""
    def fn():
        resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))
    p = subprocess.run(pa + ["--version"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, preexec_fn=fn)
    return p.returncode == 0


def hang_timeout(pa, limit_as):
    """How long a run may take before it counts as a hang: a fixed bound on
    a run that takes well under a second natively, longer when pa runs under
    an emulator (PA_CMD has a prefix) or a sanitizer (it cannot start within
    RLIMIT_AS), which are many times slower, and more so on a loaded machine."""
    env = os.environ.get("PA_BROKEN_TIMEOUT")
    if env:
        return float(env)
    if len(pa) > 1 or not limit_as:
        return SLOW_TIMEOUT
    return TIMEOUT


class Runner:
    def __init__(self, pa_cmd, work, limit_as):
        self.pa = shlex.split(pa_cmd)
        self.work = work
        self.limit_as = limit_as
        self.timeout = hang_timeout(self.pa, limit_as)
        self.empty = os.path.join(work, "empty")
        os.makedirs(self.empty, exist_ok=True)
        self.kallsyms = os.path.join(self.empty, "kallsyms")
        open(self.kallsyms, "w").close()
        self.cmds = {
            "dump": ["dump"],
            "header": ["header"],
            "buildid-list": ["buildid-list"],
            "report": ["report", "--stdio", "-q", "--no-children", "-g", "none",
                       "--symfs", self.empty, "--buildid-dir", os.path.join(self.empty, "cache"),
                       "--kallsyms", self.kallsyms],
        }
        self.lock = threading.Lock()
        self.fails = []
        self.runs = 0
        self.status = {}

    def run(self, path, cmd, size):
        argv = self.pa + self.cmds[cmd] + ["-i", path]
        t0 = time.monotonic()
        try:
            p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return "hang: no exit after %d s" % self.timeout, None
        dt = time.monotonic() - t0
        st = p.returncode
        err = p.stderr.decode("utf-8", "replace")
        lines = err.splitlines()
        with self.lock:
            self.runs += 1
            self.status[st] = self.status.get(st, 0) + 1
        if st < 0 or st >= 126:
            return "crash: status %d (%.1f s): %s" % (st, dt, " | ".join(lines[-3:])), st
        prefix = "pa: '%s': " % path
        if st == 0:
            bad = [l for l in lines if not l.startswith(prefix + "warning: ")]
            if bad:
                return "exit 0 but stderr: %s" % " | ".join(bad[:3]), st
            return None, st
        if st != 2:
            return "exit status %d, want 0 or 2: %s" % (st, " | ".join(lines[:3])), st
        errors = [l for l in lines if not l.startswith(prefix + "warning: ")]
        if len(errors) != 1 or errors[0] != lines[-1]:
            return "exit 2 with %d error lines, want 1 (last): %s" % (len(errors), " | ".join(lines[:3])), st
        m = re.match(re.escape(prefix) + r".+ at offset (\d+)$", errors[0])
        if not m:
            return "stderr is not \"pa: 'FILE': ... at offset N\": %s" % errors[0], st
        if int(m.group(1)) > size:
            return "offset past the end of the %d-byte file: %s" % (size, errors[0]), st
        return None, st

    def fail(self, what):
        with self.lock:
            self.fails.append(what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pa")
    ap.add_argument("testdata")
    ap.add_argument("work")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--flips", type=int, default=200)
    ap.add_argument("--only", default=None, help="FIXTURE:VARIANT")
    args = ap.parse_args()

    os.makedirs(args.work, exist_ok=True)
    limit_as = probe_limit(shlex.split(args.pa))
    set_limits(limit_as)
    if not limit_as:
        print("note: pa does not start within RLIMIT_AS %d MB (sanitizer build?): "
              "running without it" % (MEM_LIMIT >> 20))
    r = Runner(args.pa, args.work, limit_as)

    fixtures = [Fixture(os.path.join(args.testdata, f))
                for f in sorted(os.listdir(args.testdata)) if f.endswith(".data")]
    jobs = []  # (fixture, variant name, bytes, commands)
    # Every 8th variant goes through all four commands, the others through
    # one each, in turn (the two that read every record more often): the
    # whole sweep stays under a minute on two cores.
    allc = ["dump", "header", "buildid-list", "report"]
    turn = ["dump", "report", "header", "dump", "report", "buildid-list"]

    def cmds_for(i):
        return allc if i % 8 == 0 else [turn[i % len(turn)]]

    for fx in fixtures:
        rng = random.Random("%d:%s" % (args.seed, fx.name))
        for i, off in enumerate(cut_offsets(fx, rng, args.scale)):
            jobs.append((fx, "cut%d" % off, fx.data[:off], cmds_for(i)))
        for i, flips in enumerate(flip_variants(fx, rng, max(1, int(args.flips * args.scale)))):
            b = bytearray(fx.data)
            for pos, bit in flips:
                b[pos] ^= 1 << bit
            name = "flip%d:" % i + ",".join("%d.%d" % f for f in flips)
            jobs.append((fx, name, bytes(b), cmds_for(i)))
    if args.only:
        fxn, _, vn = args.only.partition(":")
        jobs = [j for j in jobs if j[0].name == fxn and (j[1] == vn or j[1].startswith(vn + ":"))]
        if not jobs:
            print("FAIL: no variant %s" % args.only)
            return 1

    nworkers = args.jobs or min(4, os.cpu_count() or 1)
    local = threading.local()

    def work(job):
        fx, vname, data, cmds = job
        if not hasattr(local, "path"):
            local.path = os.path.join(args.work, "variant-%d" % threading.get_ident())
        path = local.path
        with open(path, "wb") as f:
            f.write(data)
        for c in cmds:
            what, _st = r.run(path, c, len(data))
            if what:
                keep = os.path.join(args.work, "FAIL-%s-%s" % (fx.name, vname.split(":")[0]))
                with open(keep, "wb") as f:
                    f.write(data)
                r.fail("%s %s: pa %s: %s (kept as %s; --only %s:%s)" %
                       (fx.name, vname, c, what.replace(path, "FILE"), keep, fx.name,
                        vname.split(":")[0]))

    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=nworkers) as ex:
        list(ex.map(work, jobs))
    dt = time.monotonic() - t0
    for f in sorted(r.fails)[:50]:
        print("FAIL: " + f)
    if len(r.fails) > 50:
        print("... and %d more failures" % (len(r.fails) - 50))
    print("%d fixtures, %d variants, %d runs in %.1f s (%d workers); exit statuses: %s" %
          (len(fixtures), len(jobs), r.runs, dt, nworkers,
           ", ".join("%d: %d" % kv for kv in sorted(r.status.items()))))
    if r.runs == 0:
        print("FAIL: nothing was run")
        return 1
    return 1 if r.fails else 0


if __name__ == "__main__":
    sys.exit(main())
