#!/usr/bin/env bash
# pa report/folded --vmlinux FILE (-k) vs perf 6.1 with the same file.
#
# There is no vmlinux here, so the test makes FAKE ones from a recording
# made now: an ELF (as + ld) whose .text spans the recorded kernel's
# [_text, _etext), linked 16 MiB below where the kernel runs (so only
# perf's relocation through "[kernel.kallsyms]_text" finds anything), with
# one function per kernel function the recording touched, at its kallsyms
# address minus that shift, RENAMED "vm_NAME" (output from kallsyms
# instead would show plain names), sized or zero-sized (perf extends those
# to the next symbol), global or local, one alias at a shared address; and
# a GNU build-id note carrying the recorded kernel's id, or not:
#   good    the recorded id: perf and pa show vm_* names
#   bad     another id: perf 6.1 shows NO kernel symbols (no kallsyms
#           fallback) and pa must too, and say why with -v
#   noid    no note: the same (perf cannot check it, so does not use it)
#   strip   no .symtab: the same
#   gaps    every 4th function left out, all others sized: addresses in
#           the holes stay unresolved, and perf prints them as offsets in
#           the vmlinux file (its kernel map is the file's .text by then)
# A pipe recording keeps no build-id: then both use even the "bad" file.
# Each function's bytes are nops (one-byte instructions, so every sampled
# address starts one) up to a ret and 3 nops of padding: pa annotate -k
# reads the kernel's code from the file as perf annotate does (padding
# left out), --objdump's text equal to perf's and capstone's numbers too.
#
# With --vmlinux the kernel's symbols come from the file, not from this
# machine, so the file-mode checks also hold under an emulator ($PA_EMU),
# where the recording counts as another machine's; the pipe ones (no
# build-ids: user space then depends on the host too) are skipped there.
# Option strings ($rows, $o) are word-split on purpose:
# shellcheck disable=SC2086
# (annotate.sh's helpers: it sources lib.sh, enters $WORK, private HOME)
# shellcheck disable=SC2034 # read by annotate.sh, sourced below
PA_ANNOTATE_HELPERS_ONLY=1
# shellcheck source=tests/integration/annotate.sh
. "$(dirname "$0")/annotate.sh"
need_perf
need_python

cd "$WORK" || exit 1
for t in as ld objcopy; do
	command -v $t >/dev/null 2>&1 || skip "no $t (binutils) to build a fake vmlinux"
done
[ -r /proc/kallsyms ] || skip "/proc/kallsyms is not readable"
awk '$3 == "_text" {t = $1} END {exit !(t != "" && t !~ /^0+$/)}' /proc/kallsyms ||
	skip "/proc/kallsyms hides addresses (kptr_restrict): run as root"
cp /proc/kallsyms kallsyms.txt

if ! perf record -q -F 999 -g -o k.data -- dd if=/dev/zero of=/dev/null bs=64k count=200000 \
	>/dev/null 2>rec.err; then
	skip "perf record does not work here: $(head -n 2 rec.err | tr '\n' ' ')"
fi
kid=$(perf buildid-list -i k.data 2>/dev/null | awk '$2 == "[kernel.kallsyms]" {print $1}')
[ -n "$kid" ] || skip "the recording has no kernel build-id"
# The reference perf relocates by: pgoff of the "[kernel.kallsyms]_text" MMAP.
ref=$(perf script -i k.data --show-mmap-events 2>/dev/null |
	sed -n 's/.*@ 0x\([0-9a-f]*\)\]: x \[kernel\.kallsyms\]_text$/\1/p' | head -n 1)
ktext=$(awk '$3 == "_text" {print $1; exit}' kallsyms.txt)
if [ -z "$ref" ] || [ "$((16#$ref))" -ne "$((16#$ktext))" ]; then
	skip "the kernel MMAP record ($ref) is not this boot's _text ($ktext)"
fi
# every kernel address sampled or in a call chain
perf script -i k.data -F ip 2>/dev/null | awk 'NF == 1 {print $1}' >ips.txt

