#!/usr/bin/env bash
# test_srcinfo_fixtures.sh OUTDIR
#
# Builds the programs tests/unit/test_srcinfo.c reads into OUTDIR
# (recreated): the same small C source with DWARF (PIE, non-PIE, DWARF 4),
# without DWARF, fully stripped, and stripped with its DWARF in a separate
# debug file. The source has always_inline functions nested three deep (one
# from a header) so that addresses carry inline chains; "L_*" markers name
# the lines the test expects. Tools come from the environment, so a cross
# build can pass its own: CC, OBJCOPY, STRIP, SYSROOT_FLAGS.
set -euo pipefail

out=${1:?usage: $0 OUTDIR}
CC=${CC:-cc}
OBJCOPY=${OBJCOPY:-objcopy}
STRIP=${STRIP:-strip}
read -r -a sysroot <<<"${SYSROOT_FLAGS:-}"

rm -rf "$out"
mkdir -p "$out"
cd "$out"

cat >hdr.h <<'EOF'
static inline __attribute__((always_inline)) unsigned long hdr_step(unsigned long x)
{
	return x * 6364136223846793005ul + 1442695040888963407ul; /* L_HDR */
}
EOF

cat >prog.c <<'EOF'
#include "hdr.h"

volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long inner_inl(unsigned long x)
{
	sink = x; /* L_INNER */
	return hdr_step(x) ^ (x >> 7); /* L_INNER_CALL */
}

static inline __attribute__((always_inline)) unsigned long outer_inl(unsigned long x)
{
	return inner_inl(x + 1) + 3; /* L_OUTER_CALL */
}

__attribute__((noinline)) unsigned long work(unsigned long x)
{
	for (int i = 0; i < 100; i++)
		x = outer_inl(x); /* L_WORK_CALL */
	return x;
}

__attribute__((noinline)) static unsigned long helper(unsigned long x)
{
	return x * 3 + sink; /* L_HELPER */
}

int main(int argc, char **argv)
{
	(void)argv;
	sink = work((unsigned long)argc) + helper((unsigned long)argc);
	return 0;
}
EOF

cc=("$CC" "${sysroot[@]}" -O1 -fno-omit-frame-pointer)
"${cc[@]}" -g -o prog prog.c
"${cc[@]}" -g -no-pie -fno-pie -o prog_nopie prog.c
"${cc[@]}" -gdwarf-4 -o prog_dw4 prog.c
"${cc[@]}" -g0 -o prog_nodw prog.c
"$STRIP" --strip-all -o prog_stripped prog_nodw

# Stripped, DWARF and .symtab in a separate file (what a -dbg package has).
"$OBJCOPY" --only-keep-debug prog prog.debug
"$STRIP" --strip-all -o prog_dl prog
"$OBJCOPY" --add-gnu-debuglink=prog.debug prog_dl

# C++: static functions have no linkage name in GCC's DWARF, so that bfd
# names such a function after the ELF symbol covering the first address it
# is asked about where the function is innermost (its history: the order
# of the questions matters). Only where a C++ compiler for the target is.
CXX=${CXX:-c++}
cat >prog_cxx.cpp <<'EOF'
volatile unsigned long sink;
static inline __attribute__((always_inline)) unsigned long leaf_step(unsigned long x)
{
	sink = x;
	return x * 2862933555777941757ul + 3037000493ul;
}
static inline __attribute__((always_inline)) unsigned long mid_step(unsigned long x)
{
	for (int i = 0; i < 3; i++)
		x = leaf_step(x) ^ (x >> 3);
	return x;
}
__attribute__((noinline)) unsigned long pre(unsigned long x)
{
	return x * 7 + sink;
}
__attribute__((noinline)) unsigned long driver(unsigned long x)
{
	x = pre(x) + pre(x + 1); /* the inlined code starts later than driver */
	for (int i = 0; i < 50; i++)
		x = mid_step(x + (unsigned long)i);
	return x;
}
int main(int argc, char **)
{
	sink = driver((unsigned long)argc);
	return 0;
}
EOF
if ! "$CXX" "${sysroot[@]}" -O2 -g -o prog_cxx prog_cxx.cpp 2>/dev/null; then
	rm -f prog_cxx
	echo "no C++ compiler ($CXX): prog_cxx not built"
fi

echo "fixtures ready in $out"
