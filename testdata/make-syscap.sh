#!/usr/bin/env bash
# make-syscap.sh - record the sysprof capture fixtures in testdata/.
#
#   testdata/make-syscap.sh                 record, convert, write both captures
#   PA_SYSCAP_NO_BE=1 testdata/make-syscap.sh   skip the big-endian capture
#
# 1. Build testdata/src/syscap-burn.c (x86-64, static, no libc) in a temp
#    directory and record it: perf record -g -F 999 --sample-cpu.
# 2. Turn `perf script -D` (perf's raw records: call chains with their
#    PERF_CONTEXT_* markers, as sysprof's perf source gets them) into
#    testdata/syscap-burn.stacks, keeping what sysprof's perf source keeps
#    (COMM of a process, FORK, EXIT of a process, MMAP of a process, SAMPLE)
#    and giving the addresses of JIT'd code (/tmp/perf-PID.map) as JIT names,
#    as sysprof's in-process collector records them.
# 3. Write le-burn.syscap with testdata/src/syscap-writer.c linked against
#    Debian's libsysprof-capture-4 (libsysprof-4-dev), and be-burn.syscap
#    with the same program built for s390x (the sysroot of `scripts/sysroot
#    s390x`, which unpacks libsysprof-4-dev:s390x) run under qemu-s390x-static.
# 4. Ship the recorded binary as testdata/syscap-burn.elf: the test reads its
#    symbols through --symfs.
#
# Needs: perf record (perf_event_paranoid <= 1 or root), cc, python3,
# pkg-config and libsysprof-4-dev; for the big-endian capture also
# s390x-linux-gnu-gcc and qemu-user-static (scripts/sysroot installs them).
# Nothing of this machine's paths ends up in the fixtures but the temp
# directory's name.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
ms=${PA_SYSCAP_MS:-200}
log() { echo "make-syscap: $*" >&2; }
die() { log "$*"; exit 1; }

[ "$(uname -m)" = x86_64 ] || die "the workload is x86-64 code; run this on x86-64"
command -v perf >/dev/null || die "no perf (Debian: apt-get install linux-perf)"
command -v python3 >/dev/null || die "no python3"
pkg-config --exists sysprof-capture-4 || die "no libsysprof-capture-4 (Debian: apt-get install libsysprof-4-dev)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pa-syscap.XXXXXX")
trap 'rm -rf "$tmp"; rm -f /tmp/perf-"${burnpid:-none}".map' EXIT
cd "$tmp"
cc -O1 -g0 -fno-omit-frame-pointer -fno-stack-protector -fno-pie -no-pie -static -nostdlib \
	-Wl,--build-id=sha1 -o syscap-burn "$here/src/syscap-burn.c"
read -ra sysprof_flags <<<"$(pkg-config --cflags --libs sysprof-capture-4)"
cc -O1 -o syscap-writer "$here/src/syscap-writer.c" "${sysprof_flags[@]}"

log "recording with $(perf --version)"
perf record -q -g -F 999 --sample-cpu -o burn.data ./syscap-burn "$ms" 2>rec.err ||
	die "perf record failed: $(cat rec.err)"
perf script -D -i burn.data >raw.txt 2>/dev/null || die "perf script -D failed"
burnpid=$(sed -n 's/.*PERF_RECORD_COMM exec: syscap-burn:\([0-9]*\)\/.*/\1/p' raw.txt | head -n1)
[ -n "$burnpid" ] || die "no exec of syscap-burn in the recording"

python3 - raw.txt syscap-burn.stacks <<'EOF'
import os, re, sys, time

raw, out = sys.argv[1], sys.argv[2]
hdr = re.compile(r'^(-?\d+) (\d+) 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_(\w+)(.*)$')
chain = re.compile(r'^\.\.\.\.\.\s+\d+: ([0-9a-f]+)$')
lines, cur = [], None
jitmaps = {}   # pid -> [(start, end, name)] from /tmp/perf-PID.map
used_jit = []  # (pid, name) in order of first use

def jit_table(pid):
    if pid not in jitmaps:
        t = []
        try:
            with open('/tmp/perf-%d.map' % pid) as f:
                for l in f:
                    a, s, n = l.split(None, 2)
                    t.append((int(a, 16), int(a, 16) + int(s, 16), n.strip()))
        except OSError:
            pass
        jitmaps[pid] = t
    return jitmaps[pid]

def flush():
    global cur
    if cur is None:
        return
    t, cpu, pid, tid, ips = cur
    ctx, words = None, []
    for ip in ips:
        if ip >= 0xfffffffffffff001:
            ctx = ip
            words.append('%016x' % ip)
            continue
        name = None
        if ctx == 0xfffffffffffffe00:  # PERF_CONTEXT_USER
            for s, e, n in jit_table(pid):
                if s <= ip < e:
                    name = n
        if name:
            if (pid, name) not in used_jit:
                used_jit.append((pid, name))
            words.append('j:' + name)
        else:
            words.append('%016x' % ip)
    lines.append('sample %d %d %d %d %s' % (t, cpu, pid, tid, ' '.join(words)))
    cur = None

