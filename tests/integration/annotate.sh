#!/usr/bin/env bash
# pa annotate vs perf annotate 6.1 --stdio.
#
#   1. Without perf: the fixture testdata/inline/inline.data (a -O2 -g C++
#      program, its binary under testdata/inline/symfs): capstone's listing
#      has the same instructions, addresses, sample counts and percentages
#      as the listing made with --objdump (binutils' objdump, when here);
#      --html writes one page; usage errors exit 1 and bad input is one
#      line naming the file and the offset, exit 2. Against perf too when
#      it is here: --objdump's whole text equals perf annotate's.
#   2. A recording made now of a -O2 -g C program: for the whole file and
#      each of its ten hottest symbols (fewer: all), with perf annotate's options (-n,
#      --show-total-period, --percent-type, --percent-limit, --asm-raw, -l,
#      --no-source, -M intel, -s, -d), pa annotate --objdump objdump equals
#      perf annotate --stdio byte for byte, and pa's own (capstone) listing
#      has perf's addresses and numbers.
#   3. The same (the default, -l, and -n per symbol) on a recording made
#      now of a -O2 -g C++ program, testdata/src/inline.cpp.
# (annotate-cross.sh sources the helpers: PA_ANNOTATE_HELPERS_ONLY=1.)
# Kernel symbols: perf prints nothing for them without vmlinux or kcore,
# pa prints nothing either and says so on stderr, once per DSO.
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1
HOME_REAL=$HOME # (the sysroots' cache: scripts/sysroot)
private_home
have_perf=0
command -v perf >/dev/null 2>&1 && have_perf=1
have_objdump=0
command -v objdump >/dev/null 2>&1 && have_objdump=1

# same_l WHAT EXPECTED ACTUAL: same(), for -l's text: perf 6.1 compares an
# instruction's " // FILE:LINE" with the last one printed through a pointer
# into the previous symbol's freed lines, so whether it repeats the first
# path of a symbol varies from run to run; pass (with a note) when only
# those suffixes differ.
same_l() {
	if ! cmp -s "$2" "$3"; then
		sed 's| // .*$||' "$2" >"$2.nopath"
		sed 's| // .*$||' "$3" >"$3.nopath"
		if cmp -s "$2.nopath" "$3.nopath"; then
			CHECKS=$((CHECKS + 1))
			note "$1: only perf's ' // FILE:LINE' after a symbol change differs (freed memory in perf)"
			return 0
		fi
	fi
	same "$@"
}

# The instruction lines of a listing: header lines, then "NUMBER ADDRESS"
# for each instruction (what capstone's listing must share with objdump's).
numbers() {
	sed -nE '/Source code & Disassembly/p; s/^(.*) : +([0-9a-f]+):.*/\1 \2/p' "$1"
}

# The symbols (their order in the text) whose capstone listing has
# "(bad)" lines: capstone 4 does not know every x86 extension (AVX-512's
# EVEX instructions in libc's string functions), objdump does.
bad_blocks() { awk '/Source code & Disassembly/ {n++} /: +[0-9a-f]+: +\(bad\)/ {print n}' "$1" | sort -u; }
drop_blocks() { awk 'NR == FNR {bad[$1] = 1; next} /Source code & Disassembly/ {n++} !(n in bad)' "$1" "$2"; }

# check_numbers WHAT EXPECTED(perf or objdump text) ACTUAL(capstone text)
check_numbers() {
	numbers "$2" >"$2.num"
	numbers "$3" >"$3.num"
	if [ ! -s "$2.num" ]; then
		fail "$1: nothing annotated"
		return
	fi
	bad_blocks "$3" >"$3.bad"
	if [ -s "$3.bad" ] && ! grep -q '(bad)' "$2"; then
		note "$1: $(wc -l <"$3.bad") symbol(s) with instructions capstone 4 cannot decode, not compared"
		drop_blocks "$3.bad" "$2.num" >"$2.num.kept"
		drop_blocks "$3.bad" "$3.num" >"$3.num.kept"
		mv "$2.num.kept" "$2.num"
		mv "$3.num.kept" "$3.num"
	fi
	same "$1" "$2.num" "$3.num"
}

