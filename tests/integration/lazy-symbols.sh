#!/usr/bin/env bash
# Nothing is read that the output does not need: pa report sorted by keys
# that show no symbol (comm, pid, tid, cpu, dso), without call graphs, opens
# no symbol table (no ELF file of a sampled DSO, no kallsyms) and still
# prints perf's report; a symbol key, a call graph, --symbols or -v do
# open them. Seen with strace on a recording made here (user and kernel
# samples: mt's threads call getppid). Natively only: strace of an emulator
# would show its own files.
#
# One rule of perf's is kept: where a report shows the dso column and no
# DSO name is as wide as an unresolved symbol's column (16), perf's column
# width depends on whether the entries' samples had symbols, so pa reads
# them (a recording without kernel samples, where "[kernel.kallsyms]" is
# not a row); this test checks that too, on its recording's own rows.
. "$(dirname "$0")/lib.sh"
need_perf
cd "$WORK" || exit 1
[ -n "$PA_EMU" ] && skip "pa runs under '$PA_EMU': strace would trace the emulator"
command -v strace >/dev/null 2>&1 || skip "no strace on this machine"
command -v cc >/dev/null 2>&1 || skip "no C compiler"
cc -O1 -g -fno-omit-frame-pointer -pthread -o mt "$TESTDATA/src/mt.c" || skip "cannot build mt.c"
export HOME=$WORK/home
mkdir -p "$HOME"
if ! perf record -q -g -F 1999 -o rec.data -- ./mt 300 >/dev/null 2>rec.err; then
	skip "perf record does not work here: $(head -n 2 rec.err | tr '\n' ' ')"
fi
MT=$(readlink -f mt)

# opened OPTS...: the files pa report opens (openat/open that succeeded)
opened() {
	strace -f -qq -e trace=open,openat -e signal=none -o trace.out \
		"$PA_BIN" report -i rec.data --stdio "$@" >pa.out 2>/dev/null
	grep -v "= -1 " trace.out | sed -n 's/.*open[a-z]*([^"]*"\([^"]*\)".*/\1/p' >files.out
}
# reads_syms: the ELF file of mt (or its copy in the cache) or a kallsyms
# was opened
reads_syms() {
	grep -q -e "kallsyms" -e "$MT\$" -e "$MT/" -e "\.debug/.build-id" files.out
}

# (tid: pa's key, perf 6.1 has none to compare with)
# (a DSO name of 16 or more characters among the rows: the kernel's)
wide=$(perf report -i rec.data --stdio --sort dso -g none --no-children 2>/dev/null |
	awk '!/^#/ && NF >= 2 && length($2) >= 16 {print $2; exit}')
[ -n "$wide" ] || note "no DSO name of 16 characters or more (no kernel sample): the dso rows need symbols"
for keys in comm pid tid cpu dso comm,dso; do
	opened --sort "$keys" -g none --no-children
	CHECKS=$((CHECKS + 1))
	if [[ ,$keys, == *,dso,* ]] && [ -z "$wide" ]; then
		reads_syms || fail "--sort $keys: only short DSO names, yet no symbol table opened"
	elif reads_syms; then
		fail "--sort $keys: symbol tables opened: $(grep -e kallsyms -e "$MT" -e build-id files.out | head -n 3 | tr '\n' ' ')"
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