with open(raw) as f:
    for l in f:
        l = l.rstrip('\n')
        m = chain.match(l)
        if m and cur is not None:
            cur[4].append(int(m.group(1), 16))
            continue
        m = hdr.match(l)
        if not m:
            continue
        flush()
        cpu, t, kind, rest = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
        if t == 0:
            continue  # perf's own view of the world before the exec
        if kind == 'COMM':
            c = re.match(r'(?: exec)?: (.*):(\d+)/(\d+)$', rest)
            if c and c.group(2) == c.group(3):
                lines.append('comm %d %d %s %s' % (t, cpu, c.group(2), c.group(1)))
        elif kind == 'FORK':
            c = re.match(r'\((\d+):(\d+)\):\((\d+):(\d+)\)', rest)
            lines.append('fork %d %d %s %s' % (t, cpu, c.group(3), c.group(1)))
        elif kind == 'EXIT':
            c = re.match(r'\((\d+):(\d+)\):\((\d+):(\d+)\)', rest)
            if c.group(1) == c.group(2):
                lines.append('exit %d %d %s' % (t, cpu, c.group(1)))
        elif kind in ('MMAP', 'MMAP2'):
            c = re.match(r' (-?\d+)/(-?\d+): \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ (?:0x)?([0-9a-f]+)'
                         r'(?: [0-9a-f]+:[0-9a-f]+ (\d+) \d+)?\]: (\S+) (.*)$', rest)
            if c and int(c.group(1)) >= 0 and 'x' in c.group(7):
                s, n = int(c.group(3), 16), int(c.group(4), 16)
                lines.append('map %d %d %s %x %x %s %s %s' % (t, cpu, c.group(1), s, s + n,
                             c.group(5), c.group(6) or '0', c.group(8)))
        elif kind == 'SAMPLE':
            c = re.match(r'\(.*?\): (\d+)/(\d+):', rest)
            cur = (t, cpu, int(c.group(1)), int(c.group(2)), [])
    flush()

with open(out, 'w') as f:
    f.write('# syscap-burn.stacks: made by testdata/make-syscap.sh from `perf script -D`\n')
    f.write('# of `perf record -g -F 999 --sample-cpu ./syscap-burn`; read by\n')
    f.write('# testdata/src/syscap-writer.c (format there) and tests/integration/syscap.sh\n')
    f.write('capture-time %s\n' % time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()))
    for pid, name in used_jit:
        f.write('jit %d %s\n' % (pid, name))
    for l in lines:
        f.write(l + '\n')
EOF
grep -q '^sample ' syscap-burn.stacks || die "no samples converted"
grep -q '^jit ' syscap-burn.stacks || die "no JIT frames converted (no /tmp/perf-$burnpid.map?)"

mkdir out
./syscap-writer syscap-burn.stacks out/le-burn.syscap
cp syscap-burn out/syscap-burn.elf
cp syscap-burn.stacks out/

if [ "${PA_SYSCAP_NO_BE:-0}" = 1 ]; then
	log "skipping the big-endian capture (PA_SYSCAP_NO_BE=1)"
else
	sysroot=$("$top/scripts/sysroot" s390x) || die "scripts/sysroot s390x failed"
	lib=$sysroot/usr/lib/s390x-linux-gnu/libsysprof-capture-4.a
	[ -f "$lib" ] || die "no $lib: scripts/sysroot should unpack libsysprof-4-dev:s390x"
	s390x-linux-gnu-gcc --sysroot="$sysroot" -O1 -pthread -I"$sysroot/usr/include/sysprof-4" \
		-o syscap-writer.s390x "$here/src/syscap-writer.c" "$lib"
	qemu-s390x-static -L "$sysroot" ./syscap-writer.s390x syscap-burn.stacks out/be-burn.syscap
	# the header's little_endian bit (byte 5, bit 0) must be clear
	[ "$(od -An -tx1 -j5 -N1 out/be-burn.syscap | tr -d ' ')" = 00 ] ||
		die "be-burn.syscap is not big-endian"
fi

# ---- check and install ----------------------------------------------------------
for f in out/*; do
	if grep -aqF "$top" "$f" || { [ -n "${HOME:-}" ] && [ "$HOME" != / ] && grep -aqF "$HOME/" "$f"; }; then
		die "$(basename "$f") names a local path"
	fi
	sz=$(stat -c %s "$f")
	[ "$sz" -lt 102400 ] || die "$(basename "$f") is $sz bytes (limit 100 KB)"
	printf '%8d  %s\n' "$sz" "$(basename "$f")" >&2
done
chmod 644 out/*
rm -f "$here"/le-burn.syscap "$here"/be-burn.syscap
cp out/* "$here/"
log "written to testdata/: $(cd out && echo *)"
