#!/usr/bin/env bash
# Data objects in reports: a frame-pointer walk through code built without
# frame pointers can reach addresses in a program's data, which perf
# record -d maps; perf report names them by their STT_OBJECT symbol as
# NAME+0xOFFSET (offset from the symbol's start; call-graph lines show the
# name alone). Where --ignore-callees makes such a chain entry the
# sample's location, perf's offset is taken from its map-relative address
# and wraps around: pa's too. The recording is written by objsym_gen.py over testdata's
# inline program, so the outputs are the same on every machine: they are
# compared with golden copies of perf 6.1's (testdata/golden/objsym), and
# with perf itself when it is here.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_python
cd "$WORK" || exit 1
export HOME=$WORK/home XDG_CACHE_HOME=$WORK/xdg-cache
mkdir -p home
unset DEBUGINFOD_URLS
have_perf=0
[ -z "$PA_EMU" ] && command -v perf >/dev/null 2>&1 && have_perf=1
[ $have_perf = 1 ] || note "no perf here: compared with the golden outputs only"
GOLD=$TESTDATA/golden/objsym
# (a fixed path: -v shows it)
cp "$TESTDATA/inline/symfs/tmp/pa-inline/prog" prog || exit 1
python3 "$HERE/objsym_gen.py" objsym.data "$WORK/prog" || fail "the generator failed"

# (one option set a line, report-N.txt for line N)
j=0
while IFS= read -r o; do
	j=$((j + 1))
	# shellcheck disable=SC2086
	if ! pa report -i objsym.data --stdio $o </dev/null >got 2>got.err; then
		fail "report $o: pa failed: $(head -n 2 got.err)"
		continue
	fi
	same "report $o (golden)" "$GOLD/report-$j.txt" got
	if [ $have_perf = 1 ]; then
		# shellcheck disable=SC2086
		perf report -i objsym.data --stdio $o </dev/null 2>/dev/null | grep -v '^# (Tip' >exp
		same "report $o (perf)" exp got
	fi
done <"$GOLD/optsets"
pa report -i objsym.data --stdio -q --sort sym -g none >rows 2>/dev/null
CHECKS=$((CHECKS + 1))
grep -q '\[\.\] DW\.ref\.__gxx_personality_v0+0x4 *$' rows ||
	fail "no offset after a data object's name: $(cat rows)"
# -v's columns hold the program's path: perf only
if [ $have_perf = 1 ]; then
	for o in "-v" "-v --no-children -g caller --sort sym,dso"; do
		# shellcheck disable=SC2086
		pa report -i objsym.data --stdio $o >got 2>/dev/null
		# shellcheck disable=SC2086
		perf report -i objsym.data --stdio $o 2>/dev/null | grep -v '^# (Tip' >exp
		same "report $o (perf)" exp got
	done
fi
finish
