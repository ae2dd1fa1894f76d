#!/usr/bin/env bash
# Nothing is read that the output does not need: pa report sorted by keys
# that show no symbol (comm, pid, tid, cpu, dso), without call graphs, opens
# no symbol table (no ELF file of a sampled DSO, no kallsyms) and still
# prints perf's report; a symbol key, a call graph, --symbols or -v do
# open them. Seen with strace on a recording made here (user and kernel
# samples). Natively only: strace of an emulator would show its own files.
. "$(dirname "$0")/lib.sh"
need_perf
cd "$WORK" || exit 1
[ -n "$PA_EMU" ] && skip "pa runs under '$PA_EMU': strace would trace the emulator"
command -v strace >/dev/null 2>&1 || skip "no strace on this machine"
command -v cc >/dev/null 2>&1 || skip "no C compiler"
cc -O1 -g -fno-omit-frame-pointer -o burn "$TESTDATA/src/burn.c" || skip "cannot build burn.c"
export HOME=$WORK/home
mkdir -p "$HOME"
if ! perf record -q -g -F 1999 -o rec.data -- ./burn 300 >/dev/null 2>rec.err; then
	skip "perf record does not work here: $(head -n 2 rec.err | tr '\n' ' ')"
fi
BURN=$(readlink -f burn)

# opened OPTS...: the files pa report opens (openat/open that succeeded)
opened() {
	strace -f -qq -e trace=open,openat -e signal=none -o trace.out \
		"$PA_BIN" report -i rec.data --stdio "$@" >pa.out 2>/dev/null
	grep -v "= -1 " trace.out | sed -n 's/.*open[a-z]*([^"]*"\([^"]*\)".*/\1/p' >files.out
}
# reads_syms WHAT: the ELF file of burn or a kallsyms was opened
reads_syms() {
	grep -q -e "kallsyms" -e "$BURN" -e "/burn" -e "\.debug/.build-id" files.out
}

# (tid: pa's key, perf 6.1 has none to compare with)
for keys in comm pid tid cpu dso comm,dso; do
	opened --sort "$keys" -g none --no-children
	CHECKS=$((CHECKS + 1))
	if reads_syms; then
		fail "--sort $keys: symbol tables opened: $(grep -e kallsyms -e burn -e build-id files.out | head -n 3 | tr '\n' ' ')"
	fi
	[ "$keys" = tid ] && continue
	perf report -i rec.data --stdio --sort "$keys" -g none --no-children 2>/dev/null |
		grep -v '^# (Tip' >perf.out
	same "--sort $keys: pa report is perf's" perf.out pa.out
done
# what shows symbols reads them
for opts in "--sort sym -g none --no-children" "--sort comm" "--sort comm -g none --no-children -S main" \
	"--sort comm -g none --no-children -v"; do
	# shellcheck disable=SC2086 # options split on purpose
	opened $opts
	CHECKS=$((CHECKS + 1))
	reads_syms || fail "$opts: no symbol table opened: $(tr '\n' ' ' <files.out | head -c 400)"
done
finish
