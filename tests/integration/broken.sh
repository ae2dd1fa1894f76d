#!/usr/bin/env bash
# Broken-input sweep: every fixture cut at every record boundary (give or
# take a few bytes), at its header sections and at random offsets, and with
# ~200 seeded random bit flips, through pa dump, header, buildid-list and
# report. Each run must exit 0 (stderr empty or warnings only) or exit 2
# with exactly one error line "pa: 'FILE': ... at offset N" (after any warnings) -- never crash, never
# hang (10 s each; 60 s under an emulator or a sanitizer), never use more
# than 1 GB of address space. The sweep itself is tests/integration/broken.py
# (seeded and reproducible; a failure says how to re-run it alone).
#
# Then the partial-data case: a file whose writer was killed (data size 0
# in the header, no feature sections, the last record cut in the middle) is
# read up to the last complete record, with one warning line and exit 0.
#
# PA_BROKEN_SCALE (default 0.25 natively, on another set than the
# sanitizer stage's: seed 2; 0.5 under a sanitizer, where a bad read shows
# best, though scripts/test-sanitize asks for 0.2; 0.1 under an emulator;
# 1 for all) takes a fraction of the sweep's variants, so that the whole
# suite keeps within its time; PA_BROKEN_SEED (default 1, natively 2)
# picks another set.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_python

scale=${PA_BROKEN_SCALE:-} seed=${PA_BROKEN_SEED:-1}
if [ -z "$scale" ]; then
	scale=0.5
	[ -n "$PA_EMU" ] && scale=0.1
	[ -z "$SLOW_MODE" ] && scale=0.25 seed=${PA_BROKEN_SEED:-2}
fi
# shellcheck disable=SC2086 # PA_EMU is a command prefix
if [ "${PA_BROKEN_SKIP_SWEEP:-0}" = 1 ]; then
	note "sweep skipped (PA_BROKEN_SKIP_SWEEP=1)"
elif python3 "$HERE/broken.py" "${PA_EMU:+$PA_EMU }$PA_BIN" "$TESTDATA" "$WORK/sweep" \
	--seed "$seed" --scale "$scale"; then
	pass
else
	fail "broken-input sweep (see the FAIL lines above)"
fi

# ---- partial data: the writer was killed -------------------------------------
# partial SRC: cut SRC in the middle of its last record of more than 16 bytes,
# drop everything after it (the feature sections), set data size 0.
REPORT_ARGS=(report --stdio -q --no-children -g none --symfs "$WORK/empty"
	--buildid-dir "$WORK/empty/cache" --kallsyms "$WORK/empty/kallsyms")
