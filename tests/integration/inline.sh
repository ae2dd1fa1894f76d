#!/usr/bin/env bash
# Inline frames (perf 6.1's default --inline): perf replaces each call-chain
# entry the DWARF unwinder gave by the inline frames addr2line names at its
# address ("f (inlined)"); frame-pointer chains keep their entries.
#
# 1. The fixture testdata/inline/inline.data (testdata/make-inline.sh: a -O2 -g
#    C++ program through std::sort, std::map and a recursive template,
#    --call-graph dwarf, its binary under testdata/inline/symfs): pa report
#    for each option set of testdata/golden/inline/optsets, and pa folded
#    with and without --no-inline, equal the golden copies of perf's output
#    (and perf's own, when perf is here); the flame graph marks inline
#    frames.
# 2. Recordings made now of testdata/src/inline.cpp (std::regex too) built
#    with -O2 -g: with --call-graph dwarf, pa report (default, --no-children
#    -g caller, -g callee, ...) and pa folded vs perf report and
#    `perf script | stackcollapse`; with frame pointers, --inline vs perf's;
#    --sort srcline with --children on both (inline frames bring their
#    call sites; other chain entries perf looks up at their raw ip); the
#    parent and the callees to ignore, which perf looks for in the
#    recorded chain only. (Frame-pointer chains: the program's rows only.
#    Their libc entries' raw-ip lookups all fail, and perf 6.1 stops
#    asking addr2line for a DSO whose first 123 lookups failed, so that
#    whether libc's later rows have source lines depends on the order its
#    samples came in; pa does not count perf's lookups.)
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_python
cd "$WORK" || exit 1
REF=$HERE/stackcollapse.py
GOLD=$TESTDATA/golden/inline
FIX=$TESTDATA/inline/inline.data
SYMFS=$TESTDATA/inline/symfs
have_perf=0
command -v perf >/dev/null 2>&1 && have_perf=1
[ $have_perf = 1 ] || note "no perf here: the fixture is compared with the golden outputs only"
norm() { grep -v '^# (Tip'; }

# ---- 1. the fixture -----------------------------------------------------------
i=0
while IFS= read -r o; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	if ! pa report -i "$FIX" --symfs "$SYMFS" --stdio $o >got 2>got.err; then
		fail "fixture '$o': pa failed: $(head -n 2 got.err)"
		continue
	fi
	same "fixture: report $o (golden)" "$GOLD/report-$i.txt" got
	# (perf's output for the fixture is the same in every build of pa:
	# under a sanitizer or an emulator, where pa equals the golden output,
	# perf is compared with it in the native run only)
	if [ $have_perf = 1 ] && { [ -z "$SLOW_MODE" ] || [ $(((i - 1) % STRIDE)) -eq 0 ]; }; then
		# shellcheck disable=SC2086
		perf report -i "$FIX" --symfs "$SYMFS" --stdio $o 2>/dev/null | norm >exp
		same_graphs "fixture: report $o (perf)" exp got
	fi
done <"$GOLD/optsets"
[ $have_perf = 1 ] && [ -n "$SLOW_MODE" ] &&
	note "under $SLOW_MODE: the fixture's reports compared with perf's for one option set in $STRIDE only (all with the golden outputs; natively all with perf's)"

# pa script -F +srcline on the fixture: each inline frame with its own
# source line (it crashed here once, on an inline frame's symbol)
if pa script -i "$FIX" --symfs "$SYMFS" -F +srcline >got 2>got.err; then
	CHECKS=$((CHECKS + 1))
	[ "$(grep -Ec '^  inline\.cpp:[0-9]+ \(inlined\)$' got)" -gt 100 ] ||
		fail "fixture: pa script -F +srcline shows few inline frames' lines"
else
	fail "fixture: pa script -F +srcline failed: $(head -n 2 got.err)"
fi

# A srcline perf computes only to print is cut to the column perf sized
# before; one its trees compare is not. Two addresses outside every symbol
# and section ("BINARY[ADDR]", longer than the other srclines) of one
# sample each: in "tie" of equal period, so perf's output sort compares
# them (the second one in is sized), in "apart" not (both cut). (A fresh
# recording once had such a tie of two libstdc++ addresses.)
cp "$SYMFS/tmp/pa-inline/prog" a-binary-with-a-long-name
for c in "tie|20a6:1 1100:2 20a7:1" "apart|20a6:1 20a7:1 1100:2"; do
	IFS='|' read -r name addrs <<<"$c"
	# shellcheck disable=SC2086
	python3 "$HERE/annotate_gen.py" "$name.data" "$PWD/a-binary-with-a-long-name" $addrs ||
		fail "srcline $name: generator failed"
	k=0
	for o in "--sort sym,srcline" "--no-children --sort sym,srcline -g none"; do
		k=$((k + 1))
		# shellcheck disable=SC2086
		pa report -i "$name.data" --stdio $o >got 2>got.err ||
			fail "srcline $name '$o': pa failed: $(head -n 2 got.err)"
		same "srcline $name '$o' (golden)" "$GOLD/srcline-$name-$k.txt" got
		if [ $have_perf = 1 ]; then
			# shellcheck disable=SC2086
			perf report -i "$name.data" --stdio $o 2>/dev/null | norm >exp
			same "srcline $name '$o' (perf)" exp got
		fi
	done
