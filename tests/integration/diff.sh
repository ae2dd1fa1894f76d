#!/usr/bin/env bash
# pa diff must print what perf diff prints, byte for byte:
#  1. on the testdata fixtures (testdata/golden/diff/cases): against perf's
#     kept output, and against perf itself when it is here; little-endian
#     recordings diffed with big-endian ones (perf answers on their LE
#     twins), symbols from an archive unpacked into a private cache;
#  2. on recordings made here: two builds of one program whose functions
#     moved (pairs by name), two programs, two events, filters, every -c
#     mode, -p, -F, -o, -b, -q, three files, the no-argument form;
#  3. bad input: one line naming the file, exit 2; usage errors exit 1.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
private_home
GOLD=$TESTDATA/golden/diff

pa archive --unpack "$TESTDATA/le-file.data.tar.zst" >/dev/null 2>"$WORK/unpack.err" ||
	fail "pa archive --unpack: $(head -n 2 "$WORK/unpack.err")"

# perf's files for pa's: a big-endian file's little-endian twin.
perf_files() {
	local f
	for f in "$@"; do
		case $f in
		be-*) f=le-${f#be-}; echo "${f%.data}.inj.data" ;;
		*) echo "$f" ;;
		esac
	done
}

# 1. fixtures
have_perf=$(command -v perf || true)
while IFS='|' read -r name files opts; do
	case $name in '' | '#'*) continue ;; esac
	# shellcheck disable=SC2086
	(cd "$TESTDATA" && pa diff $opts $files) >"$WORK/$name.pa" 2>"$WORK/$name.err" ||
		fail "$name: pa diff $opts $files: exit $?: $(head -n 2 "$WORK/$name.err")"
	same "$name: pa diff $opts $files vs perf's kept output" "$GOLD/$name.txt" "$WORK/$name.pa"
	if [ -n "$have_perf" ]; then
		# shellcheck disable=SC2046,SC2086
		(cd "$TESTDATA" && perf diff $opts $(perf_files $files) </dev/null 2>/dev/null) >"$WORK/$name.perf"
		same "$name: pa diff $opts $files vs perf diff" "$WORK/$name.perf" "$WORK/$name.pa"
	fi
done <"$GOLD/cases"
# the kept outputs are worth something: symbols from the archive, rows
# of both files, a big-endian file among them
grep -q '\[\.\] leaf' "$GOLD/le-be.txt" || fail "golden le-be.txt has no symbol from the archive"
grep -q '^ *[0-9.]*% *[-+][0-9.]*%' "$GOLD/le-be.txt" || fail "golden le-be.txt pairs no entry"
pass

# 3. bad input and usage
printf 'PERFILE2 this is no perf.data file' >"$WORK/bad.data"
pa diff "$TESTDATA/le-file.data" "$WORK/bad.data" >"$WORK/bad.out" 2>"$WORK/bad.err"
st=$?
[ "$st" -eq 2 ] || fail "bad input: exit $st, not 2"
[ "$(wc -l <"$WORK/bad.err")" -eq 1 ] && grep -q "bad.data" "$WORK/bad.err" ||
	fail "bad input: not one line naming the file: $(cat "$WORK/bad.err")"
[ -s "$WORK/bad.out" ] && fail "bad input: partial output"
pass
for args in "-o 2 a b" "-c bogus a b" "-c wdiff:1 a b" "--percentage some a b"; do
	# shellcheck disable=SC2086
	pa diff $args >/dev/null 2>&1
	st=$?
	[ "$st" -eq 1 ] || fail "pa diff $args: exit $st, not 1"
	pass
done

# 2. recordings made here
if [ -z "$have_perf" ] || ! command -v cc >/dev/null 2>&1; then
	note "no perf or cc: recordings made here not compared"
	finish
fi
# (under an emulator the fixtures above did the cross-machine part; the
# same comparisons again would only take minutes)
if [ -n "$PA_EMU" ]; then
	note "recordings made now not compared under $PA_EMU"
	finish