# The -l text's per-source-line summaries ("Sorted summary for file ...").
summaries() { awk '/^Sorted summary/ {f = 1} / (Percent|Samples|Period) +\|/ {f = 0} f' "$1"; }

# hottest_syms DATA N: perf report's N hottest user symbols of DATA, one a
# line, whole (C++ names have spaces).
hottest_syms() {
	perf report -i "$1" --stdio --sort sym 2>/dev/null |
		sed -n 's/^ .*\[\.\] \(.*[^ ]\) *$/\1/p' | head -n "$2"
}

# write_hot_c: the -O2 -g C workload, hot.c (ARGV[1] rounds).
write_hot_c() {
	cat >hot.c <<'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
static inline unsigned long mix(unsigned long x)
{
	return x * 6364136223846793005ul + 1442695040888963407ul;
}
__attribute__((noinline)) unsigned long lcg(unsigned long x, int n)
{
	for (int i = 0; i < n; i++)
		x = mix(x) ^ (x >> 7);
	return x;
}
__attribute__((noinline)) double fsum(const double *a, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += a[i] * a[i] / (1.0 + a[i]);
	return s;
}
__attribute__((noinline)) void bsort(int *v, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j + 1 < n - i; j++)
			if (v[j] > v[j + 1]) {
				int t = v[j];
				v[j] = v[j + 1];
				v[j + 1] = t;
			}
}
__attribute__((noinline)) unsigned long crc(const unsigned char *p, int n)
{
	unsigned long c = ~0ul;
	for (int i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320ul & -(c & 1));
	}
	return c;
}
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 100;
	static double a[4096];
	static int v[400];
	static unsigned char b[8192];
	for (int i = 0; i < 4096; i++)
		a[i] = i * 0.5;
	unsigned long x = 1;
	double s = 0;
	for (int r = 0; r < rounds; r++) {
		x = lcg(x, 40000);
		s += fsum(a, 4096);
		for (int i = 0; i < 400; i++)
			v[i] = (int)((x >> (i % 40)) & 0xffff) ^ i;
		bsort(v, 400);
		for (int i = 0; i < 8192; i++)
			b[i] = (unsigned char)(x >> (i % 50));
		x ^= crc(b, 8192);
	}
	sink = x + (unsigned long)s;
	return 0;
}
EOF
}

# annotate-cross.sh sources this file for the helpers above.
[ "${PA_ANNOTATE_HELPERS_ONLY:-0}" = 1 ] && return 0

# ---- 1. the inline fixture (no perf needed) -------------------------------------
FIX=$TESTDATA/inline/inline.data
SYMFS=$TESTDATA/inline/symfs
if pa annotate -i "$FIX" --symfs "$SYMFS" --stdio >cs.txt 2>cs.err; then
	CHECKS=$((CHECKS + 1))
	grep -q '^ Percent |	Source code & Disassembly of prog for ' cs.txt ||
		fail "fixture: no perf-style header in pa annotate's text"
	grep -Eq '^ +[0-9]+\.[0-9]{2} : +[0-9a-f]+:   [a-z]' cs.txt ||
		fail "fixture: no instruction lines"
else
	fail "fixture: pa annotate failed: $(head -n 2 cs.err)"
