#!/usr/bin/env bash
# pa report vs perf report on programs whose symbols need more than a
# .symtab: C++ (demangling), a stripped binary with a separate debug file
# found through .gnu_debuglink, and a stripped binary with MiniDebugInfo
# (.gnu_debugdata). Recorded now, on this machine.
. "$(dirname "$0")/lib.sh"
need_perf
cd "$WORK" || exit 1
command -v g++ >/dev/null 2>&1 || skip "no g++"
command -v objcopy >/dev/null 2>&1 || skip "no objcopy"

cat >prog.cc <<'CC'
#include <cstdlib>
#include <vector>
namespace work {
template <typename T> struct Box {
	__attribute__((noinline)) T spin(T x) const {
		for (int i = 0; i < 2000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
		return x;
	}
};
__attribute__((noinline)) unsigned long long churn(std::vector<int> &v, unsigned long long s) {
	Box<unsigned long long> b;
	for (int &x : v) s = b.spin(s + x);
	return s;
}
}
int main(int argc, char **argv) {
	std::vector<int> v(64, 3);
	unsigned long long s = 1;
	int n = argc > 1 ? std::atoi(argv[1]) : 400;
	for (int i = 0; i < n; i++) s = work::churn(v, s);
	return s == 42 ? 1 : 0;
}
CC
g++ -O1 -g -fno-omit-frame-pointer -o cxx prog.cc || skip "cannot build the C++ program"
perf record -q -g -F 1999 -o cxx.data ./cxx 400 >/dev/null 2>&1 || skip "perf record does not work here"

# debuglink: the symbols live only in cxx-dl.debug next to the binary
cp cxx cxx-dl
objcopy --only-keep-debug cxx-dl cxx-dl.debug
objcopy --strip-all --add-gnu-debuglink=cxx-dl.debug cxx-dl
perf record -q -F 1999 -o dl.data ./cxx-dl 400 >/dev/null 2>&1

for f in cxx.data dl.data; do
	# (the program's DSO is cxx in one recording, cxx-dl in the other)
	for o in "--sort comm,dso,sym" "--sort sym" "--dsos cxx,cxx-dl --sort sym" "--sort dso,sym,srcline"; do
		# shellcheck disable=SC2086
		perf report -i $f --stdio -q --no-children -g none $o >exp 2>/dev/null
		# shellcheck disable=SC2086
		pa report -i $f --stdio -q --no-children -g none $o >got 2>got.err
		same_cut_srclines "$f report $o" exp got
	done
	perf report -i $f --stdio 2>/dev/null | grep -v '^# (Tip' >exp
	pa report -i $f --stdio >got 2>/dev/null
	# (siblings of equal percentage: perf's order is its heap addresses)
	same_graphs "$f report (call graphs)" exp got
done
CHECKS=$((CHECKS + 1))
grep -q 'work::Box<unsigned long long>::spin' got || fail "no demangled C++ name in pa's report"

# MiniDebugInfo: pa reads .gnu_debugdata; perf 6.1 does only when built
# with lzma, else it shows addresses (a known, deliberate difference): pa
# must name the functions; the rows per DSO are perf's; so are all rows
# where perf names them too, else those of the other DSOs. (Not a count of
# rows: perf's address rows are one per sampled address, as many as the
# sampling happened to hit.)
# Stripped of all but .dynsym, whose symbols are all imports: perf
# still reads its tables from the file, and -v's letter of where they came
# from is "d" (the path), not "!" (no tables)
# (a build of its own, recorded without caching it: no copy with its
# build-id, and its symbols, in the cache)
g++ -O2 -fno-omit-frame-pointer -o cxx-bare prog.cc && objcopy --strip-all cxx-bare &&
	perf record -q -N -F 1999 -o bare.data ./cxx-bare 400 >/dev/null 2>&1
if [ -s bare.data ]; then
	pa report -i bare.data --stdio -v --no-children -g none --sort dso,sym 2>/dev/null |
		grep -v '^# (Tip' >got
	perf report -i bare.data --stdio -v --no-children -g none --sort dso,sym 2>/dev/null |
		grep -v '^# (Tip' >exp
	CHECKS=$((CHECKS + 1))
	grep -q 'cxx-bare  *0x[0-9a-f]*  *d \[\.\]' got ||
		fail "-v: the stripped binary's rows are not marked d: $(grep -m 1 cxx-bare got)"
	same "-v: a binary stripped to its imports" exp got
fi

if command -v xz >/dev/null 2>&1 && command -v nm >/dev/null 2>&1; then
	cp cxx cxx-mini
	nm -D cxx-mini --format=posix --defined-only | awk '{print $1}' | sort >dynsyms
	nm cxx-mini --format=posix --defined-only | awk '$2 ~ /[TtWw]/ {print $1}' | sort >funcs
	comm -13 dynsyms funcs >keep
	objcopy --only-keep-debug cxx-mini mini.debug
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep mini.debug mini
	xz -f mini
	objcopy --strip-all --add-section .gnu_debugdata=mini.xz cxx-mini
	perf record -q -F 1999 -o mini.data ./cxx-mini 400 >/dev/null 2>&1
	if [ -s mini.data ]; then
		pa report -i mini.data --stdio -q --no-children -g none --sort dso,sym >got 2>/dev/null
		perf report -i mini.data --stdio -q --no-children -g none --sort dso,sym >exp 2>/dev/null
		CHECKS=$((CHECKS + 1))
		grep -q 'cxx-mini .*\[\.\] work::Box<unsigned long long>::spin' got ||
			fail "pa did not read MiniDebugInfo: $(head -n 3 got)"
		pa report -i mini.data --stdio -q --no-children -g none --sort dso >got.dso 2>/dev/null
		perf report -i mini.data --stdio -q --no-children -g none --sort dso >exp.dso 2>/dev/null
		same "MiniDebugInfo: rows per DSO" exp.dso got.dso
		if grep -q 'cxx-mini .*\[\.\] work::Box<unsigned long long>::spin' exp; then
			same "MiniDebugInfo: rows (perf reads .gnu_debugdata too)" exp got
		else
			note "perf does not read .gnu_debugdata here: cxx-mini's rows compared per DSO only"
			grep -v '^ *[0-9.]*%  cxx-mini ' exp >exp.other
			grep -v '^ *[0-9.]*%  cxx-mini ' got >got.other
			same "MiniDebugInfo: rows of the other DSOs" exp.other got.other
		fi
	fi
fi
finish