done
# Rows' graphs are made on a second thread where there is one
# (report/graphs.c); made on one thread, they are the same.
for i in 1 2 3 4; do
	o=$(sed -n "${i}p" "$GOLD/optsets")
	# shellcheck disable=SC2086
	if PA_NO_THREADS=1 pa report -i "$FIX" --symfs "$SYMFS" --stdio $o >got 2>got.err; then
		same "fixture: report $o on one thread (golden)" "$GOLD/report-$i.txt" got
	else
		fail "fixture '$o' on one thread: pa failed: $(head -n 2 got.err)"
	fi
done
# the golden output has inline frames (the test would pass without them)
CHECKS=$((CHECKS + 1))
[ "$(grep -c ' (inlined)$' "$GOLD/report-1.txt")" -gt 50 ] ||
	fail "fixture: the golden report shows few inline frames"
for o in "" --no-inline; do
	# shellcheck disable=SC2086
	if pa folded --period -i "$FIX" --symfs "$SYMFS" $o >got 2>got.err; then
		same "fixture: folded $o (golden)" "$GOLD/folded${o:+-noinline}.txt" got
	else
		fail "fixture: folded $o: pa failed: $(head -n 2 got.err)"
	fi
done
# the flame graph: an inline frame is a frame, marked in its hover text
if pa flamegraph -i "$FIX" --symfs "$SYMFS" -o fg.svg 2>got.err; then
	CHECKS=$((CHECKS + 1))
	grep -q '<title>work_map ([^<]*, inlined)</title>' fg.svg ||
		fail "flame graph: work_map is not marked inlined"
	CHECKS=$((CHECKS + 1))
	grep -q '<title>main ([^<]*[0-9]%)</title>' fg.svg ||
		fail "flame graph: main is marked inlined"
else
	fail "flame graph: pa failed: $(head -n 2 got.err)"
fi

# ---- 2. recordings made now -----------------------------------------------------
[ $have_perf = 1 ] || finish
case $(uname -m) in
x86_64 | i?86) ;;
*)
	note "DWARF unwinding is compared on x86 hosts only (this is $(uname -m))"
	finish
	;;
esac
if ! command -v g++ >/dev/null 2>&1; then
	note "no g++: no recordings made"
	finish
fi
# (one build for both recordings: <regex> takes the compiler a while)
# (-z now: no lazy binding, see dwarf.sh)
g++ -O2 -g -fno-omit-frame-pointer -Wl,-z,now -o prog "$TESTDATA/src/inline.cpp" ||
	skip "cannot build inline.cpp"
cases=(
	"dwarf|--call-graph dwarf -F 999|./prog 8"
	"fp|-g -F 1999|./prog 10"
)
record_cases "${cases[@]}"

check_folded() {
	local what=$1 f=$2 o=$3
	# shellcheck disable=SC2086
	perf script -i "$f" $o 2>/dev/null | python3 "$REF" >exp 2>ref.err
	# shellcheck disable=SC2086
	if ! pa folded --period -i "$f" $o >got 2>got.err; then
		fail "$what folded '$o': pa failed: $(head -n 2 got.err)"
		return
	fi
	same "$what: folded '$o'" exp got
}
for f in "${files[@]}"; do
	base=$(basename "$f" .data)
	if [ "$base" = dwarf ]; then
		CHECKS=$((CHECKS + 1))
		perf report -i "$f" --stdio 2>/dev/null >perf.txt
		grep -q ' (inlined)$' perf.txt || fail "dwarf: perf shows no inline frames"
		for o in "" "--no-children" "--no-children -g caller" "-g callee" "--no-inline" \
			"--sort dso,sym" "-g folded" "--max-stack 6" "--sort srcline" \
			"--sort sym,srcline -g none" "--no-children --sort srcline" \
			"--ignore-callees main" "--no-children -p ^work_" \
			"--sort srcline --ignore-callees main" "-g address" \
			"--no-children -g address,callee"; do
			check_report "$base" "$f" "$o"
		done
		check_folded "$base" "$f" ""
		check_folded "$base" "$f" "--no-inline"
		# pa script's source lines: an inline frame's is its own (the
		# call site in its caller), printed whatever addr2line said
		for o in "-F +srcline" "-F ip,sym,srcline --no-inline"; do
			# shellcheck disable=SC2086
			perf script -i "$f" $o 2>/dev/null >exp
			# shellcheck disable=SC2086
			pa script -i "$f" $o >got 2>got.err || fail "dwarf: pa script $o failed: $(head -n 2 got.err)"
			same "dwarf: script '$o'" exp got
		done
	else
		for o in "--inline" "--no-children --inline" "" "--sort srcline -g none --dsos prog" \
			"--no-children --sort srcline --ignore-callees main" "--no-children -g address"; do
			check_report "$base" "$f" "$o"
		done
		check_folded "$base" "$f" "--inline"
	fi
done
finish
