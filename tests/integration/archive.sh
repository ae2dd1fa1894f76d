#!/usr/bin/env bash
# pa archive and pa archive --unpack on a recording made now with real perf
# (its build-id cache in the work dir, never ~/.debug):
#  - what is packed (program, libc + its debug file, kallsyms, vdso, the
#    .build-id links, the manifest), compression by suffix;
#  - after the program is moved away, pa report from the unpacked cache
#    prints what perf printed; so does perf from `tar xf` of pa's archive
#    (perf users), and pa from perf's own `perf archive` tarball;
#  - re-unpacking keeps identical files, a conflicting file is reported and
#    the cached one kept;
#  - what cannot be packed is said, with why; bad input: one line, exit 2,
#    no output file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/archive-common.sh"
need_perf
# perf and pa default to the build-id cache in $HOME/.debug, which the tests
# running beside this one share: a private HOME, so that nothing this test
# does not pass by --buildid-dir is read from or written there.
export HOME=$WORK/home
mkdir -p "$HOME" || exit 1

cd "$WORK" || exit 1
make_workload "$WORK/prog"
record_workload "$WORK/prog" "$WORK/perf-cache" "$WORK/rec.data"
expect_reports "$WORK/rec.data" "$WORK/perf-cache" "$WORK/exp"
hex() { pa buildid-list -i "$1"; }
prog_id=$(hex "$WORK/prog/spin")
libc=$(perf --buildid-dir "$WORK/perf-cache" buildid-list -i rec.data --with-hits |
	awk '$2 ~ /\/libc\.so\.6$/ {print $2; exit}')
libc_id=$(hex "$libc")
kernel_id=$(perf buildid-list -i rec.data | awk '$2 == "[kernel.kallsyms]" {print $1; exit}')
[ -n "$libc_id" ] && [ -n "$kernel_id" ] || fail "no build-id for libc ('$libc') or the kernel in the recording"
# libc's separate debug file is packed when this machine has one (libc6-dbg;
# perf record cached it too): not every machine does.
libc_debug=
if [ -e "/usr/lib/debug/.build-id/${libc_id:0:2}/${libc_id:2}.debug" ] ||
	[ -e "$WORK/perf-cache/${libc#/}/$libc_id/debug" ]; then
	libc_debug=1
else
	note "no separate debug file for $libc here (libc6-dbg not installed?): its packing is not checked"
fi

# ---- pack from a fresh cache: files are added from their paths first ------
seed_vdso_under_emu "$WORK/perf-cache" "$WORK/fresh"
pa archive -i rec.data -o a.tar.zst --buildid-dir "$WORK/fresh" >pack.out 2>pack.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 0 ] || fail "pa archive: exit status $st: $(cat pack.err)"
CHECKS=$((CHECKS + 1))
grep -q '^packed [0-9]* DSOs' pack.out || fail "no 'packed' line: $(cat pack.out)"
if [ -z "$PA_EMU" ]; then
	CHECKS=$((CHECKS + 1))
	pack_complaints pack.err >pack.err.other
	[ ! -s pack.err.other ] || fail "pa archive complained: $(cat pack.err.other)"
