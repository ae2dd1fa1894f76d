#!/usr/bin/env bash
# A thread's first COMM renames its earlier samples (perf's comm override):
# a thread first seen by a sample or an mmap is named ":TID" until then,
# and its first COMM (exec or not) overrides that name in place, so perf
# report shows the earlier samples under the new name; later COMMs add
# names (earlier samples keep theirs); a child forked from a named parent
# starts with that name (a COMM later is a new name, not an override); a
# child of an unnamed parent stays unnamed until its own first COMM; a
# thread that never gets a COMM keeps ":TID". perf script prints the name
# at sample time. (Not here: a FORK reusing a live thread's tid, whose new
# thread's override perf shows or not depending on whether its samples
# joined the old thread's entries first: report/report.h, Limits.) Recordings perf record cannot make on purpose: written by a
# generator (pipe mode, little- and big-endian), read by perf 6.1 (the
# little-endian one) and pa.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_python
private_home
cd "$WORK" || exit 1

cat >gen.py <<'PY'
import struct, sys
out, bo = sys.argv[1], "<" if sys.argv[2] == "le" else ">"
ST = 0x1 | 0x2 | 0x4 | 0x80 | 0x100  # IP TID TIME CPU PERIOD
SAMPLE_ID_ALL = 1 << 18
def flags_raw(f):
    raw = struct.pack("<Q", f)
    if bo == "<":
        return raw
    # a big-endian compiler's bitfields: flag N in byte N/8, bit 7 - N%8
    return bytes(int(f"{b:08b}"[::-1], 2) for b in raw)
b = bytearray(struct.pack(bo + "QQ", 0x32454C4946524550, 16))  # "PERFILE2", pipe mode
attr = struct.pack(bo + "IIQQQQ", 1, 128, 0, 4000, ST, 0) + flags_raw(SAMPLE_ID_ALL)
attr += bytes(128 - len(attr))
b += struct.pack(bo + "IHH", 64, 0, 8 + len(attr) + 8) + attr + struct.pack(bo + "Q", 1)
def rec(t, misc, body):
    return struct.pack(bo + "IHH", t, misc, 8 + len(body)) + body
def trailer(pid, tid, time):
    return struct.pack(bo + "IIQII", pid, tid, time, 0, 0)
events = []
def comm(time, pid, tid, name, exec_=False):
    s = name.encode() + b"\0"
    s += b"\0" * (-len(s) % 8)
    events.append((time, rec(3, (1 << 13) if exec_ else 0,
                             struct.pack(bo + "II", pid, tid) + s + trailer(pid, tid, time))))
def fork(time, pid, tid, ppid, ptid):
    events.append((time, rec(7, 0, struct.pack(bo + "IIIIQ", pid, ppid, tid, ptid, time) +
                             trailer(pid, tid, time))))
def samples(time, pid, tid, n):
    for i in range(n):
        t = time + i
        events.append((t, rec(9, 2, struct.pack(bo + "QIIQIIQ", 0x400000 + 16 * i, pid, tid, t,
                                                0, 0, 1000 + tid))))
samples(100, 300, 300, 3); comm(200, 300, 300, "early"); samples(210, 300, 300, 2)
comm(300, 300, 300, "renamed", exec_=True); samples(310, 300, 300, 2)
comm(105, 400, 400, "first"); samples(110, 400, 400, 2); comm(400, 400, 400, "second")
samples(410, 400, 400, 1)
fork(120, 400, 500, 400, 400); samples(130, 400, 500, 2); comm(500, 400, 500, "child")
samples(510, 400, 500, 1)
samples(140, 600, 600, 2); fork(150, 601, 601, 600, 600); samples(160, 601, 601, 2)
comm(600, 601, 601, "late601"); samples(610, 601, 601, 1)
samples(170, 700, 700, 2); comm(700, 700, 700, "new700", exec_=True)
for _, r in sorted(events, key=lambda e: e[0]):
    b += r
open(out, "wb").write(b)
PY
python3 gen.py le.data le && python3 gen.py be.data be || {
	fail "gen.py"
	finish
}
[ "$(head -c 8 be.data)" = 2ELIFREP ] || fail "be.data is not big-endian"

