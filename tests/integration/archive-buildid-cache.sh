#!/usr/bin/env bash
# pa buildid-cache against perf buildid-cache, on caches in the work dir:
# the same operations on a perf cache and on a pa cache give the same -v
# lines (--add, --remove, --purge, --purge-all) and the same --list and
# --missing output, and each tool reads the other's cache. pa's --kallsyms
# adds the running kernel's symbols. Errors: one line, non-zero exit.
# Concurrent --add and --unpack into one cache never corrupt it.
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
record_workload "$WORK/prog" "$WORK/rec-cache" "$WORK/rec.data" 200
libc=$(perf --buildid-dir "$WORK/rec-cache" buildid-list -i rec.data --with-hits |
	awk '$2 ~ /\/libc\.so\.6$/ {print $2; exit}')
[ -n "$libc" ] || fail "no libc in the recording"
spin=prog/spin # relative on purpose: perf prints what it was given, files the real path

# run_both NAME ARGS...: perf and pa, each on its own cache; stdout and
# stderr kept (perf -v also prints "DEBUGINFOD_URLS=", dropped).
run_both() {
	local name=$1
	shift
	perf --buildid-dir "$WORK/pc" buildid-cache "$@" >"perf.$name.out" 2>"perf.$name.err"
	echo "exit $?" >>"perf.$name.out"
	sed -i '/^DEBUGINFOD_URLS=/d' "perf.$name.err"
	pa buildid-cache --buildid-dir "$WORK/ac" "$@" >"pa.$name.out" 2>"pa.$name.err"
	echo "exit $?" >>"pa.$name.out"
	same "buildid-cache $* (stdout)" "perf.$name.out" "pa.$name.out"
	same "buildid-cache $* (stderr)" "perf.$name.err" "pa.$name.err"
}

run_both missing0 --missing rec.data
run_both add -v --add "$spin,$libc"
run_both list --list
run_both missing1 --missing rec.data
run_both add-again -v --add "$spin"
run_both remove -v --remove "$spin"
run_both remove-again -v --remove "$spin"
run_both remove-quiet --remove "$spin"
run_both list2 --list
run_both purge -v --purge "$libc"
run_both purge-again -v --purge "$libc"
run_both list3 --list
run_both add2 --add "$spin,/bin/true"
run_both purge-all -v --purge-all
run_both list4 --list

# each reads the other's cache
pa buildid-cache --buildid-dir "$WORK/pc2" --add "$spin,$libc" 2>/dev/null
perf --buildid-dir "$WORK/pc3" buildid-cache --add "$spin,$libc" 2>/dev/null
perf --buildid-dir "$WORK/pc2" buildid-cache --list >perf-reads-pa 2>/dev/null
pa buildid-cache --buildid-dir "$WORK/pc3" --list >pa-reads-perf
pa buildid-cache --buildid-dir "$WORK/pc2" --list >pa-reads-pa
same "perf --list of pa's cache" pa-reads-pa perf-reads-pa
same "pa --list of perf's cache" pa-reads-pa pa-reads-perf
CHECKS=$((CHECKS + 1))
[ "$(wc -l <pa-reads-pa)" = 2 ] || fail "pa --list: $(cat pa-reads-pa)"
# perf adds the separate debug file too (/usr/lib/debug): so does pa
for c in pc2 pc3; do
	CHECKS=$((CHECKS + 1))
	for k in elf debug; do
		compgen -G "$WORK/$c/${libc#/}/*/$k" >/dev/null && echo "$k"
	done >"$c.files"
	grep -qx debug "$c.files" || note "$c: no debug file for libc (no libc6-dbg here?)"
	cmp -s pc3.files pc2.files 2>/dev/null || [ $c = pc2 ] || fail "pa and perf cache different files: $(cat pc2.files) vs $(cat pc3.files)"
done

# --kallsyms: the running kernel, under its build-id
if [ -z "$PA_EMU" ] || [ -r /proc/kallsyms ]; then
	kid=$(perf buildid-list -i rec.data | awk '$2 == "[kernel.kallsyms]" {print $1; exit}')
	pa buildid-cache --buildid-dir "$WORK/kc" --kallsyms -v >/dev/null 2>ks.err
	st=$?
	CHECKS=$((CHECKS + 1))
	if [ $st -eq 0 ]; then
		grep -qx "Adding $kid \[kernel.kallsyms\]: Ok" ks.err || fail "--kallsyms -v: $(cat ks.err)"
		[ -s "$WORK/kc/[kernel.kallsyms]/$kid/kallsyms" ] || fail "--kallsyms did not cache $kid"
	else
		grep -q "^pa: '/proc/kallsyms': " ks.err || fail "--kallsyms: exit $st: $(cat ks.err)"
		note "--kallsyms refused here: $(cat ks.err)"
	fi
