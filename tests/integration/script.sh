#!/usr/bin/env bash
# pa script vs perf script 6.1, byte for byte.
#
#   - the testdata fixtures (file, pipe, zstd, two events, group,
#     system-wide, DWARF, build-ids in MMAP2) with the default fields and
#     the -F sets and options of testdata/golden/script/cases: against
#     perf's output kept there (so where perf is absent too) and against
#     perf itself when it is here;
#   - the big-endian twins give the same text as their little-endian
#     originals;
#   - recordings made now (frame pointers, threads, two events, pipe,
#     system-wide, zstd, no call chains, context switches, a fixed period
#     that samples do not record) with the default
#     fields and more -F sets, srcline among them (the binaries are here),
#     filters, side records (--show-*-events) and --header;
#   - perf's refusals (-F cpu where no cpu was recorded, bad fields) are
#     refusals of pa too, and bad input is a one-line error with exit 2.
# DWARF-unwound chains with inline frames: dwarf.sh; JIT maps: jitmap.sh.
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1
GOLD=$TESTDATA/golden/script
have_perf=0
command -v perf >/dev/null 2>&1 && have_perf=1

# 1. fixtures: golden copies of perf's output, and perf itself
while IFS='|' read -r name fixture opts; do
	[[ -z $name || $name == \#* ]] && continue
	# shellcheck disable=SC2086
	pa script -i "$TESTDATA/$fixture" $opts </dev/null >got 2>got.err
	st=$?
	gzip -dc "$GOLD/$name.txt.gz" >exp
	if [ ! -s exp ]; then
		# perf refused this case: so must pa, printing nothing
		CHECKS=$((CHECKS + 1))
		[ $st -ne 0 ] && [ ! -s got ] || fail "$name: perf refuses '$opts', pa did not (exit $st)"
		continue
	fi
	same "$name: pa script $opts ($fixture) vs perf's kept output" exp got
	if [ $have_perf = 1 ]; then
		# shellcheck disable=SC2086
		perf script -i "$TESTDATA/$fixture" $opts </dev/null 2>/dev/null >exp.live
		same "$name: pa script $opts ($fixture) vs perf script" exp.live got
	fi
done <"$GOLD/cases"

# 2. big-endian twins: the same text as the little-endian original
for be in $(be_fixtures); do
	le=le-${be#be-}
	le=${le%.data}.inj.data
	[ -e "$TESTDATA/$le" ] || le=le-${be#be-}
	pa script -i "$TESTDATA/$be" >be.txt 2>be.err || fail "$be: pa script failed: $(head -n 2 be.err)"
	pa script -i "$TESTDATA/$le" >le.txt 2>le.err || fail "$le: pa script failed: $(head -n 2 le.err)"
	same "$be: the same text as $le" le.txt be.txt
done

# 3. refusals and bad input
pa script -i "$TESTDATA/le-file.data" -F comm,cpu >got 2>got.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 1 ] && [ ! -s got ] &&
	grep -q "Samples for 'cpu-clock:pppH' event do not have CPU attribute set. Cannot print 'cpu' field." got.err ||
	fail "-F comm,cpu without recorded cpus: exit $st, $(head -n 1 got.err)"
pa script -i "$TESTDATA/le-file.data" -F comm,nosuch >got 2>got.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 1 ] && grep -q "Invalid field requested" got.err || fail "-F nosuch: exit $st"
pa script -i "$TESTDATA/le-file.data" -F +cpu,comm >got 2>got.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 1 ] && grep -q "Cannot mix +-field with overridden fields" got.err || fail "-F +cpu,comm accepted"
head -c 3000 "$TESTDATA/le-file.data" >cut.data
printf 'PERFILE2garbage-garbage-garbage-garbage' >bad.data
pa script -i bad.data >got 2>got.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 2 ] && [ "$(wc -l <got.err)" -eq 1 ] && grep -q "bad.data" got.err ||
	fail "garbage input: exit $st, stderr: $(head -n 3 got.err)"
pa script -i cut.data >got 2>got.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 2 ] || grep -q "cut short" got.err || fail "cut input: exit $st, stderr: $(head -n 3 got.err)"

