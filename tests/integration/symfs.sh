#!/usr/bin/env bash
# pa report --symfs DIR as perf 6.1 reads it, on the testdata recordings:
# the recorded files are looked up under DIR only (never at their own
# paths), the build-id cache is DIR/.debug (perf's symbol__config_symfs),
# and the kernel gets no kallsyms but --kallsyms/--vmlinux ("do not try
# local files if a symfs was given"). DIR here holds testdata's archive of
# le-file.data unpacked into DIR/.debug (the burn program and the kernel's
# kallsyms): burn is named, libc and the kernel stay addresses, whatever
# this machine has installed. So the outputs are this machine's no more,
# and are compared with golden copies of perf 6.1's (testdata/golden/
# symfs), and with perf itself when it is here.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1
export HOME=$WORK/home
# pa's own cache (its symbol indexes, symbols/idxfile.c) may be written by
# a report: it goes elsewhere, HOME must stay empty
export XDG_CACHE_HOME=$WORK/xdg-cache
mkdir -p home S/.debug E
GOLD=$TESTDATA/golden/symfs
pa archive --unpack "$TESTDATA/le-file.data.tar.zst" --buildid-dir "$WORK/S/.debug" >unpack.out 2>&1 ||
	fail "unpacking testdata's archive failed: $(head -n 2 unpack.out)"
have_perf=0
command -v perf >/dev/null 2>&1 && have_perf=1
[ $have_perf = 1 ] || note "no perf here: compared with the golden outputs only"

# check NAME FIXTURE GOLDEN SYMFS OPTIONS...
check() {
	local what=$1 f=$2 gold=$3 symfs=$4
	shift 4
	if ! pa report -i "$TESTDATA/$f.data" --stdio --symfs "$symfs" "$@" >got 2>got.err; then
		fail "$what: pa failed: $(head -n 2 got.err)"
		return
	fi
	if [ -f "$gold" ]; then
		same "$what (golden)" "$gold" got
	else
		fail "$what: no golden output $gold"
	fi
	if [ $have_perf = 1 ]; then
		perf report -i "$TESTDATA/$f.data" --stdio --symfs "$symfs" "$@" 2>/dev/null |
			grep -v '^# (Tip' >exp
		same "$what (perf)" exp got
	fi
}

optsets=("" "--no-children -g caller" "-g none --no-children --sort comm,dso,sym -n"
	"--children -g folded --sort dso,sym")
for f in le-file le-pipe le-buildid-mmap le-two-events le-group le-sysw; do
	j=0
	for o in "${optsets[@]}"; do
		j=$((j + 1))
		# shellcheck disable=SC2086
		check "$f report $o" "$f" "$GOLD/$f-$j.txt" "$WORK/S" $o
	done
done
# what the symfs gives and withholds, on le-file.data: burn's symbols from
# DIR/.debug; no kernel symbol (the archive's kallsyms is not read)
pa report -i "$TESTDATA/le-file.data" --stdio -q --no-children -g none --sort dso,sym \
	--symfs "$WORK/S" >rows 2>/dev/null
CHECKS=$((CHECKS + 1))
grep -q '  burn  *\[\.\] leaf *$' rows || fail "burn's leaf not named from the symfs cache: $(cat rows)"
CHECKS=$((CHECKS + 1))
! grep -q '\[k\] [A-Za-z_]' rows || fail "a kernel symbol named under a symfs: $(grep '\[k\]' rows)"
# an empty symfs: nothing named, whatever this machine has
check "le-file report, empty symfs" le-file "$GOLD/le-file-empty.txt" "$WORK/E"
CHECKS=$((CHECKS + 1))
! grep -q '\[\.\] [A-Za-z_]' got || fail "a symbol named under an empty symfs: $(grep -m 3 '\[\.\] [A-Za-z_]' got)"
CHECKS=$((CHECKS + 1))
left=$(find home -mindepth 1 | head -n 3)
[ -z "$left" ] || fail "a report wrote under HOME: $left"
finish
