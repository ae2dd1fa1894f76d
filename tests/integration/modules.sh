#!/usr/bin/env bash
# Kernel module symbols: pa report/folded vs perf 6.1 on SYNTHETIC
# recordings (there is no kernel module on a test machine to record), with
# a fake module built now: fakemod.s -> ld -r --build-id -> fakemod.ko.
#
# The recordings (gen.py, pipe or file mode) hold a kernel MMAP
# ("[kernel.kallsyms]_text"), the module's MMAP at a kernel address, the
# build-ids of both (HEADER_BUILD_ID records / the BUILD_ID feature) and
# kernel-mode samples in both, in three orders: the kernel's first sample
# before the module's (kfirst), after all the module's (mfirst), or between
# two runs of module samples (mkm; the later run only at new addresses, see
# below). The kernel's symbols come from a fake kallsyms (--kallsyms, or the
# build-id cache), which also lists module symbols under other names
# (kfm_*), interleaved with a module that has no map (othermod).
#
# What perf 6.1 does, and pa must too:
#   - the .ko is looked up by the module's build-id: the cache's
#     .build-id/xx/rest/elf (then .../debug), then <symfs>/<recorded path>;
#     a file with another build-id, none, or no .symtab is skipped; a
#     module recorded as "[name]" (not by its path) is looked up as
#     .build-id/xx/rest/kallsyms (!) and <symfs>/[name] instead;
#   - a .ko's .text symbols, keyed by file offset, the module mapped at
#     .text's offset: unresolved addresses print as offsets in the .ko;
#   - names like x.ko.xz / x.ko.gz: candidates compressed that way are
#     inflated first;
#   - no usable .ko: the module keeps kallsyms' symbols - only if the
#     kernel's first sample came before the module's; after, perf's split
#     of kallsyms drops the first symbol of each run of the module's and
#     inserts the rest for later samples - beside a .ko's symbols, too.
# pa resolves each location once, by its first occurrence: a later sample
# at an address seen before the kernel's first one would differ, so the
# recordings avoid that.
#
# Not compared: --sort srcline with a .ko (perf 6.1 waits forever on
# addr2line for an ET_REL file); --sort sym,srcline (the column width perf
# gets from the srclines its output sort computes for unresolved entries
# is print.c's business, not this test's).
# Option strings ($rows, $o) are word-split on purpose:
# shellcheck disable=SC2086
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
need_python
# perf and pa default to the build-id cache in $HOME/.debug (perf record
# writes to it; perf also reads ~/.perfconfig), which the tests running beside
# this one share: a private HOME. No debuginfod server either.
export HOME=$WORK/home
mkdir -p "$HOME" || exit 1
unset DEBUGINFOD_URLS

cd "$WORK" || exit 1
for t in as ld objcopy xz gzip; do
	command -v $t >/dev/null 2>&1 || skip "no $t to build a fake module"
done

K=2222222222222222222222222222222222222222   # the recorded kernel's build-id
M=1111111111111111111111111111111111111111   # the module's
B=3333333333333333333333333333333333333333   # another module's
MODPATH=/lib/modules/6.1.0-fake/kernel/drivers/misc/fakemod.ko

cat >fakemod.s <<'EOF'
	.text
	.globl fm_alpha
	.type fm_alpha,@function
fm_alpha:
	.fill 0x40,1,0x90
	.size fm_alpha,0x40
	.type fm_beta,@function
fm_beta:
	.globl fm_beta_alias
	.type fm_beta_alias,@function
fm_beta_alias:
	.fill 0x30,1,0x90
	.size fm_beta,0x30
	.size fm_beta_alias,0x30
	.globl fm_gamma
	.type fm_gamma,@function
fm_gamma:
	.fill 0x50,1,0x90
fm_label:
	.fill 0x20,1,0x90
	.globl fm_delta
	.type fm_delta,@function
	.weak fm_weak
	.type fm_weak,@function
fm_delta:
fm_weak:
	.fill 0x100,1,0x90
	.size fm_delta,0x80
	.size fm_weak,0x80
	.section .text.unlikely,"ax",@progbits
	.type fm_cold,@function
fm_cold:
	.fill 0x30,1,0x90
	.size fm_cold,0x30
	.section .init.text,"ax",@progbits
	.globl init_module
	.type init_module,@function
init_module:
	.fill 0x20,1,0x90
	.size init_module,0x20
	.data
	.type fm_data,@object