# gen.py KALLSYMS IPS OUT.s OUT.lds SHIFT MODE (MODE: all | gaps; kcore:
# OUT.s is the ELF core to write, OUT.lds and SHIFT unused)
cat >gen.py <<'EOF'
import bisect, struct, sys
kallsyms, ips, out_s, out_lds, shift, mode = sys.argv[1:7]
shift = int(shift, 0)
funcs, text, etext = [], None, None
for line in open(kallsyms):
    p = line.split()
    if len(p) != 3:  # module symbols have a 4th field
        continue
    a = int(p[0], 16)
    if p[2] == '_text':
        text = a
    elif p[2] == '_etext':
        etext = a
    if p[1] in 'tTwW':
        funcs.append((a, p[2]))
funcs.sort()
starts = [a for a, _ in funcs]
want = {}
for line in open(ips):
    try:
        ip = int(line.strip(), 16)
    except ValueError:
        continue
    if not text <= ip < etext:
        continue
    i = bisect.bisect_right(starts, ip) - 1
    if i < 0:
        continue
    a, name = funcs[i]
    j = i + 1
    while j < len(funcs) and funcs[j][0] == a:
        j += 1
    want[a] = (name, (funcs[j][0] if j < len(funcs) else etext) - a)
def body(size):
    # nops, a ret, and 3 nops of padding that perf annotate leaves out
    return b'\x90' * size if size < 5 else b'\x90' * (size - 4) + b'\xc3' + b'\x90' * 3
if mode == 'kcore':
    # an ELF core (x86_64) whose one PT_LOAD spans [_text, _etext) at the
    # running addresses, the functions' bytes in it, the rest zeros (sparse)
    off = 0x1000
    ident = b'\x7fELF\x02\x01\x01' + b'\0' * 9
    with open(out_s, 'wb') as f:
        f.write(struct.pack('<16sHHIQQQIHHHHHH', ident, 4, 62, 1, 0, 64, 0, 0, 64, 56, 1, 64, 0, 0))
        f.write(struct.pack('<IIQQQQQQ', 1, 7, off, text, 0, etext - text, etext - text, 0x1000))
        for a in sorted(want):
            f.seek(off + a - text)
            f.write(body(want[a][1]))
        f.truncate(off + etext - text)
    print(len(want))
    sys.exit(0)
o = open(out_s, 'w')
o.write('\t.text\n\t.globl _text\n_text:\n')
seen = set()
for k, a in enumerate(sorted(want)):
    name, size = want[a]
    if mode == 'gaps' and k % 4 == 3:
        continue
    s = 'vm_' + name
    while s in seen:  # static functions may share a name
        s += '_'
    seen.add(s)
    o.write('\t.org 0x%x\n' % (a - text))
    if k == 0:  # a local alias: perf keeps the global one
        o.write('\t.type "vm_alias_%s",STT_FUNC\n"vm_alias_%s":\n'
                '\t.size "vm_alias_%s",%d\n' % (name, name, name, size))
    if k % 3 != 2:
        o.write('\t.globl "%s"\n' % s)
    o.write('\t.type "%s",STT_FUNC\n"%s":\n' % (s, s))
    if mode == 'gaps' or k % 2 == 0:
        o.write('\t.size "%s",%d\n' % (s, size))
    o.write('\t.byte %s\n' % ','.join(str(b) for b in body(size)))
o.write('\t.org 0x%x\n\t.globl _etext\n_etext:\n' % (etext - text))
open(out_lds, 'w').write(
    'ENTRY(_text)\nSECTIONS {\n  . = 0x%x;\n  .text : { *(.text) }\n'
    '  .notes : { *(.note.gnu.build-id) }\n}\n' % (text - shift))
print(len(want))
EOF

