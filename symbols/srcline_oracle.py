#!/usr/bin/env python3
"""srcline_oracle.py - check pa_srcinfo against GNU addr2line the way perf 6.1 uses it.

    srcline_oracle.py QUERY_TOOL ELF [DEBUG_FILE] [--random N] [--max N] [--perf]

QUERY_TOOL is <build>/tests/test_srcinfo_query. The script picks addresses
in the executable sections (line-table addresses, symbol starts, middles
and ends, the bytes around them, random ones: samples are only ever in
code, and bfd answers data addresses from variables, which pa does not
emulate), asks one long-running
`addr2line -e FILE -i -f` per address followed by the "," sentinel exactly as
perf 6.1's srcline.c does (FILE = DEBUG_FILE if given, else ELF), parses the
answers with perf's rules (a first record "??:0" means no answer; the
location is cut at its first ':', strtoul() of the rest is the line, the
part after the last '/' is the file) and compares the srcline and the whole
inline record list with the tool's. With --perf it also writes a pipe-mode
perf.data with one sample per address and compares `perf script -F
ip,srcline` (ELF mapped at pgoff 0; perf prints "DSO[ADDR]" when addr2line
has no answer). Exit 1 on any difference. A development aid: not run by
ctest. --random N sets how many random addresses per section are drawn
(and caps line-table addresses at 4N); --max N then keeps at most N
addresses in all (for big files: bfd scans the symbol table per query).
"""
import os, random, subprocess, sys, struct, tempfile

BASE = 0x7f0000000000
PID = 4242


def readelf(args, path):
    return subprocess.run(['readelf'] + args + [path], capture_output=True, text=True).stdout


def alloc_sections(path):
    secs = []
    for l in readelf(['-SW'], path).splitlines():
        l = l.replace('[ ', '[')
        w = l.split()
        if len(w) > 7 and w[0].startswith('[') and w[0].endswith(']') and w[0] != '[Nr]':
            try:
                addr, off, size = int(w[3], 16), int(w[4], 16), int(w[5], 16)
            except ValueError:
                continue
            flags = w[7] if not w[7].isdigit() else ''
            if 'A' in flags and size:
                secs.append((w[1], addr, off, size, w[2]))
    return secs


def exec_secs(path):
    out = set()
    for l in readelf(['-SW'], path).splitlines():
        w = l.replace('[ ', '[').split()
        if len(w) > 7 and w[0].startswith('[') and 'X' in w[7] and not w[7].isdigit():
            out.add(w[1])
    return out