fm_data:
	.long 1
	.size fm_data,4
EOF
as -o fakemod.o fakemod.s || skip "cannot assemble the fake module"
ld -r --build-id=0x$M -o good.ko fakemod.o || skip "ld -r --build-id does not work here"
ld -r --build-id=0x$B -o bad.ko fakemod.o || skip "cannot link the fake module"
ld -r --build-id=none -o noid.ko fakemod.o || skip "cannot link the fake module"
objcopy --strip-all good.ko strip.ko || skip "objcopy cannot strip the fake module"
if ! xz -c good.ko >good.ko.xz || ! gzip -c good.ko >good.ko.gz; then
	skip "cannot compress the fake module"
fi
CHECKS=$((CHECKS + 1))
if command -v readelf >/dev/null 2>&1; then
	readelf -n good.ko | grep -q "Build ID: $M" || fail "good.ko lacks build-id $M"
	readelf -S strip.ko | grep -q '\.symtab' && fail "strip.ko still has a .symtab"
fi

# _text at the MMAP's pgoff (else perf refuses the file); othermod has no map
cat >kallsyms <<'EOF'
ffffffff81000000 T _text
ffffffff81000100 T k_one
ffffffff81000200 t k_two
ffffffff81001000 T _etext
ffffffffc0a00000 t kfm_a	[fakemod]
ffffffffc0a00030 t kfm_b	[fakemod]
ffffffffc0a00100 t kfm_c	[fakemod]
ffffffffc0a00400 t om_x	[othermod]
ffffffffc0a00500 t kfm_d	[fakemod]
ffffffffc0a00580 T kfm_e	[fakemod]
EOF

# gen.py OUT pipe|file ORDER MODNAME KID MID CHAINS ('-': no build-id)
cat >gen.py <<'EOF'
import struct, sys
out, mode, order, modname, kid, mid, chains = sys.argv[1:8]
chains = chains == "1"
KTEXT, KLEN = 0xffffffff81000000, 0x1000000
MOD, MLEN = 0xffffffffc0a00000, 0x4000
CTX_KERNEL = 0xffffffffffffff80
recs, bids = bytearray(), bytearray()
def rec(buf, t, misc, body):
    body = bytes(body)
    body += bytes(-len(body) % 8)
    buf.extend(struct.pack("<IHH", t, misc, 8 + len(body)) + body)
sample_type = 0x107 | (0x20 if chains else 0)  # IP TID TIME PERIOD [CALLCHAIN]
attr = struct.pack("<IIQQQQQ", 1, 128, 0, 4000, sample_type, 0, 0) + bytes(128 - 48)
def bid(name, hexid):
    # perf pads the name to 64 bytes in the feature section
    n = name.encode() + b"\0"
    n += bytes(-len(n) % 64)
    rec(bids, 67 if mode == "pipe" else 0, 1,
        struct.pack("<i", -1) + bytes.fromhex(hexid) + bytes(4) + n)
if kid != "-":
    bid("[kernel.kallsyms]", kid)
if mid != "-":
    bid(modname, mid)
rec(recs, 3, 0, struct.pack("<II", 42, 42) + b"fakeproc\0")
def mmap(start, ln, pgoff, name):
    rec(recs, 1, 1, struct.pack("<iiQQQ", -1, 0, start, ln, pgoff) + name.encode() + b"\0")
mmap(KTEXT, KLEN, KTEXT, "[kernel.kallsyms]_text")
mmap(MOD, MLEN, 0, modname)
t = [1000]
def sample(ip, n, chain):
    for _ in range(n):
        t[0] += 1
        body = struct.pack("<QIIQQ", ip, 42, 42, t[0], 1000)
        if chains:
            c = [CTX_KERNEL, ip] + chain
            body += struct.pack("<Q", len(c)) + struct.pack("<%dQ" % len(c), *c)
        rec(recs, 9, 1, body)
ks = [(KTEXT + 0x110, 3, [KTEXT + 0x250]), (KTEXT + 0x250, 2, [KTEXT + 0x120])]
ms = [(MOD + o, n, [MOD + 0x18, KTEXT + 0x130]) for o, n in
      [(0x10, 5), (0x50, 4), (0x80, 3), (0xd0, 2), (0xe8, 2), (0x150, 1), (0x1f0, 1),
       (0x450, 1), (0x520, 2), (0x600, 1), (0x3000, 1)]]