fi
if [ $have_objdump = 1 ]; then
	for o in "" "-n" "--show-total-period" "--no-source" "--percent-type local-hits" "-M intel" \
		"--asm-raw"; do
		# shellcheck disable=SC2086
		if ! pa annotate -i "$FIX" --symfs "$SYMFS" $o >cs.txt 2>cs.err ||
			! pa annotate -i "$FIX" --symfs "$SYMFS" --objdump objdump $o >od.txt 2>od.err; then
			fail "fixture '$o': pa annotate failed: $(head -n 2 cs.err od.err)"
			continue
		fi
		check_numbers "fixture '$o': capstone vs objdump listing" od.txt cs.txt
		if [ $have_perf = 1 ]; then
			# shellcheck disable=SC2086
			perf annotate -i "$FIX" --symfs "$SYMFS" --stdio $o >exp 2>/dev/null
			same "fixture '$o': pa annotate --objdump vs perf annotate" exp od.txt
		fi
	done
else
	note "no objdump: capstone's listing not compared with objdump's"
fi

# one page, every symbol of the text in it
if pa annotate -i "$FIX" --symfs "$SYMFS" --html -o page.html 2>html.err; then
	CHECKS=$((CHECKS + 1))
	if ! grep -q '^<!DOCTYPE html>' page.html || ! grep -q '<table class=code>' page.html; then
		fail "--html: not the page expected"
	fi
	sed -n 's/.*Disassembly of prog for [^ ]* (\([0-9]*\) samples.*/\1/p' cs.txt | head -n 1 >n.exp
	grep -q "($(cat n.exp) samples)" page.html || fail "--html: the hottest symbol's samples missing"
else
	fail "--html: pa failed: $(head -n 2 html.err)"
fi

# the page in headless Chromium: every symbol ranked and linked, source
# beside assembly, the hottest line shaded
CHROMIUM=${PA_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
nsyms=$(grep -c 'Source code & Disassembly' cs.txt)
if [ -z "$CHROMIUM" ] || ! command -v python3 >/dev/null 2>&1; then
	note "no chromium or python3: --html's page not checked in a browser"
elif [ -s cs.err ]; then
	note "fixture: symbols without bytes ($(head -n 1 cs.err)): page not checked in a browser"
else
	mkdir -p cdp
	python3 "$HERE/annotate_cdp.py" "$CHROMIUM" "$WORK/cdp" page.html "$nsyms" >cdp.out 2>&1
	st=$?
	CHECKS=$((CHECKS + 1))
	case $st in
	0) ;;
	77) note "chromium cannot be driven over the DevTools protocol: page not checked" ;;
	*) fail "--html: browser checks: $(grep FAIL cdp.out | head -n 3)" ;;
	esac
fi

# usage errors (exit 1), bad input (one line naming file and offset, exit 2)
for o in "--percent-type nope" "-M nope" "--html" "a b"; do
	# shellcheck disable=SC2086
	pa annotate -i "$FIX" --symfs "$SYMFS" $o >/dev/null 2>err
	st=$?
	CHECKS=$((CHECKS + 1))
	[ $st -eq 1 ] || fail "'$o': exit $st, not 1"
done
head -c 3000 "$FIX" >trunc.data
pa annotate -i trunc.data >out 2>err
st=$?
CHECKS=$((CHECKS + 1))
if [ $st -ne 2 ] || [ "$(wc -l <err)" -ne 1 ] || ! grep -q "^pa: 'trunc.data': .* at offset [0-9]" err; then
	fail "truncated input: exit $st, '$(head -n 2 err)'"
fi

# A symbol that runs on past its section: _init has no size, so perf ends
# it at the next symbol, and objdump lists .plt and .plt.got after .init,
# each under its heading. capstone's listing must go on as far (a recording
# with a sample in _init failed this once, its listing ending with .init).
if command -v python3 >/dev/null 2>&1; then
	BIN=$SYMFS/tmp/pa-inline/prog
	python3 "$HERE/annotate_gen.py" init.data "$BIN" 1000:3 1004:1 || fail "_init: generator failed"
	if pa annotate -i init.data -n >init.cs 2>init.err; then
		CHECKS=$((CHECKS + 1))
		grep -q 'Disassembly of section \.plt\.got:' init.cs ||
			fail "_init: capstone's listing stops before .plt.got"
		if [ $have_objdump = 1 ]; then
			pa annotate -i init.data -n --objdump objdump >init.od 2>init.err ||
				fail "_init: pa annotate --objdump failed: $(head -n 2 init.err)"
			check_numbers "_init: capstone vs objdump listing" init.od init.cs
		fi
	else
		fail "_init: pa annotate failed: $(head -n 2 init.err)"
	fi
	if [ $have_perf = 1 ] && [ $have_objdump = 1 ]; then
		perf annotate -i init.data --stdio -n >init.exp 2>/dev/null
		same "_init: pa annotate --objdump vs perf annotate" init.exp init.od
	fi