mkdir -p "$WORK/empty" && : >"$WORK/empty/kallsyms"
partial() {
	local src=$1 s=${1%.data} recs last off size nrec cut
	recs=$WORK/$s.records
	python3 "$PDTOOL" records "$TESTDATA/$src" >"$recs" || { fail "$src: perfdata.py records"; return; }
	last=$(awk '$3 > 16 {l = NR} END {print l}' "$recs")
	off=$(sed -n "${last}p" "$recs" | cut -d' ' -f1)
	size=$(sed -n "${last}p" "$recs" | cut -d' ' -f3)
	nrec=$((last - 1)) # complete records before the cut one
	cut=$((off + size / 2))
	# the killed writer's file, and the same data ending cleanly before the cut record
	head -c "$cut" "$TESTDATA/$src" >"$WORK/$s.killed"
	head -c "$off" "$TESTDATA/$src" >"$WORK/$s.clean"
	# data size (header bytes 48-55) 0, as perf leaves it until it exits;
	# the feature bits stay set, their sections never got written
	local z
	for z in "$WORK/$s.killed" "$WORK/$s.clean"; do
		printf '\0\0\0\0\0\0\0\0' | dd of="$z" bs=1 seek=48 conv=notrunc status=none ||
			{ fail "$src: cannot patch the data size"; return; }
	done

	local f=$WORK/$s.killed st
	pa dump -i "$f" >"$f.dump" 2>"$f.err"
	st=$?
	CHECKS=$((CHECKS + 1))
	if [ "$st" -ne 0 ]; then
		fail "$s.killed: pa dump exit status $st, want 0: $(head -n 2 "$f.err")"
	elif [ "$(wc -l <"$f.err")" -ne 1 ] || ! grep -q "^pa: '$f': warning: " "$f.err"; then
		fail "$s.killed: pa dump: want one warning line on stderr, got: $(head -n 3 "$f.err")"
	fi
	# every complete record, as the intact file shows it
	pa dump -i "$TESTDATA/$src" >"$WORK/$s.orig.dump" 2>/dev/null
	local n_killed n_orig
	n_killed=$(grep -c '^0x' "$f.dump")
	# records come out of compressed ones too: compare by the outer offset
	n_orig=$(python3 -c 'import sys; print(sum(1 for l in open(sys.argv[1]) if l.startswith("0x") and int(l.split()[0].split("+")[0], 16) < int(sys.argv[2])))' "$WORK/$s.orig.dump" "$off")
	CHECKS=$((CHECKS + 1))
	if [ "$n_killed" -ne "$n_orig" ] || [ "$n_killed" -lt "$nrec" ]; then
		fail "$s.killed: pa dump shows $n_killed records, want $n_orig (the $nrec complete ones and what they hold)"
	else
		# event names come from the EVENT_DESC feature, which a killed
		# writer never wrote
		grep '^0x' "$WORK/$s.orig.dump" | head -n "$n_orig" | sed 's/ event: [^ ]*//' >"$WORK/$s.want.dump"
		grep '^0x' "$f.dump" | sed 's/ event: [^ ]*//' >"$WORK/$s.got.dump"
		same "$s.killed: pa dump lines" "$WORK/$s.want.dump" "$WORK/$s.got.dump"
	fi
	# the report of the killed file is the report of its complete records
	pa "${REPORT_ARGS[@]}" -i "$f" >"$f.report" 2>"$f.rerr"
	st=$?
	CHECKS=$((CHECKS + 1))
	if [ "$st" -ne 0 ]; then
		fail "$s.killed: pa report exit status $st, want 0: $(head -n 2 "$f.rerr")"
	elif ! grep -q "^pa: '$f': warning: " "$f.rerr" || grep -qv "^pa: '$f': warning: " "$f.rerr"; then
		fail "$s.killed: pa report: want only warning lines on stderr, got: $(head -n 3 "$f.rerr")"
	fi
	pa "${REPORT_ARGS[@]}" -i "$WORK/$s.clean" >"$WORK/$s.clean.report" 2>/dev/null
	same "$s.killed: pa report" "$WORK/$s.clean.report" "$f.report"
	# (a cut that leaves no sample: -q prints nothing, as perf, and says why)
	CHECKS=$((CHECKS + 1))
	[ -s "$f.report" ] || grep -q "^pa: '$f': warning: no samples to report" "$f.rerr" ||
		fail "$s.killed: pa report printed nothing and did not say why"
	for cmd in header buildid-list; do
		pa $cmd -i "$f" >/dev/null 2>"$f.err"
		st=$?
		CHECKS=$((CHECKS + 1))
		[ "$st" -eq 0 ] || fail "$s.killed: pa $cmd exit status $st, want 0: $(head -n 2 "$f.err")"
		grep -qv "^pa: '$f': warning: " "$f.err" && fail "$s.killed: pa $cmd: $(head -n 2 "$f.err")"
	done
}
for src in le-file.data be-file.data le-zstd.data le-sysw.data; do
	partial "$src"
done

# ---- hostile shapes: small files that would need huge memory ------------------
# A process with 50000 maps, forked 5000 times: each live FORK copies the
# parent's address space, so 2.5 MB of records would need 2 GB. The session's
# memory cap stops it: exit 2, one line naming the limit.
python3 - "$WORK/forks.data" <<'PY' || fail "cannot write forks.data"
import struct, sys
b = bytearray(b"PERFILE2" + struct.pack("<Q", 16))  # pipe mode, little-endian
attr = struct.pack("<IIQQQQQ", 1, 128, 0, 4000, 0x107, 0, 0) + bytes(128 - 48)
rec = attr + struct.pack("<Q", 1)
b += struct.pack("<IHH", 64, 0, 8 + len(rec)) + rec  # HEADER_ATTR
for i in range(50000):  # MMAP, user, pid 1
    body = struct.pack("<IIQQQ", 1, 1, 0x10000 + i * 0x2000, 0x1000, 0) + b"/x\0\0\0\0\0\0"
    b += struct.pack("<IHH", 1, 2, 8 + len(body)) + body
for k in range(5000):  # FORK of pid 1
    body = struct.pack("<IIIIQ", 1000 + k, 1, 1000 + k, 1, 0)
    b += struct.pack("<IHH", 7, 0, 8 + len(body)) + body