fi
cat >"$WORK/w.c" <<'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
#ifdef NEWER
__attribute__((noinline)) void added_work(long n) { for (long i = 0; i < n; i++) sink += i * 3; }
#endif
__attribute__((noinline)) void shrink_work(long n) { for (long i = 0; i < n; i++) sink += i; }
__attribute__((noinline)) void grow_work(long n) { for (long i = 0; i < n; i++) sink ^= i; }
__attribute__((noinline)) void same_work(long n) { for (long i = 0; i < n; i++) sink -= i; }
int main(int argc, char **argv)
{
	long a = argc > 2 ? atol(argv[1]) : 1, b = argc > 2 ? atol(argv[2]) : 1;
#ifdef NEWER
	added_work(a / 4);
#endif
	shrink_work(a);
	grow_work(b);
	same_work(40000000);
	return 0;
}
EOF
mkdir -p "$WORK/old" "$WORK/new" "$WORK/other"
cc -O1 -fno-omit-frame-pointer -o "$WORK/old/prog" "$WORK/w.c" &&
	cc -O1 -DNEWER -fno-omit-frame-pointer -o "$WORK/new/prog" "$WORK/w.c" &&
	cc -O1 -fno-omit-frame-pointer -o "$WORK/other/other" "$WORK/w.c" || {
	fail "cc failed"
	finish
}
record_cases "old|-F 2000 --sample-cpu|$WORK/old/prog 150000000 50000000" \
	"new|-F 2000 --sample-cpu|$WORK/new/prog 50000000 150000000" \
	"other|-F 2000|$WORK/other/other 100000000 100000000" \
	"events|-F 2000 -e cpu-clock,task-clock|$WORK/old/prog 100000000 100000000"
[ ${#files[@]} -eq 4 ] || { fail "not every recording could be made"; finish; }
cd "$WORK" || exit 1
n=0
while read -r line; do
	[ -n "$line" ] || continue
	n=$((n + 1))
	# shellcheck disable=SC2086
	perf diff $line </dev/null >"$WORK/r$n.perf" 2>/dev/null
	# shellcheck disable=SC2086
	pa diff $line >"$WORK/r$n.pa" 2>"$WORK/r$n.err" ||
		fail "pa diff $line: exit $?: $(head -n 2 "$WORK/r$n.err")"
	[ -s "$WORK/r$n.perf" ] || fail "perf diff $line printed nothing"
	same "pa diff $line vs perf diff" "$WORK/r$n.perf" "$WORK/r$n.pa"
done <<EOF
old.data new.data
-c delta old.data new.data
-c ratio old.data new.data
-c wdiff:1,3 old.data new.data
-c delta-abs -p -F old.data new.data
-c ratio -F -p new.data old.data
-c wdiff:5,2 -F old.data new.data
-b old.data new.data
-q -c delta old.data other.data
old.data other.data new.data
-o 2 -c ratio old.data new.data other.data
-o 0 old.data new.data
old.data events.data
events.data new.data
-s comm,dso old.data other.data
-s comm,sym -c delta --percentage relative --dsos prog old.data new.data
--comms prog --dsos prog -b old.data new.data
-s pid,sym old.data new.data
-s dso -c ratio old.data new.data other.data
--cpu 0,1 -c delta old.data new.data
EOF
# pairs are by name: the moved functions of the two builds pair
grep -q '^ *[0-9.]*% *[-+][0-9.]*% *prog *\[\.\] grow_work' "$WORK/r1.pa" ||
	fail "grow_work of the two builds did not pair: $(cat "$WORK/r1.pa")"
grep -q '^ *+[0-9.]*% *prog *\[\.\] added_work' "$WORK/r1.pa" ||
	fail "added_work (new build only) is not a new-only entry"
pass
# the no-argument form: perf.data.old and perf.data (and one argument: the new file)
cp old.data perf.data.old && cp new.data perf.data || fail "cp"
perf diff </dev/null >noarg.perf 2>/dev/null
pa diff >noarg.pa 2>noarg.err || fail "pa diff (no argument): $(head -n 2 noarg.err)"
same "pa diff with no argument" noarg.perf noarg.pa
perf diff other.data </dev/null >onearg.perf 2>/dev/null
pa diff other.data >onearg.pa 2>onearg.err || fail "pa diff other.data: $(head -n 2 onearg.err)"
same "pa diff with one argument" onearg.perf onearg.pa
finish