fi
tar tf a.tar.zst >members || fail "GNU tar cannot list a.tar.zst"
CHECKS=$((CHECKS + 1))
[ "$(head -n 1 members)" = .pa-manifest ] || fail "the manifest is not the first member"
libc_rel=${libc#/}
for m in "prog" "[kernel.kallsyms]/$kernel_id/kallsyms" "$libc_rel/$libc_id/elf" \
	${libc_debug:+"$libc_rel/$libc_id/debug"} ".build-id/${prog_id:0:2}/${prog_id:2}" \
	".build-id/${libc_id:0:2}/${libc_id:2}" ".build-id/${kernel_id:0:2}/${kernel_id:2}"; do
	CHECKS=$((CHECKS + 1))
	if [ "$m" = prog ]; then
		grep -qxF "${WORK#/}/prog/spin/$prog_id/elf" members || fail "program not packed"
	else
		grep -qxF "$m" members || fail "member $m missing: $(tr '\n' ' ' <members)"
	fi
done
if grep -q '\[vdso\]' <<<"$(perf buildid-list -i rec.data --with-hits)"; then
	CHECKS=$((CHECKS + 1))
	grep -q '^\[vdso\]/[0-9a-f]*/vdso$' members || fail "vdso not packed"
fi
# the manifest: one line per file, sizes as packed
tar xOf a.tar.zst .pa-manifest >manifest
CHECKS=$((CHECKS + 1))
[ "$(grep -vc '^#' manifest)" = "$(grep -vc '^\.build-id/\|^\.pa-manifest$' members)" ] ||
	fail "manifest lines != file members"
CHECKS=$((CHECKS + 1))
if [ -n "$libc_debug" ]; then
	grep -qF "$libc" <<<"$(awk -F'\t' -v id="$libc_id" '$1 == id && $2 == "debug"' manifest)" ||
		fail "manifest lacks libc's debug file with its original path"
else
	grep -qF "$libc" <<<"$(awk -F'\t' -v id="$libc_id" '$1 == id && $2 == "elf"' manifest)" ||
		fail "manifest lacks libc with its original path"
fi
# the fresh cache now holds them (perf's layout: perf lists them)
perf --buildid-dir "$WORK/fresh" buildid-cache --list >fresh.list 2>/dev/null
CHECKS=$((CHECKS + 1))
grep -qxF "$prog_id $WORK/prog/spin" fresh.list || fail "perf does not list the program in the cache pa filled"

# ---- compression by suffix ------------------------------------------------------
magic() { od -An -tx1 -N6 "$1" | tr -d ' \n'; }
for s in tar tar.gz tgz tar.bz2 tar.xz tar.zst; do
	pa archive -i rec.data -o "c.$s" --buildid-dir "$WORK/fresh" >/dev/null 2>&1 ||
		fail "pa archive -o c.$s failed"
	m=$(magic "c.$s")
	case $s in
	tar) want=2e70612d6d61 ;; # ".pa-ma": the manifest's name, uncompressed
	tar.gz | tgz) want=1f8b ;;
	tar.bz2) want=425a68 ;;
	tar.xz) want=fd377a585a00 ;;
	tar.zst) want=28b52ffd ;;
	esac
	CHECKS=$((CHECKS + 1))
	[[ $m == "$want"* ]] || fail "c.$s starts with $m, not $want"
	rm -rf "u-$s"
	pa archive --unpack "c.$s" --buildid-dir "$WORK/u-$s" >/dev/null 2>"u-$s.err"
	st=$?
	CHECKS=$((CHECKS + 1))
	[ $st -eq 0 ] || fail "unpack c.$s: $(cat "u-$s.err")"
done
pa archive -i rec.data --buildid-dir "$WORK/fresh" >/dev/null 2>&1
CHECKS=$((CHECKS + 1))
[ -s rec.data.tar.zst ] || fail "default output name is not INPUT.tar.zst"

# ---- elsewhere: the program is gone -------------------------------------------------
mv prog prog.away
pa archive --unpack a.tar.zst --buildid-dir "$WORK/new" >unpack.out 2>unpack.err
CHECKS=$((CHECKS + 1))
grep -q "files added, 0 already cached" unpack.out || fail "unpack: $(cat unpack.out unpack.err)"
same_reports "pa archive, pa --unpack" rec.data "$WORK/new" "$WORK/exp"
# perf users: tar xf into a perf cache
mkdir -p perf-new && tar xf a.tar.zst -C perf-new || fail "tar xf a.tar.zst failed"
same_reports "pa archive, tar xf, perf" rec.data "$WORK/perf-new" "$WORK/exp" perf_cached
# perf's own archive, unpacked by pa
mv prog.away prog
perf --buildid-dir "$WORK/perf-cache" archive rec.data >/dev/null 2>&1 || fail "perf archive failed"
mv prog prog.away
CHECKS=$((CHECKS + 1))
pa archive --unpack rec.data.tar.bz2 --buildid-dir "$WORK/from-perf" >/dev/null 2>from-perf.err ||
	fail "unpack of perf archive's tarball: $(cat from-perf.err)"
same_reports "perf archive, pa --unpack" rec.data "$WORK/from-perf" "$WORK/exp"

# ---- again: identical files kept; a conflicting one reported, not replaced -------------
pa archive --unpack a.tar.zst --buildid-dir "$WORK/new" >again.out 2>again.err
CHECKS=$((CHECKS + 1))
grep -q "unpacked a.tar.zst: 0 files added, [1-9][0-9]* already cached" again.out ||
	fail "second unpack: $(cat again.out again.err)"
ks="$WORK/new/[kernel.kallsyms]/$kernel_id/kallsyms"
sum_before=$(md5sum <"$ks")
mkdir -p other/"[kernel.kallsyms]/$kernel_id" && echo "ffffffff81000000 T other" >other/"[kernel.kallsyms]/$kernel_id/kallsyms"
tar cf other.tar -C other "[kernel.kallsyms]"
pa archive --unpack other.tar --buildid-dir "$WORK/new" >conflict.out 2>conflict.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 0 ] || fail "a conflict is not an error, got exit $st"
CHECKS=$((CHECKS + 1))
grep -q "^pa: 'other.tar': member '\[kernel.kallsyms\]/$kernel_id/kallsyms': kept the cached file" conflict.err ||
	fail "conflict not reported: $(cat conflict.err)"
CHECKS=$((CHECKS + 1))
[ "$(md5sum <"$ks")" = "$sum_before" ] || fail "the cached kallsyms was replaced"
CHECKS=$((CHECKS + 1))
[ -z "$(find "$WORK/new" -name '.tmp-*')" ] || fail "temporaries left in the cache"