def symbol_addrs(path):
    out = set()
    for l in readelf(['-sW'], path).splitlines():
        w = l.split()
        if len(w) >= 8 and w[0].endswith(':') and w[3] in ('FUNC', 'NOTYPE', 'IFUNC'):
            try:
                v, sz = int(w[1], 16), int(w[2], 0) if not w[2].startswith('0x') else int(w[2], 16)
            except ValueError:
                continue
            if v:
                out.update((v - 1, v, v + 1, v + sz // 2, v + sz - 1, v + sz))
    return out


def line_addrs(path):
    out = set()
    r = subprocess.run(['objdump', '--dwarf=decodedline', path], capture_output=True, text=True,
                       errors='replace').stdout
    for l in r.splitlines():
        w = l.split()
        for x in w[2:4]:
            if x.startswith('0x'):
                try:
                    a = int(x, 16)
                    out.update((a - 1, a, a + 1))
                except ValueError:
                    pass
    return out


def addr2line_records(fpath, addrs):
    """perf's protocol; returns {addr: None or [(func, 'file:line' raw)]}.
    Every address is asked twice and the second answers kept: bfd renames
    a C++ function DIE without a linkage name the first time it answers with
    it, so a long-running addr2line (perf's) settles on the later names."""
    inp = ''.join('%016x\n,\n' % a for a in addrs) * 2
    out = subprocess.run(['addr2line', '-e', fpath, '-i', '-f'], input=inp, capture_output=True,
                         text=True, errors='replace').stdout.split('\n')
    pos = 0
    res = {}

    def rec():
        nonlocal pos
        f, loc = out[pos].strip(), out[pos + 1]
        pos += 2
        return f, loc

    def valid(loc):
        return loc != '??:0' and ':' in loc

    for a in addrs + addrs:
        f, loc = rec()
        if not valid(loc):
            rec()  # the sentinel
            res[a] = None
            continue
        recs = [(f, loc)]
        while True:
            f, loc = rec()
            if not valid(loc):
                break
            recs.append((f, loc))
        res[a] = recs
    return res


def perf_srcline(loc):
    file, _, rest = loc.partition(':')
    digits = ''
    rest = rest.lstrip()
    # strtoul(rest, NULL, 0)
    if rest[:2].lower() == '0x':
        h = ''
        for ch in rest[2:]:
            if ch in '0123456789abcdefABCDEF':
                h += ch
            else:
                break
        n = int(h, 16) if h else 0
    elif rest[:1] == '0':
        for ch in rest:
            if ch in '01234567':
                digits += ch
            else:
                break
        n = int(digits, 8) if digits else 0
    else:
        for ch in rest:
            if ch.isdigit():
                digits += ch
            else:
                break
        n = int(digits) if digits else 0
    return '%s:%u' % (file.rsplit('/', 1)[-1], n & 0xffffffff)


def perf_data(path, size, offs):
    def event(t, misc, payload):
        return struct.pack('<IHH', t, misc, 8 + len(payload)) + payload

    def pad8(b):
        b += b'\0'
        return b + b'\0' * (-len(b) % 8)

    out = bytearray(b'PERFILE2' + struct.pack('<Q', 16))
    attr = struct.pack('<IIQQQQQIIQQQQIiQIHH', 1, 112, 0, 1, 1 | 2 | 256, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0, 0, 0)
    out += event(64, 0, attr + struct.pack('<Q', 1))
    out += event(3, 0, struct.pack('<II', PID, PID) + pad8(b'oracle'))
    out += event(1, 2, struct.pack('<IIQQQ', PID, PID, BASE, size, 0) + pad8(path.encode()))
    for o in offs:
        out += event(9, 2, struct.pack('<QIIQ', BASE + o, PID, PID, 1))
    return bytes(out)


def main():
    argv, args, nrand, with_perf, nmax = sys.argv[1:], [], 3000, False, 0
    while argv:
        a = argv.pop(0)
        if a == '--random':
            nrand = int(argv.pop(0))
        elif a == '--perf':
            with_perf = True
        elif a == '--max':
            nmax = int(argv.pop(0))
        else:
            args.append(a)
    tool, elf = args[0], os.path.abspath(args[1])
    dbg = os.path.abspath(args[2]) if len(args) > 2 else None
    fpath = dbg or elf
    random.seed(1)
    q = set()
    secs = alloc_sections(fpath)
    # samples only hit code; bfd answers data addresses from variable DIEs,
    # which pa does not emulate
    secs = [x for x in secs if x[0] in exec_secs(fpath)]
    for _, addr, _, size, _ in secs:
        q.update(addr + random.randrange(size) for _ in range(max(1, nrand // len(secs))))
        q.update((addr, addr + size - 1, addr + size))
    q |= symbol_addrs(fpath)
    la = sorted(line_addrs(fpath))
    if len(la) > 4 * nrand:
        la = random.sample(la, 4 * nrand)
    q |= set(la)
    addrs = sorted(a for a in q if any(addr <= a < addr + size for _, addr, _, size, _ in secs))
    if nmax and len(addrs) > nmax:
        addrs = sorted(random.sample(addrs, nmax))
    want = addr2line_records(fpath, addrs)

    cmd = [tool] + (['-d', dbg] if dbg else []) + [elf]
    res = subprocess.run(cmd, input='', capture_output=True, text=True).stdout.splitlines()
    delta = int(res[0].split()[-1], 16)
    offs = [a - delta for a in addrs if a >= delta]
    out = subprocess.run(cmd, input=''.join('%x\n' % o for o in offs), capture_output=True,
                         text=True, errors='replace').stdout.splitlines()[1:]
    bad = 0
    got = {}
    for o, l in zip(offs, out):
        _, line, frames = (l.split('\t') + ['', ''])[:3]
        got[o] = line
        a = o + delta
        w = want[a]
        wl = perf_srcline(w[0][1]) if w else '-'
        wf = '|'.join('%s@%s' % (f, perf_srcline(loc)) for f, loc in w) if w else ''
        if wl != line or wf != frames:
            bad += 1
            if bad <= 25:
                print('%#x: addr2line %r %r\n%s pa        %r %r' % (a, wl, wf, ' ' * len('%#x' % a), line, frames))
    print('%s: %d addresses, %d with an answer, %d differences' %
          (fpath, len(offs), sum(1 for o in offs if want[o + delta]), bad))

    if with_perf:
        size = os.path.getsize(elf)
        po = [o for o in offs if 0 <= o < size]
        # perf stops asking addr2line after 123 failures before a success
        first = [o for o in po if got[o] != '-'][:1]
        po = first + [o for o in po if o not in first]
        with tempfile.NamedTemporaryFile(suffix='.data') as f:
            f.write(perf_data(elf, size + 0x10000, po))
            f.flush()
            r = subprocess.run(['perf', 'script', '-i', f.name, '-F', 'ip,srcline'],
                               capture_output=True, text=True, errors='replace').stdout
        lines = r.split('\n')
        pbad = 0
        i = 0
        short = os.path.basename(elf)
        perf = {}
        while i < len(lines):
            l = lines[i].strip()
            if not l:
                i += 1
                continue
            ip = int(l.split()[0], 16)
            nxt = lines[i + 1] if i + 1 < len(lines) else ''
            sl = nxt.strip() if nxt.startswith('  ') and not nxt.startswith('   ') else ''
            i += 2 if sl else 1
            perf[ip - BASE] = sl
        for o in po:
            exp = got[o] if got[o] != '-' else '%s[%x]' % (short, o + delta)
            if exp == '??:0':
                exp = ''  # perf script does not print SRCLINE_UNKNOWN's text
            if perf.get(o) != exp:
                pbad += 1
                if pbad <= 25:
                    print('%#x: perf %r pa %r' % (o, perf.get(o), exp))
        print('perf script: %d samples, %d differences' % (len(po), pbad))
        bad += pbad
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