fi

# Symbols in perf annotate's order when several programs sample one: by
# the whole period of each symbol (perf 6.1 does not rank a symbol by one
# process's share), ties by DSO and symbol name. annorank_gen.py's two
# processes rank the three symbols one way by their own samples, another
# by all; the golden copy is the start addresses in perf 6.1's order
# (testdata/make-generated-golden.sh).
if command -v python3 >/dev/null 2>&1; then
	cp "$SYMFS/tmp/pa-inline/prog" rank-prog
	python3 "$HERE/annorank_gen.py" rank.data "$WORK/rank-prog" || fail "rank: generator failed"
	starts() { sed -nE -f "$TESTDATA/golden/annotate/starts.sed"; }
	if pa annotate -i rank.data --stdio >rank.cs 2>rank.err; then
		starts <rank.cs >rank.order
		same "rank: symbols in perf's order (golden)" "$TESTDATA/golden/annotate/rank.txt" rank.order
	else
		fail "rank: pa annotate failed: $(head -n 2 rank.err)"
	fi
	if [ $have_perf = 1 ] && [ $have_objdump = 1 ]; then
		perf annotate -i rank.data --stdio >rank.exp 2>/dev/null
		pa annotate -i rank.data --stdio --objdump objdump >rank.od 2>/dev/null
		same "rank: pa annotate --objdump vs perf annotate" rank.exp rank.od
	fi
fi

# ---- 1b. other architectures' code on this host (no perf needed) ------------------
# A recording written by annotate_gen.py (little-endian, as this host's)
# of one process that ran a function of another architecture (s390x, i386,
# aarch64, arm and thumb, ppc64 both endians, mips): instruction K of the
# function took K samples. pa annotate -n must show exactly that, at the
# addresses the cross objdump gives, whatever pa runs on.
# cross_case TRIPLE [CFLAGS...]: compiled by TRIPLE-gcc, else by clang
# --target=TRIPLE (linked by TRIPLE-ld); listed by TRIPLE-objdump
cross_case() {
	local triple=$1 arch=${1%%-*} od=$1-objdump v s k x
	shift
	local cc=("$triple-gcc")
	[ "$*" ] && arch=$arch$(printf '%s' "$*" | tr -d ' =')
	command -v "${cc[0]}" >/dev/null 2>&1 || cc=(clang "--target=$triple")
	if ! command -v "${cc[0]}" >/dev/null 2>&1 || ! command -v "$od" >/dev/null 2>&1 ||
		! command -v readelf >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
		note "$arch: no $triple-gcc or clang, $od, readelf or python3: not checked"
		return
	fi
	echo 'int f(int x){int s=0;for(int i=0;i<x;i++)s+=i*i;return s;}' >"x.c"
	if ! "${cc[@]}" "$@" -O2 -g -nostdlib -static -Wl,-e,f -o "$PWD/x.$arch" x.c 2>cc.err; then
		note "$arch: ${cc[*]} cannot link a freestanding program: not checked ($(head -n 1 cc.err))"
		return
	fi
	cross_check "$arch" "$PWD/x.$arch" f "$od"
}