open(sys.argv[1], "wb").write(b)
PY
# 1 GB of address space, when pa can start within it (not under a sanitizer
# or an emulator that reserves more up front)
limit_v=
(ulimit -v 1048576 && pa --version) >/dev/null 2>&1 && limit_v=1048576
# hostile FILE PATTERN NAME ARGS...: exit 2, one line matching PATTERN
hostile() {
	local file=$1 pat=$2 name=$3 st
	shift 3
	(if [ -n "$limit_v" ]; then ulimit -v "$limit_v"; fi; pa "$@" -i "$WORK/$file") >/dev/null 2>"$WORK/$file.err"
	st=$?
	CHECKS=$((CHECKS + 1))
	if [ "$st" -ne 2 ] || [ "$(wc -l <"$WORK/$file.err")" -ne 1 ] ||
		! grep -q "^pa: '$WORK/$file': .*$pat.* at offset [0-9]*$" "$WORK/$file.err"; then
		fail "$file: pa $name: exit $st, want 2 and '$pat': $(head -n 2 "$WORK/$file.err")"
	fi
}
hostile forks.data "memory limit" buildid-list buildid-list --with-hits
hostile forks.data "memory limit" report "${REPORT_ARGS[@]}"

# 5000 samples, each with 64 call-chain entries no other sample has: 3 MB
# whose stack trie and locations need far more than a 16 MB cap. The report
# stops with the cap's one-line error, before printing anything.
python3 - "$WORK/stacks.data" <<'PY' || fail "cannot write stacks.data"
import struct, sys
b = bytearray(b"PERFILE2" + struct.pack("<Q", 16))
attr = struct.pack("<IIQQQQQ", 1, 128, 0, 4000, 0x127, 0, 0) + bytes(128 - 48)
rec = attr + struct.pack("<Q", 1)
b += struct.pack("<IHH", 64, 0, 8 + len(rec)) + rec
ip = 0x400000
for i in range(5000):
    chain = [ip + 16 * k for k in range(64)]
    ip += 16 * 64
    body = struct.pack("<QIIQQQ", chain[0], 1, 1, 1000 + i, 1, len(chain)) + struct.pack("<64Q", *chain)
    b += struct.pack("<IHH", 9, 2, 8 + len(body)) + body
    if i % 500 == 499:
        b += struct.pack("<IHH", 68, 0, 8)
open(sys.argv[1], "wb").write(b)
PY
hostile stacks.data "samples, stacks and call graphs need more than the memory limit of 16 MiB" \
	folded folded --max-memory 16M
hostile stacks.data "samples, stacks and call graphs need more than the memory limit of 16 MiB" \
	report report --stdio --max-memory 16M
hostile stacks.data "samples, stacks and call graphs need more than the memory limit of 16 MiB" \
	flamegraph flamegraph -o "$WORK/stacks.svg" --max-memory 16M
CHECKS=$((CHECKS + 1))
[ ! -e "$WORK/stacks.svg" ] || fail "flamegraph left stacks.svg behind after the memory error"
# the same file within the default cap: every sample (the frames have no
# DSO, so all stacks fold into one line of "[unknown]" frames)
CHECKS=$((CHECKS + 1))
n=$(pa folded --count -i "$WORK/stacks.data" 2>"$WORK/stacks.err" | awk '{ n += $NF } END { print n + 0 }')
[ "$n" -eq 5000 ] || fail "stacks.data within the default cap: $n samples, want 5000: $(head -n 2 "$WORK/stacks.err")"

# 65536 event attributes (a report keeps an evsel index in 16 bits)
python3 - "$WORK/attrs.data" <<'PY' || fail "cannot write attrs.data"
import struct, sys
b = bytearray(b"PERFILE2" + struct.pack("<Q", 16))
for i in range(65536):
    attr = struct.pack("<IIQQQQQ", 1, 128, 0, 4000, 0x107, 0, 0) + bytes(128 - 48)
    rec = attr + struct.pack("<Q", i + 1)
    b += struct.pack("<IHH", 64, 0, 8 + len(rec)) + rec
open(sys.argv[1], "wb").write(b)
PY
hostile attrs.data "more than 65535 event attributes" dump dump
hostile attrs.data "more than 65535 event attributes" report "${REPORT_ARGS[@]}"

# a zstd bomb: 16 MB of FINISHED_ROUND records in one ~1.5 KB COMPRESSED record
if command -v zstd >/dev/null 2>&1; then
	if python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<IHH", 68, 0, 8) * (2 << 20))' |
		zstd -19 -q -c >"$WORK/bomb.zst" &&
		python3 - "$WORK/bomb.zst" "$WORK/bomb.data" <<'PY'; then
import struct, sys
z = open(sys.argv[1], "rb").read()
b = b"PERFILE2" + struct.pack("<Q", 16) + struct.pack("<IHH", 81, 0, 8 + len(z)) + z
open(sys.argv[2], "wb").write(b)
PY
		hostile bomb.data "inflates to more than 1024 times" dump dump --stats
		hostile bomb.data "inflates to more than 1024 times" report "${REPORT_ARGS[@]}"
	else
		fail "cannot write bomb.data"
	fi
else
	note "no zstd program: no zstd bomb test"
fi

finish