# 4. recordings made now (natively only: under an emulator the recording
# is another host's, and the fixtures above are the cross check)
if [ $have_perf = 0 ] || [ -n "$PA_EMU" ]; then
	if [ -n "$PA_EMU" ]; then
		note "recordings made now not compared under $PA_EMU"
	else
		note "no perf here: recordings made now not compared"
	fi
	finish
fi
command -v cc >/dev/null 2>&1 || { note "no C compiler: recordings made now not compared"; finish; }
cc -O1 -g -fno-omit-frame-pointer -o burn "$TESTDATA/src/burn.c" || skip "cannot build burn.c"
cc -O1 -g -fno-omit-frame-pointer -pthread -o mt "$TESTDATA/src/mt.c" || skip "cannot build mt.c"
if ! perf record -q -g -o probe.data -- ./burn 5 >/dev/null 2>probe.err; then
	note "perf record -g does not work here: $(head -n 2 probe.err | tr '\n' ' ')"
	finish
fi
cases=(
	"burn|-g -F 1999|./burn 300"
	"mt|-g -F 2999|./mt 300"
	"two|-g -F 1999 -e cpu-clock,task-clock|./mt 200"
	"pipe.pipe|-g -F 1999|./mt 200"
	"sysw|-g -F 499 -a|./mt 400"
	"zstd|-z -g -F 1999|./mt 200"
	"nog|-F 1999|./mt 200"
	"switch|-g -a --switch-events -F 999|./mt 200"
	"fixed|-c 200000 -e cpu-clock|./mt 200"
)
record_cases "${cases[@]}"
# (under a sanitizer: a diagonal subset of recording x options, case_run
# in lib.sh)
k=0
for f in "${files[@]}"; do
	base=$(basename "$f")
	CASE=$k k=$((k + 1))
	case_run check_script "$base" "$f"
	case_run check_script "$base" "$f" -F comm,tid,time
	# (srclines not of system-wide recordings: perf's addr2line gives up
	# after a second on big binaries of other processes, so its answer
	# depends on the machine's load)
	if [[ $base != sysw.data && $base != switch.data ]]; then
		case_run check_script "$base" "$f" -F ip,sym,symoff,dso,srcline
		case_run check_script "$base" "$f" -G -F comm,tid,ip,sym,symoff,dso,srcline
	fi
	case_run check_script "$base" "$f" -F +pid,+cpu
	case_run check_script "$base" "$f" -F -dso,+misc
	case_run check_script "$base" "$f" -F comm,pid,tid,cpu,time,event,period,ip,sym,dso
	case_run check_script "$base" "$f" -G --ns
	case_run check_script "$base" "$f" --comms mt
	case_run check_script "$base" "$f" --dsos libc.so.6
	case_run check_script "$base" "$f" -S spin
	case_run check_script "$base" "$f" --max-stack 3
	case_run check_script "$base" "$f" --show-kernel-path --reltime
	case_run check_script "$base" "$f" --show-mmap-events --show-task-events --show-switch-events -F +misc
	[[ $base == *.pipe.data ]] || case_run check_script "$base" "$f" --header -G
done
# a fixed period (-c) is not recorded in each sample: perf takes the
# event's, in perf script's period column and perf report's Period
for f in "${files[@]}"; do
	[[ $(basename "$f") == fixed.data ]] &&
		check_report "fixed.data" "$f" "--show-total-period -n --sort comm,dso"
done
# DWARF-unwound stacks, on two threads at once or on one: the same (and
# with libdwfl unwinding every sample, PA_SLOW_UNWIND, the helper thread
# takes every run's half: resolver/chain.c)
for f in "$TESTDATA"/le-dwarf*.data "$TESTDATA"/be-dwarf*.data; do
	[ -s "$f" ] || continue
	pa script -i "$f" >got 2>/dev/null
	PA_NO_THREADS=1 pa script -i "$f" >exp 2>/dev/null
	grep -q "^	" exp || fail "$(basename "$f"): no call chains in pa script's output"
	same "$(basename "$f") script: threads vs PA_NO_THREADS" exp got
	PA_SLOW_UNWIND=1 pa script -i "$f" >got 2>/dev/null
	same "$(basename "$f") script: threads vs PA_NO_THREADS, PA_SLOW_UNWIND" exp got
done
finish