# after the kernel's first sample: only addresses not sampled before
late = [(MOD + o, n, [MOD + 0x28, KTEXT + 0x140]) for o, n in
        [(0x20, 1), (0x40, 2), (0x98, 1), (0x1a0, 1), (0x200, 2), (0x480, 1), (0x540, 1)]]
for ip, n, chain in {"kfirst": ks + ms, "mfirst": ms + ks, "mkm": ms + ks + late}[order]:
    sample(ip, n, chain)
if mode == "pipe":
    b = bytearray(b"PERFILE2" + struct.pack("<Q", 16))
    rec(b, 64, 0, attr + struct.pack("<Q", 1))  # HEADER_ATTR
    b += bids + recs
else:
    # header, attr + its ids section, the ids, data, feature table, BUILD_ID
    attrs_off = 104
    ids_off = attrs_off + 128 + 16
    data_off = ids_off + 8
    feat_off = data_off + len(recs)
    sec_off = feat_off + 16
    b = bytearray(b"PERFILE2" + struct.pack("<QQ", 104, 128 + 16))
    b += struct.pack("<QQQQQQ", attrs_off, 128 + 16, data_off, len(recs), 0, 0)
    b += struct.pack("<Q", 1 << 2) + bytes(24)  # features: BUILD_ID
    b += attr + struct.pack("<QQ", ids_off, 8) + struct.pack("<Q", 1) + recs
    b += struct.pack("<QQ", sec_off, len(bids)) + bids
open(out, "wb").write(b)
EOF

