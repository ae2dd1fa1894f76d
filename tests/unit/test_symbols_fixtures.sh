#!/usr/bin/env bash
# test_symbols_fixtures.sh OUTDIR [TESTBIN]
#
# Builds the ELF files tests/unit/test_symbols.c reads, plus readelf "facts"
# about them, into OUTDIR (recreated). Tools come from the environment, so a
# cross build can pass its own: CC, CXX (optional; default derived from CC),
# OBJCOPY, STRIP, NM, READELF, XZ, SYSROOT_FLAGS. Optional outputs (C++,
# MiniDebugInfo) are simply not created when a tool is missing; the test
# skips what is absent. Facts: FILE.syms (readelf -sW), FILE.phdrs (-lW),
# FILE.secs (-SW), FILE.notes (-n), FILE.relocs (-rW).
set -euo pipefail

out=${1:?usage: $0 OUTDIR [TESTBIN]}
self=${2:-}
CC=${CC:-cc}
OBJCOPY=${OBJCOPY:-objcopy}
STRIP=${STRIP:-strip}
NM=${NM:-nm}
READELF=${READELF:-readelf}
XZ=${XZ:-xz}
read -r -a sysroot <<<"${SYSROOT_FLAGS:-}"
if [ -z "${CXX:-}" ]; then
	case $CC in
	*gcc) CXX=${CC%gcc}g++ ;;
	*clang) CXX=${CC}++ ;;
	*cc) CXX=${CC%cc}c++ ;;
	*) CXX=c++ ;;
	esac
fi

rm -rf "$out"
mkdir -p "$out"
cd "$out"

facts() {
	"$READELF" -sW "$1" >"$1.syms"
	"$READELF" -lW "$1" >"$1.phdrs"
	"$READELF" -SW "$1" >"$1.secs"
	"$READELF" -n "$1" >"$1.notes" 2>/dev/null || true
	"$READELF" -rW "$1" >"$1.relocs" 2>/dev/null || true
}

# The fixture: C for a static function, a PLT call and an object; assembler
# (data directives only, so any target assembles it) for symbol layouts
# that exercise perf's tie-break and fixup rules.
cat >fix.c <<'EOF'
#ifndef VARIANT
#define VARIANT 1
#endif
extern int ext_fn(int);
__attribute__((noinline)) static int s1(int x) { return x * 3 + VARIANT; }
int foo_exported(int x) { return s1(x) + ext_fn(x); }
const int robj[64] = {1, 2, VARIANT};
#if VARIANT == 2
int extra_fn(int x) { return x + 2; }
#endif

#define SYM(n, type, bind) "." bind " " n "\n.type " n ", %" type "\n"
__asm__(
	".text\n"
	".p2align 4\n"
	/* same address, same size: GLOBAL NOTYPE beats LOCAL FUNC (perf 6.1
	 * has no preference for typed symbols) */
	".type lfn, %function\n"
	"lfn:\n"
	".globl nlab\n"
	"nlab:\n"
	".fill 16,1,0\n"
	".size lfn, 16\n.size nlab, 16\n"
	/* weak < global; fewer leading underscores win */
	".p2align 4\n"
	SYM("wfn", "function", "weak") "wfn:\n"
	SYM("gfn", "function", "globl") "gfn:\n"
	SYM("__ufn", "function", "globl") "__ufn:\n"
	".fill 16,1,0\n"
	".size wfn, 16\n.size gfn, 16\n.size __ufn, 16\n"
	/* the longest name wins */
	".p2align 4\n"
	SYM("a1", "function", "globl") "a1:\n"
	SYM("a22", "function", "globl") "a22:\n"
	SYM("a3", "function", "globl") "a3:\n"
	".fill 16,1,0\n"
	".size a1, 16\n.size a22, 16\n.size a3, 16\n"
	/* a sized symbol beats a zero-sized one... */
	".p2align 4\n"
	".type zl0, %function\n"
	"zl0:\n"
	".type zl16, %function\n"
	"zl16:\n"
	".fill 16,1,0\n"
	".size zl0, 0\n.size zl16, 16\n"
	/* ...unless fixup_end (run before the duplicate check) has already
	 * given it the next symbol's start: here the zero-sized GLOBAL comes
	 * after the LOCAL in load order, ends at the next symbol, and wins */
	".p2align 4\n"
	SYM("zsz", "function", "globl") "zsz:\n"
	".type lsz, %function\n"
	"lsz:\n"
	".fill 16,1,0\n"
	".size zsz, 0\n.size lsz, 16\n"
	/* equal in everything: not the "SyS" alias */
	".p2align 4\n"
	SYM("SyS_abc", "function", "globl") "SyS_abc:\n"
	SYM("sys_abc", "function", "globl") "sys_abc:\n"
	".fill 16,1,0\n"
	".size SyS_abc, 16\n.size sys_abc, 16\n"
	/* a zero-sized label gets its end from the next symbol */
	".p2align 4\n"
	".globl zlabel\n"
	"zlabel:\n"
	".fill 32,1,0\n"
	SYM("afterz", "function", "globl") "afterz:\n"
	".fill 16,1,0\n"
	".size afterz, 16\n"
	/* mangled names */
	".p2align 4\n"
	SYM("\"_ZN4core3fmt5write17h0123456789abcdefE\"", "function", "globl")
	"\"_ZN4core3fmt5write17h0123456789abcdefE\":\n"
	".fill 16,1,0\n"
	".size \"_ZN4core3fmt5write17h0123456789abcdefE\", 16\n"
	SYM("camlFoo__bar_123", "function", "globl") "camlFoo__bar_123:\n"
	".fill 16,1,0\n"
	".size camlFoo__bar_123, 16\n"
	SYM("\"Ljava/lang/String;valueOf([CII)Ljava/lang/String;\"", "function", "globl")
	"\"Ljava/lang/String;valueOf([CII)Ljava/lang/String;\":\n"
	".fill 16,1,0\n"
	".size \"Ljava/lang/String;valueOf([CII)Ljava/lang/String;\", 16\n"
	/* labels count only in sections named *text* or *data* */
	".section .rodata\n"
	".globl rolabel\n"
	"rolabel:\n"
	".fill 16,1,0\n"
	".section .fixnote,\"a\"\n"
	".globl badlab\n"
	"badlab:\n"
	".fill 16,1,0\n"
	".text\n");
