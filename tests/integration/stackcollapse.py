#!/usr/bin/env python3
"""stackcollapse.py - an independent re-implementation of the rules of
FlameGraph's stackcollapse-perf.pl (Brendan Gregg), used by the folded
tests to check `pa folded` against real `perf script` output without Perl
or the FlameGraph repository.

    perf script -F comm,pid,tid,time[,period],event,ip,sym,dso | \\
        stackcollapse.py [options] > folded

The rules it follows (from reading stackcollapse-perf.pl):
  * an event line "COMM PID/TID ... [PERIOD] EVENT:" starts a sample; the
    process frame is COMM (spaces -> '_'), COMM-PID with --pid,
    COMM-PID/TID with --tid; the sample weighs PERIOD when perf script
    printed one, else 1;
  * only the first event type seen is kept unless --event-filter names one;
  * a stack line "ADDR FUNC (MODULE)" adds a frame, leaf first in the
    input, so frames are prepended; "+0x..." offsets are stripped; a FUNC
    beginning with '(' is skipped; FUNC may hold "a->b" inline chains
    (later parts get "_[i]");
  * "[unknown]" becomes "[basename(MODULE)]", or stays "[unknown]";
  * names are tidied: ';' -> ':', everything from the first '(' that does
    not open "(anonymous namespace)" is cut unless the name looks like a
    Go method ("x.(*T).m"), quotes are removed; for java processes a
    leading 'L' goes when the name has a '/';
  * --kernel adds "_[k]" to frames whose MODULE starts with '[' or ends in
    "vmlinux" (and is not "[unknown]"), --jit "_[j]" to /tmp/perf-N.map
    frames, --all both;
  * a blank line ends the sample; equal stacks are summed; lines are
    printed sorted (byte order).

Options that are pa's, not stackcollapse's (to test pa folded's own
options the same way): --exclude-idle (drop pid 0), --user-only,
--kernel-only, --delimiter (split by address, as bcc's profile splits its
kernel and user stacks), --trim REGEX, --max-stack N.
"""
import argparse
import platform
import re
import sys

# (one deliberate difference: stackcollapse-perf.pl's ids are unsigned, so a
# sample perf gives tid -1 (a thread sampled on its way out, after its pid
# was released) is dropped, or in period mode glued into a name holding its
# time; pa folded keeps it under the name perf gives it, ":-1")
EVENT_RE = re.compile(r"^(\S.+?)\s+(-?\d+)/*(-?\d+)*\s+")
EVENT_TAIL_RE = re.compile(r":\s*(\d+)*\s+(\S+):\s*$")
STACK_RE = re.compile(r"^\s*(\w+)\s*(.+) \((.*)\)")
OFFSET_RE = re.compile(r"\+0x[\da-f]+$")
GO_RE = re.compile(r"\.\(.*\)\.")
PAREN_RE = re.compile(r"\((?!anonymous namespace\)).*")
JIT_RE = re.compile(r"/tmp/perf-\d+\.map")


def is_kernel_mod(mod):
    """stackcollapse-perf.pl's test for the _[k] annotation."""
    return (mod.startswith("[") or mod.endswith("vmlinux")) and "unknown" not in mod


# pa's own options (-U, -K, -d) split stacks as bcc's profile tool does,
# into the kernel stack and the user stack: here by the address perf script
# prints, independently of pa's cpumode-based rule; [vdso] frames are user
# frames there. The recordings compared are made on this machine: on a
# 64-bit one the upper half of the address space is the kernel's (x86_64,
# arm64, ppc64, riscv64: the same split as 0xffff800000000000 on x86_64,
# where nothing lies in between), on a 32-bit one the top quarter (the
# default 3G/1G split); s390x gives the kernel an address space of its
# own, so there the kernel's DSOs ("[kernel.kallsyms]", "[module]") tell.
MACHINE = platform.machine()
if MACHINE in ("i386", "i486", "i586", "i686") or MACHINE.startswith("arm"):
    KERNEL_BASE = 0xc0000000
else:
    KERNEL_BASE = 1 << 63
USER_BRACKETED = ("[vdso]", "[vdso32]", "[vdso64]", "[vsyscall]", "[unknown]", "[heap]", "[stack]")


def is_kernel_frame(addr, mod):
    if MACHINE.startswith("s390"):
        return mod.startswith("[") and mod not in USER_BRACKETED
    return int(addr, 16) >= KERNEL_BASE


def trim_matches(trim, name):
    """--trim: the name as printed, or without its _[k]/_[j]/_[i] mark."""
    if re.search(trim, name):
        return True
    return name[-4:] in ("_[k]", "_[j]", "_[i]") and re.search(trim, name[:-4]) is not None