fi

# errors: one line naming the file; 1 for a missing file, 2 for bad input
pa buildid-cache --buildid-dir "$WORK/ec" --add /nonexistent/file >/dev/null 2>e1
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 1 ] && [ "$(cat e1)" = "pa: '/nonexistent/file': No such file or directory" ] ||
	fail "--add of a missing file: exit $st: $(cat e1)"
echo "not elf" >notelf
pa buildid-cache --buildid-dir "$WORK/ec" --add notelf >/dev/null 2>e2
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 2 ] && [ "$(cat e2)" = "pa: '$WORK/notelf': not an ELF file" ] ||
	fail "--add of a non-ELF file: exit $st: $(cat e2)"
pa buildid-cache --buildid-dir "$WORK/ec" --missing notelf >/dev/null 2>e3
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 2 ] && [ "$(wc -l <e3)" = 1 ] && grep -q "^pa: 'notelf': " e3 ||
	fail "--missing of a bad file: exit $st: $(cat e3)"
pa buildid-cache >/dev/null 2>&1
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 1 ] || fail "no action is a usage error, got exit $st"

# ---- concurrency: adders and unpackers racing on one cache ----------------------
pa archive -i rec.data -o rec.tar.zst --buildid-dir "$WORK/rec-cache" >/dev/null 2>&1 ||
	fail "pa archive for the race failed"
rm -rf race && mkdir race
pids=()
for j in 1 2 3 4; do
	(
		for i in 1 2 3; do
			if [ $(((i + j) % 2)) = 0 ]; then
				pa archive --unpack rec.tar.zst --buildid-dir "$WORK/race/cache" >/dev/null || exit 1
			else
				pa buildid-cache --buildid-dir "$WORK/race/cache" --add "$spin,$libc" || exit 1
			fi
		done
	) 2>"race/err$j" &
	pids+=($!)
done
for p in "${pids[@]}"; do
	CHECKS=$((CHECKS + 1))
	wait "$p" || fail "a racer failed: $(cat race/err*)"
done
CHECKS=$((CHECKS + 1))
[ -z "$(find race/cache -name '.tmp-*')" ] || fail "temporaries left: $(find race/cache -name '.tmp-*')"
# every file is what its name says, every link resolves
while IFS= read -r f; do
	want=$(basename "$(dirname "$f")")
	case $(basename "$f") in
	elf | debug) got=$(pa buildid-list -i "$f" 2>/dev/null) ;;
	*) continue ;;
	esac
	CHECKS=$((CHECKS + 1))
	[ "$got" = "$want" ] || fail "race: $f has build-id '$got'"
done < <(find race/cache -type f)
CHECKS=$((CHECKS + 1))
[ -z "$(find race/cache/.build-id -xtype l)" ] || fail "dangling links after the race"
pa buildid-cache --buildid-dir "$WORK/race/cache" --list >race.list
perf --buildid-dir "$WORK/race/cache" buildid-cache --list >race.perf.list 2>/dev/null
same "race: pa and perf list the same cache" race.list race.perf.list
# what both kinds of racers put there: the program and libc; and the kernel
# when the archive has its kallsyms (not when perf could not read them here)
libc_id=$(pa buildid-list -i "$libc")
want_ids=("$(pa buildid-list -i "$spin")" "$libc_id")
tar tf rec.tar.zst 2>/dev/null | grep -q '^\[kernel\.kallsyms\]/[0-9a-f]*/kallsyms$' &&
	want_ids+=("$(perf buildid-list -i rec.data | awk '$2 == "[kernel.kallsyms]" {print $1; exit}')")
for w in "${want_ids[@]}"; do
	CHECKS=$((CHECKS + 1))
	[ -n "$w" ] && awk -v id="$w" '$1 == id {f = 1} END {exit !f}' race.list ||
		fail "race: the cache does not list '$w': $(cat race.list)"
done

# --list shows what is valid here, like perf: not a program that is gone;
# --list --all shows every entry
prog_id=$(pa buildid-list -i prog/spin)
mv prog prog.away
pa buildid-cache --buildid-dir "$WORK/race/cache" --list >gone.list
perf --buildid-dir "$WORK/race/cache" buildid-cache --list >gone.perf.list 2>/dev/null
same "--list without the program" gone.perf.list gone.list
CHECKS=$((CHECKS + 1))
grep -q "$prog_id" gone.list && fail "--list shows a program that is gone"
pa buildid-cache --buildid-dir "$WORK/race/cache" --list --all >all.list
CHECKS=$((CHECKS + 1))
grep -qx "$prog_id $WORK/prog/spin" all.list || fail "--list --all: $(cat all.list)"
mv prog.away prog
finish