# mkfake NAME MODE BUILD-ID-OPTION: NAME-vmlinux, sparse (.text is ~20 MB of zeros)
mkfake() {
	python3 gen.py kallsyms.txt ips.txt "$1.s" "$1.lds" 0x1000000 "$2" >"$1.count" &&
		as -o "$1.o" "$1.s" &&
		ld -static -nostdlib -T "$1.lds" "$3" -o "$1.tmp" "$1.o" &&
		cp --sparse=always "$1.tmp" "$1-vmlinux" && rm -f "$1.tmp" "$1.o"
}
bad_id=$(printf '%s' "$kid" | tr '0-9a-f' '1-9a-f0')
mkfake good all "--build-id=0x$kid" || skip "cannot build a fake vmlinux with as/ld here"
mkfake bad all "--build-id=0x$bad_id" || skip "cannot build a fake vmlinux"
mkfake noid all "--build-id=none" || skip "cannot build a fake vmlinux"
mkfake gaps gaps "--build-id=0x$kid" || skip "cannot build a fake vmlinux"
if ! objcopy --strip-all good-vmlinux strip.tmp || ! cp --sparse=always strip.tmp strip-vmlinux; then
	skip "objcopy cannot strip the fake vmlinux"
fi
rm -f strip.tmp
note "$(cat good.count) kernel functions in the fake vmlinux"

# The fakes are what they claim (readelf -n if there is one).
CHECKS=$((CHECKS + 1))
if command -v readelf >/dev/null 2>&1; then
	readelf -n good-vmlinux | grep -q "Build ID: $kid" || fail "good-vmlinux lacks build-id $kid"
	readelf -n bad-vmlinux | grep -q "Build ID: $bad_id" || fail "bad-vmlinux lacks build-id $bad_id"
fi

# compare WHAT FILE "OPTIONS": perf report vs pa report, byte for byte
compare() {
	local what=$1 f=$2 o=$3
		perf report -i "$f" --stdio $o 2>/dev/null | grep -v '^# (Tip' >exp
		if ! pa report -i "$f" --stdio $o >got 2>got.err; then
		CHECKS=$((CHECKS + 1))
		fail "$what: pa report $o failed: $(head -n 2 got.err)"
		return 1
	fi
	[ -s exp ] || note "$what: perf printed nothing"
	same "$what: report $o" exp got
}
rows="-q --no-children -g none"

# the matching vmlinux: vm_* names, as perf shows them
for o in "--sort dso,sym" "--sort sym" "--sort comm,dso,sym" "--sort dso,srcline" \
	"--sort sym,srcline" "-F overhead,sample,period,dso,sym"; do
	compare good k.data "$rows $o --vmlinux good-vmlinux"
done
compare "good, -k" k.data "$rows --sort dso,sym -k good-vmlinux"
compare "good, full layout" k.data "--no-children -g none --vmlinux good-vmlinux"
CHECKS=$((CHECKS + 1))
pa report -i k.data --stdio $rows --sort dso,sym --vmlinux good-vmlinux >got 2>/dev/null
grep -q '\[k\] vm_' got || fail "pa report --vmlinux shows no vm_* name: $(head -n 3 got)"
CHECKS=$((CHECKS + 1))
grep -q '\[k\] vm_alias_' got && fail "the local alias won over the global symbol"
# call graphs through the vmlinux's symbols
for o in "--no-children --sort dso,sym" "--children --sort sym" "--no-children -g caller,0.5,callee --sort sym"; do
	compare "good, call graph" k.data "$o --vmlinux good-vmlinux"
done
# pa annotate -k: the kernel's functions read from the file (perf names
# the DSO after it), the whole text with --objdump as perf's, capstone's
# addresses and numbers as perf's (a zero-sized symbol reaches to the next
# one: the zeros behind its nops are one "..." line, as objdump folds
# them; -l's lines name the assembler's file, "good.o:0")
for o in "" "-n" "-l" "-P" "--show-total-period"; do
	perf annotate -i k.data --stdio -k good-vmlinux $o >exp 2>/dev/null
	pa annotate -i k.data --objdump objdump -k good-vmlinux $o >got 2>got.err
	same_l "annotate -k '$o' --objdump" exp got
	[ "$o" = -l ] && continue
	pa annotate -i k.data -k good-vmlinux $o >cs 2>cs.err
	check_numbers "annotate -k '$o': capstone's numbers" exp cs