# cross_check NAME BINARY SYMBOL OBJDUMP: a recording of SYMBOL's
# instructions in BINARY, K samples at the Kth, annotated
cross_check() {
	local arch=$1 bin=$2 sym=$3 od=$4 v s k x
	# (the code's address as objdump heads it: a thumb function's symbol
	# has bit 0 set, ppc64's ELFv1 symbol is its descriptor in .opd)
	s=$(readelf -sW --dyn-syms "$bin" | awk -v f="$sym" '$8 == f || index($8, f "@") == 1 {print $3; exit}')
	v=$("$od" -d "$bin" | sed -n "s/^0*\([0-9a-f]*\) <\.\{0,1\}$sym\(@[^>]*\)\{0,1\}>:\$/\1/p" | head -n 1)
	if [ -z "$s" ] || [ -z "$v" ]; then
		fail "$arch: no function $sym in $bin"
		return
	fi
	"$od" -d --start-address=0x"$v" --stop-address="$(printf '0x%x' $((0x$v + s)))" "$bin" |
		sed -nE 's/^ *([0-9a-f]+):.*/\1/p' >"$arch.addrs"
	local args=() expect=() total=0
	k=1
	while read -r x; do
		args+=("$x:$k")
		expect+=("$k $x")
		total=$((total + k))
		k=$((k + 1))
	done <"$arch.addrs"
	python3 "$HERE/annotate_gen.py" "$arch.data" "$bin" "${args[@]}" ||
		{ fail "$arch: generator failed"; return; }
	if ! pa annotate -i "$arch.data" -n >"$arch.cs" 2>"$arch.err"; then
		fail "$arch: pa annotate failed: $(head -n 2 "$arch.err")"
		return
	fi
	printf '%s\n' "${expect[@]}" >"$arch.exp"
	awk '/ : +[0-9a-f]+:/ {print $1, $3}' "$arch.cs" | sed 's/:$//' >"$arch.got"
	same "$arch: capstone listing's samples per instruction" "$arch.exp" "$arch.got"
	CHECKS=$((CHECKS + 1))
	! grep -q '(bad)' "$arch.cs" || fail "$arch: capstone could not decode: $(grep -m 1 '(bad)' "$arch.cs")"
	CHECKS=$((CHECKS + 1))
	grep -q "Disassembly of ${bin##*/} for cpu-clock ($total samples, " "$arch.cs" ||
		fail "$arch: header without the $total samples"
	pa annotate -i "$arch.data" -n --objdump "$od" >"$arch.od" 2>"$arch.err" ||
		fail "$arch: pa annotate --objdump $od failed: $(head -n 2 "$arch.err")"
	check_numbers "$arch: capstone vs $od listing" "$arch.od" "$arch.cs"
}
cross_case s390x-linux-gnu
cross_case i686-linux-gnu
cross_case aarch64-linux-gnu
cross_case arm-linux-gnueabihf -mthumb
# (arm code with a literal pool: a data word among the instructions)
cross_case arm-linux-gnueabihf -marm -march=armv5te -mfloat-abi=soft
cross_case powerpc64le-linux-gnu
cross_case powerpc64-linux-gnu
cross_case mips-linux-gnu
# a real binary of each qemu target: the sysroots' libc (scripts/sysroot)
for t in s390x:s390x-linux-gnu i386:i686-linux-gnu; do
	lib=$(find "${PA_SYSROOT_DIR:-$HOME_REAL/.cache/pa-sysroots}/${t%%:*}" -name libc.so.6 2>/dev/null | head -n 1)
	if [ -z "$lib" ] || ! command -v "${t#*:}-objdump" >/dev/null 2>&1; then
		note "${t%%:*} libc: no sysroot (scripts/sysroot ${t%%:*}) or ${t#*:}-objdump: not checked"
		continue
	fi
	cross_check "libc-${t%%:*}" "$lib" getenv "${t#*:}-objdump"
done

