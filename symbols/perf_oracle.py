#!/usr/bin/env python3
"""perf_oracle.py - check symbols/ against the installed perf, address by address.

    perf_oracle.py QUERY_TOOL elf FILE [-v]     # -v: perf -v / demangle params
    perf_oracle.py QUERY_TOOL kallsyms FILE
    perf_oracle.py QUERY_TOOL map FILE          # a perf-PID.map anywhere

QUERY_TOOL is build/tests/test_symbols_query. The script picks addresses
around every symbol pa loads plus random ones, writes a pipe-mode perf.data
holding one MMAP (user DSO at 0x7f0000000000, pgoff 0; [kernel.kallsyms]_text;
or //anon for pid 4242 with the map copied to /tmp/perf-4242.map) and one
sample per address, runs `perf script -F ip,sym,symoff` on it and compares
perf's answers with `QUERY_TOOL` (pa_symtab_find_offset). Exit 1 on any
difference. A development aid: not run by ctest (needs perf).
"""
import os, random, shutil, struct, subprocess, sys, tempfile

BASE = 0x7f0000000000
MAP_PID = 4242


def event(t, misc, payload):
    return struct.pack('<IHH', t, misc, 8 + len(payload)) + payload


def pad8(b):
    b += b'\0'
    return b + b'\0' * (-len(b) % 8)


def perf_data(mmap, samples, kernel):
    out = bytearray(b'PERFILE2' + struct.pack('<Q', 16))
    # HEADER_ATTR: cpu-clock, sample_type IP|TID|PERIOD, attr size 112
    attr = struct.pack('<IIQQQQQIIQQQQIiQIHH', 1, 112, 0, 1, 1 | 2 | 256, 0, 0, 0, 0, 0, 0, 0, 0,
                       0, 0, 0, 0, 0, 0)
    out += event(64, 0, attr + struct.pack('<Q', 1))
    start, length, pgoff, name = mmap
    if kernel:
        out += event(1, 1, struct.pack('<IIQQQ', 0xffffffff, 0, start, length, pgoff) + pad8(name))
        for ip in samples:
            out += event(9, 1, struct.pack('<QIIQ', ip, 0, 0, 1))
    else:
        out += event(3, 0, struct.pack('<II', MAP_PID, MAP_PID) + pad8(b'oracle'))
        out += event(1, 2, struct.pack('<IIQQQ', MAP_PID, MAP_PID, start, length, pgoff) + pad8(name))
        for ip in samples:
            out += event(9, 2, struct.pack('<QIIQ', ip, MAP_PID, MAP_PID, 1))
    return bytes(out)


def main():
    tool, kind, path = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    verbose = '-v' in sys.argv[4:]
    flags = ['-p'] if verbose else []
    dump = subprocess.run([tool] + flags + ['-d', kind, path], capture_output=True, text=True,
                          check=True).stdout.splitlines()[1:]
    # module symbols (a 6th column) need module maps: left to the session
    syms = [(int(l.split()[0], 16), int(l.split()[1], 16)) for l in dump if len(l.split()) < 6]
    perf_args = ['-v'] if verbose else []
    random.seed(1)
    if kind == 'elf':
        # ask the tool for each symbol's file offset: resolve start vaddrs via readelf segments
        segs = []
        for l in subprocess.run(['readelf', '-lW', path], capture_output=True, text=True).stdout.splitlines():
            w = l.split()
            if w and w[0] == 'LOAD':
                off, va, _, fs, ms = (int(x, 16) for x in w[1:6])
                segs.append((off, va, fs, ms))
        size = os.path.getsize(path)
        q = set()
        for s, e in syms:
            for v in (s, s + 1, (s + e) // 2, e - 1, e):
                for off, va, fs, ms in segs:
                    if va <= v < va + max(fs, ms) and v - va + off < size:
                        q.add(v - va + off)
                        break
        for off, va, fs, ms in segs:
            q.update(off + random.randrange(max(fs, 1)) for _ in range(2000))
        queries = sorted(q)
        ips = [BASE + o for o in queries]
        mmap = (BASE, size + 0x10000, 0, path.encode())
        kernel = False
    else:
        q = set()
        for s, e in syms:
            q.update((s - 1, s, s + 1, (s + e) // 2, e - 1, e))
        lo, hi = min(s for s, _ in syms), max(e for _, e in syms)
        q.update(random.randrange(lo, hi) for _ in range(20000))
        queries = sorted(a for a in q if lo <= a < hi)
        ips = queries
        if kind == 'kallsyms':
            text = next(int(l.split()[0], 16) for l in open(path) if l.split()[2:3] == ['_text'])
            mmap = (text, (1 << 64) - 1 - text, text, b'[kernel.kallsyms]_text')
            perf_args += ['--kallsyms', path]
            kernel = True
        else:
            shutil.copy(path, f'/tmp/perf-{MAP_PID}.map')
            mmap = (lo, hi - lo, 0, b'//anon')
            kernel = False
    with tempfile.NamedTemporaryFile(suffix='.data') as f:
        f.write(perf_data(mmap, ips, kernel))
        f.flush()
        out = subprocess.run(['perf', 'script'] + perf_args + ['-i', f.name, '-F', 'ip,sym,symoff'],
                             capture_output=True, text=True, errors='replace').stdout
    perf = {}
    for l in out.splitlines():
        ip, _, rest = l.strip().partition(' ')
        if ip:
            perf[int(ip, 16)] = rest.strip()
    pa = subprocess.run([tool] + flags + [kind, path], input='\n'.join('%x' % a for a in queries),
                        capture_output=True, text=True, errors='replace').stdout.splitlines()
    bad = 0
    for a, line in zip(ips, pa):
        want, got = perf.get(a), line.partition(' ')[2]
        # perf prints a bogus offset for zero-sized symbols hit at their start
        if want is None or want.rsplit('+0x', 1)[0] == got.rsplit('+0x', 1)[0] and (
                want == got or kind == 'map'):
            continue
        bad += 1
        if bad <= 20:
            print(f'{a:#x}: perf {want!r} pa {got!r}')
    print(f'{path}: {len(queries)} addresses, {len(perf)} perf answers, {bad} differences')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