# the names pa gives, whatever perf says: early samples take the first COMM
pa report --stdio -q --sort comm,pid -i le.data >names 2>names.err || fail "pa report: $(head -n 2 names.err)"
grep -Eq '^ +[0-9.]+% +early +300:' names || fail "tid 300's samples before its first COMM are not 'early'"
grep -q ':300 ' names && fail "tid 300's early samples kept the name ':300'"
grep -Eq '^ +[0-9.]+% +:600 ' names || fail "thread 600 (no COMM) is not ':600'"
grep -Eq '^ +[0-9.]+% +new700 ' names || fail "thread 700's samples before its exec COMM are not 'new700'"
grep -Eq '^ +[0-9.]+% +first +500:' names || fail "forked child 500 did not start as 'first'"
pass

for order in le be; do
	for sort in comm "comm,pid" pid "comm,dso" "dso,comm"; do
		pa report --stdio --sort "$sort" -i "$order.data" >"$order.$sort.pa" 2>"$order.$sort.err" ||
			fail "pa report --sort $sort -i $order.data: $(head -n 2 "$order.$sort.err")"
	done
done
for sort in comm "comm,pid" pid "comm,dso" "dso,comm"; do
	same "pa report --sort $sort: big-endian vs little-endian" "le.$sort.pa" "be.$sort.pa"
done
# --tasks: the threads as perf keeps them, a tree of who forked whom;
# and perf's kept text of the fixtures' (testdata/make-report-golden.sh)
for order in le be; do
	pa report --tasks -i "$order.data" >"$order.tasks" 2>"$order.tasks.err" ||
		fail "pa report --tasks -i $order.data: $(head -n 2 "$order.tasks.err")"
done
same "pa report --tasks: big-endian vs little-endian" le.tasks be.tasks
for g in "$TESTDATA"/golden/tasks/*.data.txt; do
	name=$(basename "$g" .txt)
	pa report -i "$TESTDATA/$name" --tasks >"$name.tasks" 2>"$name.tasks.err" ||
		fail "$name: pa report --tasks failed: $(head -n 2 "$name.tasks.err")"
	same "$name: pa report --tasks vs perf's kept text" "$g" "$name.tasks"
done
pa script -i le.data >le.script 2>/dev/null || fail "pa script -i le.data"
pa script -i be.data >be.script 2>/dev/null || fail "pa script -i be.data"
same "pa script: big-endian vs little-endian" le.script be.script

if command -v perf >/dev/null 2>&1; then
	for sort in comm "comm,pid" pid "comm,dso" "dso,comm"; do
		perf report --stdio --sort "$sort" -i le.data 2>/dev/null | grep -v '^# (Tip' >"le.$sort.perf"
		grep -v '^# (Tip' "le.$sort.pa" >"le.$sort.pa.cmp"
		same "pa report --sort $sort vs perf" "le.$sort.perf" "le.$sort.pa.cmp"
	done
	# --comms filters by the name at sample time; a hidden entry stays
	# hidden when its name changes
	n=0
	for o in "--comms early" "--comms early,renamed --sort pid" \
		"--comms first --percentage relative" "--comms new700"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		perf report --stdio $o -i le.data 2>/dev/null | grep -v '^# (Tip' >"f$n.perf"
		# shellcheck disable=SC2086
		pa report --stdio $o -i le.data >"f$n.pa" 2>"f$n.err" || fail "pa report $o: $(head -n 2 "f$n.err")"
		same "pa report $o vs perf" "f$n.perf" "f$n.pa"
	done
	perf report --tasks -i le.data 2>/dev/null >le.tasks.perf
	CHECKS=$((CHECKS + 1))
	[ "$(grep -c '|' le.tasks.perf)" -ge 4 ] || fail "perf report --tasks lists under 4 threads"
	same "pa report --tasks vs perf" le.tasks.perf le.tasks
	# perf script names a sample as the thread was named then
	perf script -i le.data </dev/null >le.script.perf 2>/dev/null
	same "pa script vs perf script" le.script.perf le.script
	grep -q '^ *:300 ' le.script || fail "pa script: tid 300's first samples are not ':300'"
else
	note "no perf: pa's names checked, perf's not compared"
fi
finish
