#!/usr/bin/env bash
# Tracepoint samples in pa script: their fields ("trace"), formatted from
# the recording's own format files (its TRACING_DATA section) as perf
# script formats them through libtraceevent, byte for byte:
#  1. testdata/tracepoint.data (sched, syscalls, signal; no call chains)
#     against perf's kept outputs (testdata/make-tracepoint.sh), for each
#     option set of golden/tracepoint/optsets (here and under emulators:
#     the fields of a file of the other byte order or word size);
#  2. recordings made here, with call chains and kernel function pointers
#     (kmem's call_site, %pS: the kernel's symbols), against perf script;
#     and one written to a pipe (its tracing data a record among the
#     others; perf prints its function pointers as addresses);
#  3. a damaged section: a warning naming it, the samples without fields.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1
export HOME=$WORK/home XDG_CACHE_HOME=$WORK/xdg-cache
mkdir -p home
unset DEBUGINFOD_URLS
GOLD=$TESTDATA/golden/tracepoint

# 1. the fixture
k=0
while IFS= read -r o; do
	k=$((k + 1))
	# shellcheck disable=SC2086
	if pa script -i "$TESTDATA/tracepoint.data" $o </dev/null >got.$k 2>got.$k.err; then
		same "script $o (golden)" "$GOLD/$k.txt" got.$k
	else
		fail "script $o: pa failed: $(head -n 2 got.$k.err)"
	fi
done <"$GOLD/optsets"
# the kept outputs are worth something: fields of each kind of event
for want in 'prev_comm=sh prev_pid=' 'sched_process_exec: filename=/usr/bin/' 'sys_enter: NR '; do
	grep -q "$want" "$GOLD/1.txt" || fail "golden 1.txt lacks '$want'"
done
pass

# 3. a damaged TRACING_DATA section: its magic overwritten
python3 - "$TESTDATA/tracepoint.data" bad.data <<'PY' || fail "could not damage the fixture"
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(b'\x17\x08Dtracing')
assert i > 0
d[i:i + 10] = b'\x00' * 10
open(sys.argv[2], 'wb').write(d)
PY
if pa script -i bad.data -F event,trace >bad.out 2>bad.err; then
	grep -q "TRACING_DATA" bad.err || fail "damaged section: no warning naming it: $(cat bad.err)"
	[ "$(grep -c 'sched_switch: *$' bad.out)" -gt 0 ] || fail "damaged section: samples missing"
	pass
else
	fail "damaged section: pa failed: $(head -n 2 bad.err)"
fi

# 2. recordings made here
if [ -n "$PA_EMU" ] || ! command -v perf >/dev/null 2>&1; then
	note "no perf here (or under an emulator): recordings made now not compared"
	finish
fi
if ! perf record -q -o live.data -g -e sched:sched_switch -e sched:sched_wakeup \
	-e kmem:kmalloc -e kmem:kfree -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
	-e timer:hrtimer_start -- sh -c 'ls -R /usr/share/doc >/dev/null; sleep 0.02' \
	>/dev/null 2>record.err; then
	note "perf cannot record tracepoints here: $(head -n 1 record.err)"
	finish
fi
grep -q 'call_site=[a-z_]' <(perf script -i live.data -F trace 2>/dev/null) ||
	note "perf printed no kernel symbol for kmem's call_site (no kallsyms?)"
for o in "" "-F comm,tid,cpu,time,event,trace,ip,sym" "-F trace" "-G" "--no-inline"; do
	# shellcheck disable=SC2086
	perf script -i live.data $o </dev/null >exp 2>/dev/null
	# shellcheck disable=SC2086
	if pa script -i live.data $o </dev/null >got 2>got.err; then
		[ -s exp ] || fail "perf script $o printed nothing"
		same "script $o (perf, recorded here)" exp got
	else
		fail "script $o: pa failed: $(head -n 2 got.err)"
	fi
done
perf record -q -o - -e sched:sched_switch -e kmem:kmalloc -e raw_syscalls:sys_enter \
	-- sh -c 'ls /usr >/dev/null' 2>/dev/null >pipe.data
perf script -i - <pipe.data >exp 2>/dev/null
if pa script -i - <pipe.data >got 2>got.err; then
	grep -q 'sys_enter: NR ' got || fail "pipe: no tracepoint fields"
	same "script of a pipe (perf)" exp got
else
	fail "script of a pipe: pa failed: $(head -n 2 got.err)"
fi
finish