# ---- what cannot be packed, and why ------------------------------------------------------
# the program rebuilt since the recording: another build-id at that path
mv prog.away prog
sed 's/user_work/user_work_renamed/' prog/spin.c >prog/spin2.c
cc -O1 -g -fno-omit-frame-pointer -o prog/spin prog/spin2.c
pa archive -i rec.data -o rebuilt.tar.zst --buildid-dir "$WORK/fresh2" >/dev/null 2>rebuilt.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 0 ] || fail "pa archive with one unpackable DSO: exit $st"
CHECKS=$((CHECKS + 1))
grep -q "^pa: '$WORK/prog/spin' (build-id $prog_id): not packed: .*another build-id" rebuilt.err ||
	fail "no reason given for the rebuilt program: $(cat rebuilt.err)"
CHECKS=$((CHECKS + 1))
tar tf rebuilt.tar.zst >rebuilt.members
grep -q "prog/spin" rebuilt.members && fail "the rebuilt program was packed"

# ---- a program without a build-id note: packed by the SHA-1 of its content -----------------
mkdir -p noteless
cc -O1 -g -fno-omit-frame-pointer -Wl,--build-id=none -o noteless/spin prog/spin.c
# the program must have samples (a short run on a loaded machine may get few):
# a few tries
for try in 1 2 3; do
	perf --buildid-dir "$WORK/nl-cache" record -q -F 999 -g -o nl.data -- noteless/spin 150 >/dev/null 2>&1 ||
		fail "perf record of the note-less program failed"
	perf --buildid-dir "$WORK/nl-cache" report -i nl.data "${REPORT_FLAGS[@]}" --sort dso,sym >nl.exp 2>/dev/null
	grep -Eq '^ +[0-9.]+% +spin +\[\.\] ' nl.exp && break
	note "note-less recording $try has no samples in the program"
done
seed_vdso_under_emu "$WORK/nl-cache" "$WORK/nl-pack"
pa archive -i nl.data -o nl.tar.zst --buildid-dir "$WORK/nl-pack" >/dev/null 2>nl.err
CHECKS=$((CHECKS + 1))
grep -q "^pa: '$WORK/noteless/spin': no build-id note: packed the file found there now" nl.err ||
	fail "note-less program: $(cat nl.err)"
mv noteless noteless.away
pa archive --unpack nl.tar.zst --buildid-dir "$WORK/nl-new" >/dev/null 2>&1
pa report -i nl.data "${REPORT_FLAGS[@]}" --sort dso,sym --buildid-dir "$WORK/nl-new" >nl.got 2>&1
same "note-less program, unpacked elsewhere" nl.exp nl.got
# the program's rows are named (from the unpacked file: the program is gone)
CHECKS=$((CHECKS + 1))
grep -Eq '^ +[0-9.]+% +spin +\[\.\] [A-Za-z_]' nl.got || fail "note-less program: no names: $(head -n 5 nl.got)"

# ---- bad input: one line, exit 2, no output ----------------------------------------------
head -c 3000 /dev/urandom >bad.data
pa archive -i bad.data -o bad.tar.zst >bad.out 2>bad.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 2 ] && [ "$(wc -l <bad.err)" = 1 ] && grep -q "^pa: 'bad.data': " bad.err ||
	fail "bad perf.data: exit $st, stderr: $(cat bad.err)"
CHECKS=$((CHECKS + 1))
[ ! -e bad.tar.zst ] && ! compgen -G 'bad.tar.zst*' >/dev/null || fail "output left for bad input"
pa archive -i rec.data -o no/such/dir/x.tar.zst --buildid-dir "$WORK/fresh" >/dev/null 2>nodir.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -ne 0 ] && [ "$(wc -l <nodir.err)" = 1 ] || fail "unwritable output: exit $st: $(cat nodir.err)"
# nothing to pack: a recording without build-ids (perf 6.1 record -z writes none)
if [ -z "$(perf buildid-list -i "$TESTDATA/le-zstd.data" 2>/dev/null)" ]; then
	pa archive -i "$TESTDATA/le-zstd.data" -o none.tar.zst --buildid-dir "$WORK/fresh" >/dev/null 2>none.err
	st=$?
	CHECKS=$((CHECKS + 1))
	[ $st -eq 2 ] && grep -q "nothing to pack" none.err && [ ! -e none.tar.zst ] ||
		fail "nothing to pack: exit $st: $(cat none.err)"
fi
pa archive --unpack a.tar.zst -i rec.data >/dev/null 2>usage.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 1 ] || fail "--unpack with -i is a usage error, got exit $st"
pa archive --unpack no-such.tar.zst --buildid-dir "$WORK/none" >/dev/null 2>nosuch.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 1 ] && grep -q "^pa: 'no-such.tar.zst': No such file or directory$" nosuch.err &&
	[ ! -e "$WORK/none" ] || fail "missing archive: exit $st: $(cat nosuch.err)"
finish