# JIT code (perf-PID.map names, no bytes): one line on stderr, no text;
# the map as pa archive files it in a build-id cache
if command -v python3 >/dev/null 2>&1 && command -v sha1sum >/dev/null 2>&1; then
	printf '7f0000000000 40 jitfunc\n' >jit.map
	sha=$(sha1sum jit.map | cut -c1-40)
	mkdir -p "bc/tmp/perf-4242.map/$sha" "bc/.build-id/${sha:0:2}"
	cp jit.map "bc/tmp/perf-4242.map/$sha/perf-map"
	ln -s "../../tmp/perf-4242.map/$sha" "bc/.build-id/${sha:0:2}/${sha:2}"
	python3 "$HERE/annotate_gen.py" jit.data //anon 7f0000000010:3 7f0000000020:2 ||
		fail "jit: generator failed"
	pa annotate -i jit.data --buildid-dir bc >out 2>err
	st=$?
	CHECKS=$((CHECKS + 1))
	if [ $st -ne 0 ] || [ -s out ] || [ "$(wc -l <err)" -ne 1 ] ||
		! grep -q "^pa: annotate: no bytes for 'jitfunc' in '/tmp/perf-4242.map': JIT code" err; then
		fail "jit: exit $st, stdout $(wc -c <out) bytes, stderr '$(head -n 2 err)'"
	fi
fi

# ---- 2. a recording made now ----------------------------------------------------
if [ $have_perf = 0 ] || [ $have_objdump = 0 ] || ! command -v gcc >/dev/null 2>&1; then
	note "no perf, objdump or gcc: no recording compared"
	finish
fi
write_hot_c
gcc -O2 -g -o hot hot.c || skip "cannot build the workload"
perf record -q -F 4999 -o hot.data -- ./hot 150 >/dev/null 2>rec.err ||
	skip "perf record does not work here: $(head -n 2 rec.err | tr '\n' ' ')"
[ -s hot.data ] || skip "perf record wrote nothing"

# the ten hottest user symbols, as perf report ranks them (all when fewer)
hottest_syms hot.data 10 >hottest
[ -s hottest ] || fail "perf report names no user symbol"

opts=("" "-n" "--show-total-period" "--percent-type global-period" "--percent-type local-hits"
	"--percent-type global-hits" "--percent-limit 1" "--asm-raw" "-l" "--no-source" "-M intel"
	"-d hot" "-P")
for o in "${opts[@]}"; do
	in_subset $((CASE++)) || continue
	# shellcheck disable=SC2086
	perf annotate -i hot.data --stdio $o >exp 2>/dev/null
	# shellcheck disable=SC2086
	if ! pa annotate -i hot.data --stdio --objdump objdump $o >got 2>got.err; then
		fail "'$o': pa annotate --objdump failed: $(head -n 2 got.err)"
		continue
	fi
	same_l "whole file '$o': pa annotate --objdump vs perf annotate" exp got
	case $o in
	"-M intel" | "--no-source" | "-l") ;; # (text only: capstone's differs)
	*)
		# shellcheck disable=SC2086
		pa annotate -i hot.data --stdio $o >cs 2>cs.err ||
			fail "'$o': pa annotate failed: $(head -n 2 cs.err)"
		check_numbers "whole file '$o': capstone listing's numbers vs perf's" exp cs
		;;
	esac
done
# per_symbol DATA WHAT: for each symbol in the file "hottest", perf
# annotate SYMBOL's text equals pa --objdump's, and capstone's listing
# (-s SYMBOL) has its numbers; pa must name each symbol as perf does.
per_symbol() {
	local data=$1 what=$2 sym o k=0 pct
	while IFS= read -r sym; do
		# -n (the samples per instruction) for each, and by turns the
		# default and --percent-type global-period (the percentages)
		pct=
		[ $((k++ % 2)) = 1 ] && pct="--percent-type global-period"
		for o in "-n" "$pct"; do
			in_subset $((CASE++)) || continue
			# shellcheck disable=SC2086
			perf annotate -i "$data" --stdio $o "$sym" >exp 2>/dev/null
			CHECKS=$((CHECKS + 1))
			grep -q 'Source code & Disassembly' exp ||
				fail "$what: perf annotate $o '$sym' printed no listing"
			# shellcheck disable=SC2086
			pa annotate -i "$data" --stdio --objdump objdump $o "$sym" >got 2>got.err
			same "$what: $sym '$o': pa annotate --objdump vs perf annotate" exp got
			# shellcheck disable=SC2086
			pa annotate -i "$data" $o -s "$sym" >cs 2>cs.err
			check_numbers "$what: $sym '$o': capstone listing's numbers vs perf's" exp cs
		done
	done <hottest
}
per_symbol hot.data C

