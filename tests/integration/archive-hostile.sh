#!/usr/bin/env bash
# pa archive --unpack on hostile tarballs: absolute paths, "..", symlinks out
# of the cache, hard links, device nodes, a 10 GB decompression bomb (a small
# zstd stream, never expanded on disk), a truncated tarball, files that are
# not what their names say. Each must be refused with exit status 2 and one
# line on stderr naming the tarball, and leave the cache exactly as it was
# (empty, or holding what it held before).
. "$(dirname "$0")/lib.sh"
need_python
command -v zstd >/dev/null 2>&1 || skip "no zstd program"

cd "$WORK" || exit 1
# a real ELF file with a build-id to put in the good members
elf=$(readlink -f /bin/true)
id=$(pa buildid-list -i "$elf") || fail "no build-id for $elf"
[ -n "$id" ] || skip "$elf has no build-id"
rel=${elf#/}

# The members that point out of the cache point into OUT, a directory of this
# test's own (not a fixed /tmp path another run may have left or be using);
# ".." climbs from the cache ($WORK/empty, $WORK/cache) to $WORK.
OUT=$WORK/outside
mkdir -p "$OUT" || exit 1
python3 - "$elf" "$id" "$OUT" <<'EOF' || { echo "FAIL: could not make the tarballs"; exit 1; }
import io, subprocess, sys, tarfile
elf, hx, out = sys.argv[1], sys.argv[2], sys.argv[3]
rel = elf.lstrip('/')
good = open(elf, 'rb').read()
link = '.build-id/%s/%s' % (hx[:2], hx[2:])
other = 'ab' * 20

def tar(name, members, mode='w'):
    with tarfile.open(name, mode, format=tarfile.PAX_FORMAT) as t:
        for kind, path, arg in members:
            ti = tarfile.TarInfo(path)
            data = None
            if kind == 'f':
                data = arg
                ti.size = len(data)
            elif kind == 'l':
                ti.type, ti.linkname = tarfile.SYMTYPE, arg
            elif kind == 'h':
                ti.type, ti.linkname = tarfile.LNKTYPE, arg
            elif kind == 'c':
                ti.type = tarfile.CHRTYPE
            elif kind == 'p':
                ti.type = tarfile.FIFOTYPE
            t.addfile(ti, io.BytesIO(data) if data is not None else None)

ok = [('f', rel + '/' + hx + '/elf', good), ('l', link, '../../%s/%s' % (rel, hx))]
# each: a good member first (it must not survive the bad one)
tar('absolute.tar', ok + [('f', out + '/pa-evil', b'x')])
tar('dotdot.tar', ok + [('f', 'usr/../../pa-evil', b'x')])
tar('dotdot-link.tar', ok + [('l', '.build-id/%s/%s' % (other[:2], other[2:]), '../../../../etc/' + other)])
tar('symlink-abs.tar', ok + [('l', '.build-id/%s/%s' % (other[:2], other[2:]), '/etc')])
tar('symlink-elsewhere.tar', ok + [('l', 'usr/lib/evil', '/etc/passwd')])
tar('symlink-then-file.tar', [('l', 'usr', out), ('f', 'usr/pa-evil/' + hx + '/elf', good)])
tar('hardlink-out.tar', ok + [('h', 'usr/lib/x.so/' + other + '/elf', '/etc/passwd')])
tar('hardlink-dotdot.tar', ok + [('h', 'usr/lib/x.so/' + other + '/elf', '../../etc/passwd')])
tar('device.tar', ok + [('c', 'usr/lib/x.so/' + other + '/elf', None)])
tar('fifo.tar', ok + [('p', 'usr/lib/x.so/' + other + '/elf', None)])
tar('wrong-content.tar', ok + [('f', 'usr/lib/x.so/' + other + '/elf', good)])
tar('twice.tar', ok + [('f', rel + '/' + hx + '/elf', good)])
tar('gz-good.tar.gz', ok, 'w:gz')

# The bomb: a tar header, then 10 GiB of zeros in 2 GiB members, as
# concatenated zstd frames of 1 MiB of zeros each (~0.5 MB in all).
def z(b):
    return subprocess.run(['zstd', '-q', '-c', '-19'], input=b, stdout=subprocess.PIPE, check=True).stdout
mib = 1 << 20
zero = z(bytes(mib))
def bomb(name, members, member_size):
    with open(name, 'wb') as f:
        for i in range(members):
            ti = tarfile.TarInfo('usr/lib/big%d.so/%s/elf' % (i, other))
            ti.size = member_size
            f.write(z(ti.tobuf(format=tarfile.PAX_FORMAT)))
            for _ in range(member_size // mib):
                f.write(zero)
        f.write(z(bytes(1024)))
bomb('bomb.tar.zst', 5, 2 << 30)          # 10 GiB: the ratio limit stops it
bomb('bomb-one.tar.zst', 1, 10 << 30)     # one 10 GiB member: the size limit
EOF

# a truncated tarball: a good one cut in the middle (compressed and not)
tar cf good.tar -C / "$rel" 2>/dev/null
python3 - <<'EOF'
import os
for src, dst in (('good.tar', 'truncated.tar'), ('gz-good.tar.gz', 'truncated.tar.gz')):
    data = open(src, 'rb').read()
    open(dst, 'wb').write(data[:len(data) // 2])
EOF
printf 'not a tarball\n' >junk.tar

# the cache before: one good entry
pa archive --unpack gz-good.tar.gz --buildid-dir "$WORK/cache" >/dev/null 2>setup.err ||
	fail "a good tarball is refused: $(cat setup.err)"
snapshot() { (cd "$1" && find . -printf '%p %y %s %l\n' | sort | md5sum); }
before=$(snapshot "$WORK/cache")
# Each refusal must come soon (the bombs are stopped early, never expanded):
# 30 s natively, far less than it takes; an emulator runs pa ten times slower
# or worse, and a loaded machine slower still, so there it gets 300 s.
max_s=30
[ -z "$PA_EMU" ] || max_s=300

for t in absolute.tar dotdot.tar dotdot-link.tar symlink-abs.tar symlink-elsewhere.tar \
	symlink-then-file.tar hardlink-out.tar hardlink-dotdot.tar device.tar fifo.tar \
	wrong-content.tar twice.tar bomb.tar.zst bomb-one.tar.zst truncated.tar \
	truncated.tar.gz junk.tar; do
	for c in empty cache; do
		[ $c = empty ] && rm -rf "$WORK/empty" && mkdir "$WORK/empty"
		start=$SECONDS
		pa archive --unpack "$t" --buildid-dir "$WORK/$c" >out 2>err
		st=$?
		CHECKS=$((CHECKS + 1))
		if [ $st -ne 2 ]; then
			fail "$t ($c cache): exit $st, not 2: $(head -n 3 err)"
		elif [ "$(wc -l <err)" != 1 ] || ! grep -q "^pa: '$t': " err; then
			fail "$t: not one line naming the tarball: $(head -n 3 err)"
		fi
		CHECKS=$((CHECKS + 1))
		if [ $c = empty ]; then
			[ -z "$(ls -A "$WORK/empty")" ] || fail "$t left: $(cd "$WORK/empty" && find . | head)"
		else
			[ "$(snapshot "$WORK/cache")" = "$before" ] || fail "$t changed the cache"
		fi
		CHECKS=$((CHECKS + 1))
		[ $((SECONDS - start)) -lt $max_s ] || fail "$t took $((SECONDS - start)) s (limit $max_s s)"
		[ $c = empty ] && note "$t: $(cat err)"
	done
done
CHECKS=$((CHECKS + 1))
[ -z "$(ls -A "$OUT")" ] || fail "written out of the cache: $(cd "$OUT" && find . | head)"
CHECKS=$((CHECKS + 1))
[ -e "$WORK/pa-evil" ] && fail "$WORK/pa-evil was written (a \"..\" member)"

# limits are options: a member over --max-file-size, data over --max-total-size
pa archive --unpack gz-good.tar.gz --max-file-size 1K --buildid-dir "$WORK/lim" >/dev/null 2>lim.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 2 ] && grep -q "limit" lim.err && [ ! -e "$WORK/lim" ] ||
	fail "--max-file-size 1K: exit $st: $(cat lim.err)"
pa archive --unpack bomb.tar.zst --max-ratio 0 --max-total-size 8M --buildid-dir "$WORK/lim" >/dev/null 2>lim.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 2 ] && grep -q "limit of 8388608" lim.err && [ ! -e "$WORK/lim" ] ||
	fail "--max-total-size 8M: exit $st: $(cat lim.err)"
finish
