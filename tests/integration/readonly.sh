#!/usr/bin/env bash
# Read-only commands write no build-id cache: pa report, folded and
# flamegraph on a pipe recording made here (no build-ids recorded: the
# [vdso] symbols come from the running vdso, read in memory, as perf names
# them) leave an empty HOME empty, and report -v says where the vdso's
# symbols came from. The rows equal perf's. On another machine (an
# emulator) the running vdso is not the recording's: checked natively only.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
cd "$WORK" || exit 1
[ -z "$PA_EMU" ] || skip "the running vdso is the recording's only on the recording host"
command -v cc >/dev/null 2>&1 || skip "no C compiler"
cat >vd.c <<'C'
#include <time.h>
int main(void)
{
	struct timespec t;
	unsigned long s = 0;
	for (long i = 0; i < 4000000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		s += (unsigned long)t.tv_nsec;
	}
	return (int)(s & 1);
}
C
cc -O1 -o vd vd.c || skip "cannot build vd.c"
mkdir -p rec home
HOME=$WORK/rec perf record -q -g -o - ./vd 2>/dev/null >vd.data
[ -s vd.data ] || skip "perf record to a pipe does not work here"
export HOME=$WORK/home
# pa's own cache (its symbol indexes, symbols/idxfile.c) is allowed to be
# written by a read-only command: it goes elsewhere, HOME must stay empty
export XDG_CACHE_HOME=$WORK/xdg-cache
perf report -i vd.data --stdio -q --no-children -g none --sort dso,sym 2>/dev/null >exp
grep -q '^ .*\[vdso\] ' exp || skip "no [vdso] sample in the recording"
pa report -v -i vd.data --stdio -q --no-children -g none --sort dso,sym >got 2>got.err ||
	fail "pa report failed: $(head -n 2 got.err)"
same "report --sort dso,sym" exp got
CHECKS=$((CHECKS + 1))
grep -q "^pa: symbols for '\[vdso\]'.*: read from the running vdso" got.err ||
	fail "report -v does not say where the vdso's symbols came from: $(cat got.err)"
pa folded -i vd.data >folded.txt 2>folded.err || fail "pa folded failed: $(head -n 2 folded.err)"
pa flamegraph -i vd.data -o fg.html 2>fg.err || fail "pa flamegraph failed: $(head -n 2 fg.err)"
CHECKS=$((CHECKS + 1))
grep -q '__vdso_clock_gettime' folded.txt || fail "pa folded names no vdso symbol"
CHECKS=$((CHECKS + 1))
left=$(find home -mindepth 1 | head -n 5)
[ -z "$left" ] || fail "a read-only command wrote under HOME: $left"
finish
