#!/usr/bin/env bash
# Rebuild the committed ELF seeds in fuzz/seeds/elf/ (tiny, no libc):
# static and shared x86-64, i386 and s390x (big-endian) executables, a PLT,
# .dynsym only, MiniDebugInfo (.gnu_debugdata), .gnu_debuglink and a
# separate debug file. Needs gcc, i686-linux-gnu-gcc, s390x-linux-gnu-gcc
# (scripts/deps --cross), objcopy and xz.
set -euo pipefail
out=$(cd "$(dirname "$0")" && pwd)/seeds/elf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cat >t.c <<'SRC'
int counter;
static int helper(int x) { return x * 3 + counter; }
__attribute__((weak)) int weak_fn(int x) { return x - 1; }
int _ZN2ns1K1mEi(int x) { return helper(x) + 1; }
int leaf(int x) { return weak_fn(x) ^ 5; }
void _start(void) { counter = leaf(_ZN2ns1K1mEi(2)); for (;;) ; }
SRC
cat >lib.c <<'SRC'
extern int ext(int);
int exported(int x) { return ext(x) + 1; }
static int local_fn(int x) { return x * 7; }
int other(int x) { return local_fn(x) + ext(x + 1); }
SRC
# shellcheck disable=SC2054 # commas belong to the -Wl options
F=(-Os -fno-asynchronous-unwind-tables -fno-ident -nostdlib -Wl,-z,max-page-size=0x10
	-Wl,-z,norelro -Wl,--build-id=sha1 -Wl,--hash-style=gnu)
gcc "${F[@]}" -static -o exec-static t.c
i686-linux-gnu-gcc "${F[@]}" -static -o exec-i386 t.c
s390x-linux-gnu-gcc "${F[@]}" -static -o exec-s390x t.c
gcc "${F[@]}" -shared -fPIC -o lib.so lib.c
objcopy -S lib.so lib-dynsym-only.so
objcopy --only-keep-debug exec-static mini.dbg
objcopy -S exec-static stripped
xz -9 -c mini.dbg >mini.dbg.xz
objcopy --add-section .gnu_debugdata=mini.dbg.xz stripped mini-gnu-debugdata
objcopy -S --add-gnu-debuglink=mini.dbg exec-static with-debuglink
mkdir -p "$out"
cp exec-static exec-i386 exec-s390x lib.so lib-dynsym-only.so mini-gnu-debugdata with-debuglink \
	mini.dbg "$out/"