# cache DIR FILE DSO-NAME ID [BASENAME]: FILE as perf's cache entry
cache() {
	local d=$1 f=$2 name=${3#/} id=$4 base=${5:-elf}
	mkdir -p "$d/$name/$id" "$d/.build-id/${id:0:2}" &&
		cp "$f" "$d/$name/$id/$base" &&
		ln -sfn "../../$name/$id" "$d/.build-id/${id:0:2}/${id:2}"
}
mkdir -p empty
# the .ko through perf's own buildid-cache --add (files it by its path here)
perf --buildid-dir "$WORK/c-good" buildid-cache --add good.ko >/dev/null 2>&1 ||
	cache c-good good.ko "$MODPATH" $M
cache c-bad bad.ko "$MODPATH" $M        # a file with another id under this id
cache c-noid noid.ko "$MODPATH" $M
cache c-strip strip.ko "$MODPATH" $M
cache c-debug good.ko "$MODPATH" $M debug
cache c-xz good.ko.xz "$MODPATH.xz" $M
cache c-xzplain good.ko "$MODPATH.xz" $M
cache c-xzgz good.ko.gz "$MODPATH.xz" $M
cache c-gz good.ko.gz "$MODPATH.gz" $M
cache c-brk good.ko "[fakemod]" $M kallsyms   # "[fakemod]": perf reads this one
cache c-brkelf good.ko "[fakemod]" $M         # ... and not this one
cache c-kall kallsyms "[kernel.kallsyms]" $K kallsyms
cache c-kallko kallsyms "[kernel.kallsyms]" $K kallsyms
cache c-kallko good.ko "$MODPATH" $M
mkdir -p c-old/.build-id/${M:0:2} && cp good.ko "c-old/.build-id/${M:0:2}/${M:2}" # old layout
mkdir -p symfs-good/${MODPATH%/*} symfs-bad/${MODPATH%/*} symfs-noid/${MODPATH%/*} symfs-brk
cp good.ko "symfs-good/$MODPATH"
cp bad.ko "symfs-bad/$MODPATH"
cp noid.ko "symfs-noid/$MODPATH"
cp good.ko "symfs-brk/[fakemod]"

gen() { python3 gen.py "$@" || fail "gen.py $*"; }
for mode in pipe file; do
	for order in kfirst mfirst mkm; do
		gen "$order-$mode.data" $mode $order $MODPATH $K $M 0
	done
done
gen kfirst-cg.data file kfirst $MODPATH $K $M 1
gen mfirst-cg.data file mfirst $MODPATH $K $M 1
for order in kfirst mfirst; do
	gen "$order-xz.data" file $order $MODPATH.xz $K $M 0
	gen "$order-brk.data" file $order "[fakemod]" $K $M 0
done
gen kfirst-gz.data file kfirst $MODPATH.gz $K $M 0
gen kfirst-noid.data file kfirst $MODPATH $K - 0   # no build-id for the module
# a DKMS module with a '-' in its file name: perf's DSO "[fake_mod]"
gen kfirst-dkms.data file kfirst /lib/modules/6.1.0-fake/updates/dkms/fake-mod.ko $K $M 0

# perf 6.1 with --sort srcline asks addr2line about the module's recorded
# path, which does not exist here: addr2line exits at once and perf, when it
# writes to it first, dies of SIGPIPE. With SIGPIPE ignored it gets EPIPE and
# falls back, every time.
perf_nopipe() { (trap '' PIPE && perf "$@"); }
# compare WHAT FILE CACHE "OPTIONS": perf report vs pa report, byte for byte
compare() {
	local what=$1 f=$2 c=$3 o=$4
	perf_nopipe --buildid-dir "$WORK/$c" report -i "$f" --stdio $o 2>/dev/null | grep -v '^# (Tip' >exp
	if ! pa report -i "$f" --stdio --buildid-dir "$WORK/$c" $o >got 2>got.err; then
		CHECKS=$((CHECKS + 1))
		fail "$what: pa report $o failed: $(head -n 2 got.err)"
		return 1
	fi
	[ -s exp ] || note "$what: perf printed nothing"
	same "$what: $f $c report $o" exp got
}
rows="-q --no-children -g none"
ks="--kallsyms kallsyms"
keys=("--sort dso,sym" "--sort sym" "--sort comm,dso,sym" "-F overhead,sample,period,dso,sym")

# the .ko from the cache, whatever the order; the late kallsyms symbols
# beside it (mkm)
for f in {kfirst,mfirst,mkm}-{pipe,file}.data; do
	for o in "${keys[@]}"; do
		compare ".ko" "$f" c-good "$rows $ks $o"
	done
done
compare ".ko, full layout" kfirst-file.data c-good "--no-children -g none $ks"
# no .ko: kallsyms' share, or none when the kernel came later
for f in {kfirst,mfirst,mkm}-{pipe,file}.data; do
	for o in "${keys[@]}" "--sort dso,srcline" "--sort comm,dso,srcline"; do
		compare "no .ko" "$f" empty "$rows $ks $o"
	done
done
# unusable .ko files: as if there were none
for c in c-bad c-noid c-strip; do
	for f in kfirst-file.data mfirst-file.data mkm-pipe.data; do
		compare "$c" "$f" $c "$rows $ks --sort dso,sym"
	done
done
# a module named as perf names it: "[fake_mod]" in rows, for --dsos, and
# its build-id listed
for o in "--sort dso,sym" "--sort dso" "--sort dso,sym --dsos [fake_mod]" "--sort sym --dsos [fake_mod]"; do
	compare "dkms module" kfirst-dkms.data c-good "$rows $ks $o"
done
pa report -i kfirst-dkms.data --stdio --buildid-dir "$WORK/c-good" $rows $ks --sort dso >got 2>&1
grep -q '\[fake_mod\]' got || fail "dkms module: no row names [fake_mod]: $(head -n 3 got)"
perf buildid-list -i kfirst-dkms.data 2>/dev/null >exp
pa buildid-list -i kfirst-dkms.data >got 2>got.err || fail "pa buildid-list: $(head -n 2 got.err)"
same "dkms module: buildid-list" exp got
# the cache's debug file, its old layout; kallsyms from the cache; no
# kernel symbols at all
compare "debug" kfirst-file.data c-debug "$rows $ks --sort dso,sym"
compare "old cache layout" kfirst-file.data c-old "$rows $ks --sort dso,sym"
compare "old cache layout" mfirst-brk.data c-old "$rows $ks --sort dso,sym"
for f in kfirst-file.data mkm-file.data; do
	compare "cached kallsyms" "$f" c-kall "$rows --sort dso,sym"
	compare "cached kallsyms, .ko" "$f" c-kallko "$rows --sort dso,sym"
	compare "no kallsyms, .ko" "$f" c-good "$rows --sort dso,sym"
	compare "no kallsyms, no .ko" "$f" empty "$rows --sort dso,sym"
done
# --vmlinux: no kallsyms, so the .ko or nothing
cat >vmlinux.s <<'EOF'
	.text
	.globl _text
_text:
	.fill 0x100,1,0x90
	.globl vm_one
	.type vm_one,@function
vm_one:
	.fill 0x100,1,0x90
	.size vm_one,0x100
	.type vm_two,@function
vm_two:
	.fill 0x100,1,0x90
	.size vm_two,0x100
EOF
if as -o vmlinux.o vmlinux.s &&
	ld -static -nostdlib -e _text -Ttext=0xffffffff81000000 --build-id=0x$K -o vmlinux vmlinux.o; then
	for f in kfirst-file.data mkm-file.data; do
		compare "--vmlinux, .ko" "$f" c-good "$rows --sort dso,sym --vmlinux vmlinux"
		compare "--vmlinux, no .ko" "$f" empty "$rows --sort dso,sym --vmlinux vmlinux"
	done
else
	fail "cannot build a fake vmlinux"
fi
# symfs: the recorded path under it (a good, a bad, a note-less file)
for s in good bad noid; do
	for f in kfirst-file.data mfirst-pipe.data; do
		compare "symfs-$s" "$f" empty "$rows $ks --sort dso,sym --symfs symfs-$s"
	done
done
# no build-id for the module: the symfs file, unchecked, even another id's
compare "no module id" kfirst-noid.data c-good "$rows $ks --sort dso,sym"
for s in good bad; do
	compare "no module id, symfs-$s" kfirst-noid.data empty "$rows $ks --sort dso,sym --symfs symfs-$s"
done
# compressed modules
for f in kfirst-xz.data mfirst-xz.data; do
	for c in c-xz c-xzplain c-xzgz; do
		compare "$c" "$f" $c "$rows $ks --sort dso,sym"
	done
done
compare "gz" kfirst-gz.data c-gz "$rows $ks --sort dso,sym"
# a module recorded as "[fakemod]"
for f in kfirst-brk.data mfirst-brk.data; do
	for c in c-brk c-brkelf; do
		compare "$c" "$f" $c "$rows $ks --sort dso,sym"
	done
	compare "symfs-brk" "$f" empty "$rows $ks --sort dso,sym --symfs symfs-brk"
done
# call graphs: the chains' kernel entries load the kernel right after the
# module's first sample (mfirst)
for f in kfirst-cg.data mfirst-cg.data; do
	for c in c-good empty; do
		for o in "--no-children --sort dso,sym" "--children --sort sym" \
			"--no-children -g caller --sort dso,sym" "$rows --sort dso,sym"; do
			compare "call graph" "$f" $c "$ks $o"
		done
	done
done

# the .ko's names are there (a check that cannot pass by accident)
CHECKS=$((CHECKS + 1))
pa report -i kfirst-file.data --stdio $rows $ks --sort sym --buildid-dir "$WORK/c-good" >got 2>/dev/null
grep -q '\[k\] fm_alpha' got || fail "no .ko symbol in pa's report: $(head -n 3 got)"
CHECKS=$((CHECKS + 1))
pa report -i kfirst-file.data --stdio $rows $ks --sort sym --buildid-dir "$WORK/empty" >got 2>/dev/null
grep -q '\[k\] kfm_b' got || fail "no kallsyms module symbol in pa's report: $(head -n 3 got)"
# -v says why a .ko was not used (when the module ends up without symbols)
for c in c-bad c-noid c-strip; do
	pa report -i mfirst-file.data --stdio $rows --buildid-dir "$WORK/$c" -v >/dev/null 2>got.err
	CHECKS=$((CHECKS + 1))
	grep 'fakemod' got.err | grep -Eq 'build-id mismatch|no build-id note|no \.symtab' ||
		fail "$c: -v gives no reason: $(cat got.err)"
done

# pa folded: perf script | stackcollapse, same symbol files
for f in kfirst-cg.data mfirst-cg.data; do
	for c in c-good empty; do
		perf_nopipe --buildid-dir "$WORK/$c" script -i "$f" -F comm,pid,tid,time,period,event,ip,sym,dso \
			$ks 2>/dev/null >script.txt
		python3 "$HERE/stackcollapse.py" script.txt >exp 2>/dev/null
		if pa folded -i "$f" --buildid-dir "$WORK/$c" $ks >got 2>got.err; then
			same "folded $f $c" exp got
		else
			CHECKS=$((CHECKS + 1))
			fail "pa folded $f $c failed: $(head -n 2 got.err)"
		fi
	done
done
finish