def tidy(func, pname):
    func = func.replace(";", ":")
    if not GO_RE.search(func):
        func = PAREN_RE.sub("", func, count=1)
    func = func.replace('"', "").replace("'", "")
    if pname.startswith("java") and "/" in func and func.startswith("L"):
        func = func[1:]
    return func


def frames_of(addr, rawfunc, mod, pname, opts):
    """Frames of one stack line, outermost first, with whether each is a
    kernel frame."""
    out = []
    parts = rawfunc.split("->")
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()  # perl's split drops trailing empty fields
    for i, func in enumerate(parts):
        if func == "[unknown]":
            if mod != "[unknown]":
                func = "[" + mod.rsplit("/", 1)[-1] + "]"
            else:
                func = "[unknown]"
        func = tidy(func, pname)
        kernel = is_kernel_frame(addr, mod)
        if i > 0:
            if "_[i]" not in func:
                func += "_[i]"
        elif opts.kernel and is_kernel_mod(mod):
            func += "_[k]"
        elif opts.jit and JIT_RE.search(mod):
            if "_[j]" not in func:
                func += "_[j]"
        out.append((func, kernel))
    return out


def collapse(lines, opts):
    collapsed = {}
    event_filter = opts.event_filter or ""
    stack = []  # leaf first: (name, kernel)
    pname = None
    pid = None
    weight = 1
    nlines = 0

    def finish():
        if pname is None:
            return
        frames = stack[: opts.max_stack] if opts.max_stack else list(stack)
        if opts.exclude_idle and pid == "0":
            return
        if opts.user_only:
            frames = [f for f in frames if not f[1]]
        if opts.kernel_only:
            frames = [f for f in frames if f[1]]
        if opts.trim:
            while frames and trim_matches(opts.trim, frames[0][0]):
                frames.pop(0)
        if (opts.user_only or opts.kernel_only) and not frames:
            return
        names = []
        prev_kernel = None
        for name, kernel in reversed(frames):  # outermost first
            if opts.delimiter and kernel and prev_kernel is False:
                names.append("-")
            names.append(name)
            prev_kernel = kernel
        key = ";".join([pname] + names)
        collapsed[key] = collapsed.get(key, 0) + weight

    for line in lines:
        if line.startswith("#"):
            continue
        line = line.rstrip("\n")
        if line == "":
            finish()
            stack = []
            pname = None
            continue
        m = EVENT_RE.match(line)
        if m:
            comm, p, t = m.group(1), m.group(2), m.group(3)
            if not t:
                t, p = p, "?"
            period = None
            mt = EVENT_TAIL_RE.search(line)
            if mt:
                period = mt.group(1)
                event = mt.group(2)
                if event_filter == "":
                    event_filter = event
                elif event != event_filter:
                    pname = None
                    continue
            weight = int(period) if period else 1
            if opts.tid:
                pname = "%s-%s/%s" % (comm, p, t)
            elif opts.pid:
                pname = "%s-%s" % (comm, p)
            else:
                pname = comm
            pname = pname.replace(" ", "_")
            pid = p
            continue
        m = STACK_RE.match(line)
        if m:
            if pname is None:
                continue
            rawfunc, mod = m.group(2), m.group(3)
            rawfunc = OFFSET_RE.sub("", rawfunc)
            if rawfunc.startswith("("):
                continue
            # perf prints the leaf first: one line's frames go before the
            # frames seen so far... as a group, outer part last
            fr = frames_of(m.group(1), rawfunc, mod, pname, opts)
            stack.extend(reversed(fr))
            nlines += 1
            continue
        sys.stderr.write("Unrecognized line: %s\n" % line)
    finish()
    return collapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pid", action="store_true")
    ap.add_argument("--tid", action="store_true")
    ap.add_argument("--kernel", action="store_true")
    ap.add_argument("--jit", action="store_true")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--event-filter", default="")
    ap.add_argument("--exclude-idle", action="store_true")
    ap.add_argument("--user-only", action="store_true")
    ap.add_argument("--kernel-only", action="store_true")
    ap.add_argument("--delimiter", action="store_true")
    ap.add_argument("--trim", default="")
    ap.add_argument("--max-stack", type=int, default=0)
    ap.add_argument("input", nargs="?")
    opts = ap.parse_args()
    if opts.all:
        opts.kernel = opts.jit = True
    src = open(opts.input, encoding="latin-1") if opts.input else \
        open(sys.stdin.fileno(), encoding="latin-1", closefd=False)
    collapsed = collapse(src, opts)
    out = sys.stdout.buffer
    for k in sorted(collapsed, key=lambda s: s.encode("latin-1")):
        out.write(("%s %d\n" % (k, collapsed[k])).encode("latin-1"))


if __name__ == "__main__":
    main()