done
CHECKS=$((CHECKS + 1))
grep -q 'Disassembly of good-vmlinux ' cs || fail "annotate -k: no kernel function annotated"
CHECKS=$((CHECKS + 1))
pa annotate -i k.data >/dev/null 2>err
grep -q "kernel.kallsyms.*-k/--vmlinux" err || fail "annotate without -k: no note on the kernel's missing bytes"

# a kcore copy in the build-id cache, as perf buildid-cache --kcore files
# one ([kernel.kcore]/<id>/<time>/{kcore,kallsyms,modules}): an ELF core
# whose one PT_LOAD spans the kernel's text at its running addresses, the
# sampled functions' bytes as above. Without -k, perf annotate and pa take
# the kernel's code from it (perf from its extract of each symbol, objdump
# naming it "load0"); pa archive carries it to another cache.
kdir="$HOME/.debug/[kernel.kcore]/$kid/2026010100000000"
mkdir -p "$kdir"
if python3 gen.py kallsyms.txt ips.txt "$kdir/kcore" - 0 kcore >kcore.count; then
	cp kallsyms.txt "$kdir/kallsyms"
	cat /proc/modules >"$kdir/modules" 2>/dev/null || : >"$kdir/modules"
	for o in "" "-n"; do
		perf annotate -i k.data --stdio $o >exp 2>/dev/null
		CHECKS=$((CHECKS + 1))
		grep -q 'Disassembly of kcore ' exp || fail "kcore: perf annotate does not use the kcore copy"
		pa annotate -i k.data --objdump objdump $o >got 2>got.err
		same_l "kcore '$o': annotate --objdump" exp got
		pa annotate -i k.data $o >cs 2>cs.err
		check_numbers "kcore '$o': capstone's numbers" exp cs
	done
	CHECKS=$((CHECKS + 1))
	grep -q 'ret' cs || fail "kcore: no instruction of the kcore listed: $(head -n 12 cs)"
	# pa archive carries it: the same text from another cache
	pa archive -i k.data -o k.tar.zst >pack.out 2>pack.err || fail "kcore: pa archive failed: $(head -n 2 pack.err)"
	mkdir -p other
	pa archive --unpack k.tar.zst --buildid-dir other >unpack.out 2>unpack.err ||
		fail "kcore: unpack failed: $(head -n 2 unpack.err)"
	CHECKS=$((CHECKS + 1))
	[ -f "other/[kernel.kallsyms]/$kid/kcore" ] || fail "kcore: the archive did not carry it"
	mv "$HOME/.debug" debug.away
	pa annotate -i k.data --buildid-dir other -n >cs2 2>cs2.err
	mv debug.away "$HOME/.debug"
	check_numbers "kcore from the archive: capstone's numbers" exp cs2
	rm -rf "$HOME/.debug/[kernel.kcore]" "$HOME/.debug/[kernel.kallsyms]/$kid/kcore"
else
	fail "kcore: cannot write the fake kcore"
fi

# holes in .text: unresolved, shown as vmlinux file offsets
compare gaps k.data "$rows --sort dso,sym --vmlinux gaps-vmlinux"
compare gaps k.data "$rows --sort sym,srcline --vmlinux gaps-vmlinux"
for o in "--no-children --sort dso,sym" "--children --sort sym"; do
	compare "gaps, call graph" k.data "$o --vmlinux gaps-vmlinux"
done
pa report -i k.data --stdio $rows --sort dso,sym --vmlinux gaps-vmlinux >got 2>/dev/null
grep -Eq '\[k\] 0x0{8}' got || note "gaps: no sample fell in a hole (nothing unresolved to compare)"