EOF

so=(-O1 -fPIC -shared "${sysroot[@]}")
"$CC" "${so[@]}" -Wl,--build-id=sha1 -o libfix.so fix.c
facts libfix.so

# .symtab has "fe", .dynsym "foo_exported": perf loads both, longer wins
cp libfix.so librename.so
"$OBJCOPY" --redefine-sym foo_exported=fe librename.so
facts librename.so

# A different build (other build-id) of the same source.
"$CC" "${so[@]}" -DVARIANT=2 -Wl,--build-id=sha1 -o libother.so fix.c
"$OBJCOPY" --only-keep-debug libother.so libother.debug

# Stripped + .gnu_debuglink to a .debug file next to it.
mkdir dl
cp libfix.so dl/libdl.so
"$OBJCOPY" --only-keep-debug dl/libdl.so dl/libdl.so.debug
"$STRIP" --strip-all dl/libdl.so
(cd dl && "$OBJCOPY" --add-gnu-debuglink=libdl.so.debug libdl.so)
facts dl/libdl.so

# No build-id: the debuglink CRC decides. crc/ has the right .debug file,
# crcbad/ the same stripped file next to a .debug of another build.
mkdir crc crcbad
"$CC" "${so[@]}" -Wl,--build-id=none -o crc/libcrc.so fix.c
"$CC" "${so[@]}" -DVARIANT=2 -Wl,--build-id=none -o crcbad/other.so fix.c
"$OBJCOPY" --only-keep-debug crc/libcrc.so crc/libcrc.so.debug
"$STRIP" --strip-all crc/libcrc.so
(cd crc && "$OBJCOPY" --add-gnu-debuglink=libcrc.so.debug libcrc.so)
facts crc/libcrc.so.debug
cp crc/libcrc.so crcbad/libcrc.so
"$OBJCOPY" --only-keep-debug crcbad/other.so crcbad/libcrc.so.debug
rm crcbad/other.so

# A debuglink that names the file itself (a hard link): never followed.
mkdir self
cp libfix.so self/libself.so
cp libfix.so self/libself.dbg
(cd self && "$OBJCOPY" --add-gnu-debuglink=libself.dbg libself.so)
rm self/libself.dbg
ln self/libself.so self/libself.dbg

# MiniDebugInfo, the way Fedora builds it.
if command -v "$XZ" >/dev/null; then
	mkdir mini
	cp libfix.so mini/libmini.so
	(
		cd mini
		"$NM" -D libmini.so --format=posix --defined-only | awk '{ print $1 }' | sort >dynsyms
		"$NM" libmini.so --format=posix --defined-only |
			awk '{ if ($2 == "T" || $2 == "t" || $2 == "D") print $1 }' | sort >funcsyms
		comm -13 dynsyms funcsyms >keep_symbols
		"$OBJCOPY" --only-keep-debug libmini.so debug
		"$OBJCOPY" -S --remove-section .gdb_index --remove-section .comment \
			--keep-symbols=keep_symbols debug mini_debuginfo
		"$STRIP" --strip-all -R .comment libmini.so
		"$XZ" -f mini_debuginfo
		"$OBJCOPY" --add-section .gnu_debugdata=mini_debuginfo.xz libmini.so
		rm -f debug dynsyms funcsyms keep_symbols mini_debuginfo.xz
	)
fi

# C++ demangling.
cat >cxx.cc <<'EOF'
namespace ns {
struct K {
	int m(int a, const char *b) const;
};
} // namespace ns
int ns::K::m(int a, const char *b) const { return a + b[0]; }
EOF
if command -v "$CXX" >/dev/null && "$CXX" "${so[@]}" -o libcxx.so cxx.cc 2>/dev/null; then
	facts libcxx.so
fi

if [ -n "$self" ]; then
	cp "$self" selfbin
	facts selfbin
fi
echo "fixtures ready in $out"