# -l with capstone's listing: perf's per-line summaries, the same numbers
# (the " // FILE:LINE" after instructions: see same_l)
# check_lines DATA WHAT [EXP: perf annotate --stdio -l's text, made already]
check_lines() {
	if [ $# -lt 3 ]; then
		perf annotate -i "$1" --stdio -l >exp 2>/dev/null
	elif [ "$3" != exp ]; then
		cp "$3" exp
	fi
	pa annotate -i "$1" -l >cs 2>cs.err || fail "$2 -l: pa annotate failed: $(head -n 2 cs.err)"
	summaries exp >exp.sum
	summaries cs >cs.sum
	[ -s exp.sum ] || fail "$2 -l: perf printed no summary"
	same "$2 -l: capstone listing's source line summaries vs perf's" exp.sum cs.sum
}
check_lines hot.data C

# -C, the report filter perf annotate has: a recording with CPUs, each CPU
# of it (the workload moves between them), by --objdump's whole text
if perf record -q -F 4999 --sample-cpu -o cpu.data -- ./hot 60 >/dev/null 2>rec.err; then
	for c in 0 1; do
		perf annotate -i cpu.data --stdio -n -C $c >exp 2>/dev/null
		pa annotate -i cpu.data --stdio -n -C $c --objdump objdump >got 2>got.err
		same "-C $c: pa annotate --objdump vs perf annotate" exp got
	done
	perf annotate -i cpu.data --stdio -n >exp.all 2>/dev/null
	cmp -s exp exp.all && note "-C: all samples on one CPU here (the filter changed nothing)"
else
	note "-C: perf record --sample-cpu failed here: $(head -n 1 rec.err)"
fi

# two events, and two events recorded as a group (perf shows the group's
# members side by side, the leader's numbers ranking the symbols; a symbol
# only the members sampled is not shown: "lead" samples its leader 50 times
# less often, so its members see symbols the leader does not; it runs 5
# times longer, for its leader to have samples at all; -s asks for the
# hottest symbol of the recording's first event, whatever it is)
for ev in "two|cpu-clock,task-clock|60" "group|{cpu-clock,task-clock}|60" \
	"lead|{cpu-clock/period=10000000/,task-clock/period=200000/}|300"; do
	IFS='|' read -r name e rounds <<<"$ev"
	if ! perf record -q -e "$e" -F 2999 -o "$name.data" -- ./hot "$rounds" >/dev/null 2>rec.err; then
		note "$name: perf record -e '$e' failed here: $(head -n 1 rec.err)"
		continue
	fi
	hot_sym=$(hottest_syms "$name.data" 1)
	for o in "" "-n" "-l" "--percent-type global-period" "--show-total-period -s ${hot_sym:-bsort}"; do
		in_subset $((CASE++)) || continue
		# shellcheck disable=SC2086
		perf annotate -i "$name.data" --stdio $o >exp 2>/dev/null
		# shellcheck disable=SC2086
		pa annotate -i "$name.data" --objdump objdump $o >got 2>got.err
		same_l "$name '$o': pa annotate --objdump vs perf annotate" exp got
		[ "$o" = -l ] && continue
		# shellcheck disable=SC2086
		pa annotate -i "$name.data" $o >cs 2>cs.err
		check_numbers "$name '$o': capstone listing's numbers vs perf's" exp cs
	done
done
# a group whose leader never sampled: perf annotate shows nothing
if perf record -q -e '{cpu-clock/period=50000000000/,task-clock}' -F 2999 -o quiet.data \
	-- ./hot 20 >/dev/null 2>rec.err; then
	pa annotate -i quiet.data >cs 2>cs.err || fail "quiet leader: pa annotate failed: $(head -n 1 cs.err)"
	CHECKS=$((CHECKS + 1))
	[ ! -s cs ] || fail "quiet leader: symbols shown that only the group's member sampled: $(head -n 1 cs)"
else
	note "quiet leader: perf record failed here: $(head -n 1 rec.err)"
fi

# inlined code: the capstone listing names the inlined function, as
# objdump -l does
pa annotate -i hot.data lcg >cs 2>/dev/null
CHECKS=$((CHECKS + 1))
grep -q ': [0-9]* *mix():$' cs || fail "lcg: the code inlined from mix() is not named"

# kernel symbols without an image: one note on stderr per DSO, no text
if perf report -i hot.data --stdio --sort dso 2>/dev/null | grep -q '\[kernel\.kallsyms\]'; then
	pa annotate -i hot.data >/dev/null 2>err
	CHECKS=$((CHECKS + 1))
	[ "$(grep -c "in '\[kernel.kallsyms\]'" err)" -eq 1 ] ||
		fail "kernel samples: not one note: $(head -n 3 err)"
fi

# ---- 3. a C++ recording made now ------------------------------------------------
# testdata/src/inline.cpp (std::sort, std::map, a recursive template) with
# g++ -O2 -g: the same checks on its ten hottest symbols (C++ names, code
# inlined from the standard headers), the whole file's text with
# --objdump, capstone's numbers and -l's per-line summaries.
if ! command -v g++ >/dev/null 2>&1; then
	note "no g++: no C++ recording compared"
	finish
fi
g++ -O2 -g -DPA_NO_REGEX -o inl "$TESTDATA/src/inline.cpp" || skip "cannot build the C++ workload"
perf record -q -F 4999 -o inl.data -- ./inl 4 >/dev/null 2>rec.err ||
	fail "C++: perf record failed: $(head -n 2 rec.err | tr '\n' ' ')"
hottest_syms inl.data 10 >hottest
# (a C++ name among them whatever the recording: when the ten hottest have
# none, the hottest one that has "::" takes the tenth place)
if ! grep -q '::' hottest; then
	hottest_syms inl.data 1000 | grep -m 1 '::' >cxx.sym
	[ -s cxx.sym ] && { head -n 9 hottest && cat cxx.sym; } >hottest.new && mv hottest.new hottest
fi
CHECKS=$((CHECKS + 1))
grep -q '::' hottest || fail "C++: no C++ name among the symbols with samples: $(tr '\n' ' ' <hottest)"
# (the whole file: the default and -l; -n per symbol below)
CASE=1
for o in "" "-l"; do
	in_subset $((CASE++)) || continue
	# shellcheck disable=SC2086
	perf annotate -i inl.data --stdio $o >exp 2>/dev/null
	# shellcheck disable=SC2086
	pa annotate -i inl.data --stdio --objdump objdump $o >got 2>got.err ||
		fail "C++ '$o': pa annotate --objdump failed: $(head -n 2 got.err)"
	same_l "C++ whole file '$o': pa annotate --objdump vs perf annotate" exp got
	if [ "$o" = -l ]; then
		check_lines inl.data C++ exp
		continue
	fi
	# shellcheck disable=SC2086
	pa annotate -i inl.data --stdio $o >cs 2>cs.err ||
		fail "C++ '$o': pa annotate failed: $(head -n 2 cs.err)"
	check_numbers "C++ whole file '$o': capstone listing's numbers vs perf's" exp cs
done
per_symbol inl.data C++
finish