# unusable files: perf 6.1 shows no kernel symbols at all (it does not fall
# back to kallsyms); pa the same, and -v says why
for v in bad noid strip; do
	compare "$v" k.data "$rows --sort dso,sym --vmlinux $v-vmlinux"
	pa report -i k.data --stdio $rows --sort dso,sym --vmlinux "$v-vmlinux" -v >got 2>got.err
	CHECKS=$((CHECKS + 1))
	grep -q '\[k\] [a-z_]' got && fail "$v: kernel symbols shown: $(grep -m1 '\[k\] [a-z_]' got)"
	CHECKS=$((CHECKS + 1))
	grep -Eq '\[k\] 0xffff' got || fail "$v: no kernel address rows"
	CHECKS=$((CHECKS + 1))
	grep "kernel.kallsyms" got.err | grep -qF "'$v-vmlinux'" ||
		fail "$v: -v gave no reason: $(cat got.err)"
done
CHECKS=$((CHECKS + 1))
grep -q 'build-id mismatch' <<<"$(pa report -i k.data --stdio $rows --vmlinux bad-vmlinux -v 2>&1 >/dev/null)" ||
	fail "bad: -v does not say build-id mismatch"

# --kallsyms wins over --vmlinux (for perf too)
compare "--kallsyms wins" k.data "$rows --sort dso,sym --vmlinux good-vmlinux --kallsyms kallsyms.txt"

# a file that cannot be read: perf refuses to run, pa too
CHECKS=$((CHECKS + 1))
perf report -i k.data --stdio -q --vmlinux no-such-vmlinux >/dev/null 2>&1 &&
	note "perf accepted a missing --vmlinux"
pa report -i k.data --stdio -q --vmlinux no-such-vmlinux >/dev/null 2>got.err &&
	fail "pa report accepted a missing --vmlinux"

# pa folded: perf script --vmlinux | stackcollapse
for v in good gaps bad; do
	perf script -i k.data -F comm,pid,tid,time,period,event,ip,sym,dso --vmlinux "$v-vmlinux" \
		2>/dev/null >script.txt
	python3 "$HERE/stackcollapse.py" script.txt >exp 2>/dev/null
	if pa folded -i k.data -k "$v-vmlinux" >got 2>got.err; then
		same "folded --vmlinux $v-vmlinux" exp got
	else
		CHECKS=$((CHECKS + 1))
		fail "pa folded --vmlinux $v-vmlinux failed: $(head -n 2 got.err)"
	fi
done
CHECKS=$((CHECKS + 1))
# (into a file first: under pipefail, grep -q leaving early would fail pa)
pa folded -i k.data --vmlinux good-vmlinux >folded.txt 2>/dev/null
grep -q ';vm_' folded.txt || fail "pa folded --vmlinux shows no vm_* name"
# pa flamegraph shares it
CHECKS=$((CHECKS + 1))
if pa flamegraph -i k.data --vmlinux good-vmlinux -o fg.svg >/dev/null 2>got.err; then
	grep -q 'vm_' fg.svg || fail "flamegraph --vmlinux: no vm_* frame"
else
	fail "pa flamegraph --vmlinux failed: $(head -n 2 got.err)"
fi

# A pipe recording keeps no build-ids: perf checks nothing, so even the
# file with another id is used; the relocation reference comes from the
# MMAP record (file) or, from standard input, the kernel map's start.
if [ -n "$PA_EMU" ]; then
	note "pipe recordings: no build-ids, not comparable under $PA_EMU"
elif perf record -q -F 999 -o - -- dd if=/dev/zero of=/dev/null bs=64k count=200000 \
	>p.data 2>/dev/null && [ -s p.data ]; then
	for v in good bad; do
		compare "pipe, $v" p.data "$rows --sort dso,sym --vmlinux $v-vmlinux"
		perf report -i - --stdio $rows --sort dso,sym --vmlinux "$v-vmlinux" <p.data >exp 2>/dev/null
		pa report -i - --stdio $rows --sort dso,sym --vmlinux "$v-vmlinux" <p.data >got 2>/dev/null
		same "pipe on stdin, $v" exp got
	done
else
	note "perf record -o - failed here: pipe checks skipped"
fi
finish
