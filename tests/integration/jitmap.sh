#!/usr/bin/env bash
# JIT symbols (/tmp/perf-PID.map) on the recording host and elsewhere.
#
# A small x86_64 "JIT" copies a spin loop into anonymous executable memory,
# writes /tmp/perf-PID.map for it (perf's JIT interface) and runs it under
# perf record. Checked:
#   - on the recording host pa report names the JIT code from that file,
#     with perf report's rows;
#   - pa archive packs the map (filed under the SHA-1 of its content, kind
#     "perf-map"); with the /tmp file gone, pa report names the JIT code
#     from the unpacked copy, with the rows perf printed before;
#   - a recording from another host (same file, read under another host
#     name: unshare -u) never takes the local /tmp file, only the cached copy;
#   - pa folded -a equals perf script | stackcollapse --all (_[j] marks),
#     and the flame graph gives the JIT frame the JIT kind;
#   - two different copies cached under one name: no guess, a -v reason;
#   - no copy at all: addresses, and -v says why.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/archive-common.sh"
need_perf

[ "$(uname -m)" = x86_64 ] || skip "the test's JIT writes x86_64 code"
command -v cc >/dev/null 2>&1 || skip "no C compiler"
cd "$WORK" || exit 1

cat >jit.c <<'EOF'
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
/* mov ecx, 0x100000; 1: dec ecx; jnz 1b; ret */
static const unsigned char code[] = {0xb9, 0x00, 0x00, 0x10, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3};
static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}
int main(void)
{
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem + 64, code, sizeof(code));
	char name[64];
	snprintf(name, sizeof(name), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(name, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_spin_loop\n", (unsigned long)(mem + 64), sizeof(code));
	fclose(f);
	void (*fn)(void) = (void (*)(void))(mem + 64);
	double end = now_ms() + 300;
	while (now_ms() < end)
		fn();
	printf("%d\n", (int)getpid());
	return 0;
}
EOF
cc -O1 -o jit jit.c || skip "cannot build jit.c"
# perf keeps what it caches (the [vdso]) in a cache of the test's own
PERF=(perf --buildid-dir "$WORK/perf-cache")
"${PERF[@]}" record -q -g -F 1999 -o jit.data -- ./jit >jit.pid 2>record.err ||
	skip "perf record does not work here: $(head -n 2 record.err | tr '\n' ' ')"
pid=$(cat jit.pid)
map=/tmp/perf-$pid.map
[ -s "$map" ] || { fail "the JIT wrote no $map"; finish; }
# (the JIT is gone: its map is removed at the end, whatever happens)
trap 'rm -f "$map" "$map.other" "$map.saved" "$map.away"' EXIT

REP=(--stdio -q --no-children -g none --sort comm,dso,sym)
"${PERF[@]}" report -i jit.data "${REP[@]}" >perf.rows 2>/dev/null
CHECKS=$((CHECKS + 1))
grep -q "\[JIT\] tid $pid .*jit_spin_loop" perf.rows || {
	fail "perf report names no JIT symbol: $(head -n 3 perf.rows)"
	finish
}

# perf script's stacks while the map is there, for the folded comparison
"${PERF[@]}" script -i jit.data -F comm,pid,tid,time,event,ip,sym,dso >script.txt 2>/dev/null
"${PERF[@]}" script -i jit.data 2>/dev/null | norm_vdso >script.full

mkdir -p empty cacheA cacheB
# On the recording host: the /tmp file, as perf.
if [ -z "$PA_EMU" ]; then
	pa report -i jit.data "${REP[@]}" --buildid-dir "$WORK/perf-cache" >got 2>got.err
	same "recording host: rows from $map" perf.rows got
else
	note "under $PA_EMU the recording is another host's: the /tmp file is not used"
fi

# pa archive packs the map. (Under an emulator the recording is another
# host's, so pa archive there takes the map and the [vdso] from the cache
# only: seed them as the recording host has them, perf's copy of the vdso
# and the map as pa archive leaves it, in perf's layout.)
sha=$(sha1sum "$map" | cut -d' ' -f1)
seed_vdso_under_emu "$WORK/perf-cache" "$WORK/cacheA"
if [ -n "$PA_EMU" ]; then
	mkdir -p "cacheA/tmp/perf-$pid.map/$sha" "cacheA/.build-id/${sha:0:2}"
	cp "$map" "cacheA/tmp/perf-$pid.map/$sha/perf-map"
	ln -s "../../tmp/perf-$pid.map/$sha" "cacheA/.build-id/${sha:0:2}/${sha:2}"
fi
pa archive -i jit.data -o jit.tar.zst --buildid-dir "$WORK/cacheA" >archive.out 2>archive.err ||
	fail "pa archive failed: $(head -n 3 archive.err)"
zstd -dc jit.tar.zst | tar -tf - >members
CHECKS=$((CHECKS + 1))
grep -qx "tmp/perf-$pid.map/$sha/perf-map" members ||
	fail "the map is not packed as tmp/perf-$pid.map/$sha/perf-map: $(tr '\n' ' ' <members)"
zstd -dc jit.tar.zst | tar -xOf - .pa-manifest >manifest
CHECKS=$((CHECKS + 1))
grep -q "^$sha	perf-map	" manifest || fail "the manifest lists no perf-map entry: $(cat manifest)"

# Elsewhere: the /tmp file is gone, the archive is unpacked.
pa archive --unpack jit.tar.zst --buildid-dir "$WORK/cacheB" >unpack.out 2>unpack.err ||
	fail "pa archive --unpack failed: $(head -n 3 unpack.err)"
mv "$map" "$map.away"
pa report -i jit.data "${REP[@]}" --buildid-dir "$WORK/cacheB" >got 2>got.err
same "after unpack, no /tmp file: rows from the cached copy" perf.rows got
pa script -i jit.data --buildid-dir "$WORK/cacheB" 2>/dev/null | norm_vdso >got.script
# (under an emulator the recording is another host's: a [vdso] that perf
# gave no build-id (a frame of a call chain only, no sample's own ip) is in
# no archive, and the running one is not the recording's: its frames'
# names are left out of the comparison there)
emu_vdso() {
	if [ -n "$PA_EMU" ]; then
		sed -E -e 's#^([[:space:]]+[0-9a-f]+ ).*\(\[vdso\]\)$#\1(a [vdso] frame) ([vdso])#' \
			-e 's#;(__vdso_[A-Za-z0-9_]*|\[\[vdso\]\])_\[k\]#;(vdso)#g'
	else
		cat
	fi
}
emu_vdso <script.full >script.full.n
emu_vdso <got.script >got.script.n
same "after unpack: pa script vs perf script on the recording host" script.full.n got.script.n
# folded stacks and the flame graph see a JIT frame (_[j], the JIT kind)
if command -v python3 >/dev/null 2>&1; then
	python3 "$HERE/stackcollapse.py" --all script.txt >exp.folded 2>/dev/null
	pa folded -i jit.data --count -a --buildid-dir "$WORK/cacheB" 2>folded.err |
		emu_vdso >got.folded
	emu_vdso <exp.folded >exp.folded.n
	same "pa folded -a vs perf script | stackcollapse --all" exp.folded.n got.folded
	CHECKS=$((CHECKS + 1))
	grep -q ';jit_spin_loop_\[j\] [0-9]*$' got.folded || fail "no jit_spin_loop_[j] leaf: $(head -n 3 got.folded)"
else
	fail "no python3: pa folded not compared"
fi
pa flamegraph -i jit.data -o jit.svg --buildid-dir "$WORK/cacheB" >fg.out 2>&1
CHECKS=$((CHECKS + 1))
grep -Eq '<title>jit_spin_loop \([^)]*, JIT\)' jit.svg ||
	fail "flame graph: jit_spin_loop is not a JIT frame: $(grep -o '<title>jit_spin[^<]*' jit.svg | head -n 1)"
# ... coloured by kind: JIT frames green, kernel frames orange
fills() { grep -o "<title>[^<]*, $1)</title><rect [^>]*fill=\"rgb([0-9,]*)\"" jit.svg | sed 's/.*rgb(\([0-9,]*\)).*/\1/'; }
CHECKS=$((CHECKS + 1))
bad=$(fills JIT | awk -F, '!($2 >= 200 && $1 == $3 && $1 < 111)')
[ -n "$(fills JIT)" ] && [ -z "$bad" ] || fail "JIT frames not green: $(fills JIT | head -n 3)"
if [ -n "$(fills kernel)" ]; then
	CHECKS=$((CHECKS + 1))
	bad=$(fills kernel | awk -F, '!($1 >= 190 && $2 >= 90 && $3 == 0)')
	[ -z "$bad" ] || fail "kernel frames not orange: $(fills kernel | head -n 3)"
else
	note "no kernel frame sampled: the kernel colour not checked this time"
fi
pa report -v -i jit.data "${REP[@]}" --buildid-dir "$WORK/empty" >got 2>got.err
CHECKS=$((CHECKS + 1))
grep -q jit_spin_loop got && fail "JIT symbols without the map or a cached copy"
CHECKS=$((CHECKS + 1))
grep -q "^pa: no symbols for '$map': JIT map" got.err || fail "-v gives no reason for the JIT map: $(cat got.err)"
mv "$map.away" "$map"

# Another host: a /tmp file of that name is some other process's.
if command -v unshare >/dev/null 2>&1 && unshare -u true 2>/dev/null; then
	echo "0 10 not_this_recording" >"$map.other"
	cp "$map" "$map.saved"
	cp "$map.other" "$map"
	# shellcheck disable=SC2016
	unshare -u bash -c 'hostname pa-elsewhere && "$@"' _ $PA_EMU "$PA_BIN" report -v -i jit.data \
		"${REP[@]}" --buildid-dir "$WORK/empty" >got 2>got.err
	CHECKS=$((CHECKS + 1))
	grep -q "not_this_recording" got && fail "another host's recording took the local $map"
	CHECKS=$((CHECKS + 1))
	grep -q "JIT map not in the cache (recorded on another host" got.err ||
		fail "-v on another host: $(cat got.err)"
	unshare -u bash -c 'hostname pa-elsewhere && "$@"' _ $PA_EMU "$PA_BIN" report -i jit.data \
		"${REP[@]}" --buildid-dir "$WORK/cacheB" >got 2>got.err
	same "another host: rows from the cached copy, not the local file" perf.rows got
	mv "$map.saved" "$map"
else
	fail "unshare -u does not work here (util-linux, root): the other-host case is untested"
fi

# Two different copies under one name: pa cannot tell which is this
# recording's, so it uses neither.
other_sha=$(sha1sum "$map.other" | cut -d' ' -f1)
mkdir -p "cacheB/tmp/perf-$pid.map/$other_sha"
cp "$map.other" "cacheB/tmp/perf-$pid.map/$other_sha/perf-map"
mv "$map" "$map.away"
pa report -v -i jit.data "${REP[@]}" --buildid-dir "$WORK/cacheB" >got 2>got.err
mv "$map.away" "$map"
CHECKS=$((CHECKS + 1))
grep -q "jit_spin_loop\|not_this_recording" got && fail "pa guessed between two cached JIT maps"
CHECKS=$((CHECKS + 1))
grep -q "JIT map: several copies in the cache" got.err || fail "-v with two cached maps: $(cat got.err)"
finish
