#!/usr/bin/env bash
# Pipe files from Chromium OS's perf (kernel 3.x era): each header feature
# is a record of its own, numbered after FINISHED_ROUND (69 HOSTNAME ...
# 80 NUMA_TOPOLOGY, 81 PMU_MAPPINGS, the payload a feature section's bytes;
# quipper's reading of them), where upstream numbers ID_INDEX, AUXTRACE, ...
# HEADER_FEATURE. perf cannot read such a file; pa must read it as the same
# recording in upstream's numbering (its "twin").
#
# No Chromium OS file is here: perfdata.py cros rewrites the upstream pipe
# fixtures (both byte orders) into that numbering, and writes the twin. Then:
#  - pa header on the rewritten file equals pa header on the twin, and (LE)
#    perf's feature lines for the twin; with the feature records where
#    upstream writes them (after the HEADER_ATTRs) and before the attrs;
#  - pa report equals perf report on the twin (BE: on its LE twin's twin,
#    perf 6.1 cannot read big-endian pipe features), and pa report on the
#    original; read from a file and from stdin;
#  - every sample is read (pa dump counts);
#  - a damaged Chromium OS record is one warning, a cut one a one-line
#    error naming the file and offset (exit 2).
# The upstream pipe fixtures themselves are header.sh's and report.sh's.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_python
private_home
cd "$WORK" || exit 1

have_perf=0
command -v perf >/dev/null 2>&1 && have_perf=1
[ $have_perf = 1 ] || note "no perf here: compared with pa on the twins only"

nocapt() { grep -v '^# captured on' "$1"; }

# cros_off TYPE FILE: offset of the first record TYPE of a Chromium OS
# pipe file (perfdata.py records reads 69..81 as upstream's).
cros_off() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
want, b = int(sys.argv[1]), open(sys.argv[2], "rb").read()
e = "<" if b[:8] == b"PERFILE2" else ">"
off = 16
while off + 8 <= len(b):
    t, _m, s = struct.unpack_from(e + "IHH", b, off)
    if t == want:
        print(off)
        break
    off += s + ((struct.unpack_from(e + "I", b, off + 8)[0] + 7) & ~7 if t == 66 else 0)
EOF
}

# rewrite NAME SRC [front]: NAME.cros.data and NAME.twin.data from SRC
rewrite() {
	CHECKS=$((CHECKS + 1))
	python3 "$PDTOOL" cros "$2" "$1.cros.data" "$1.twin.data" "${@:3}" || {
		fail "$1: perfdata.py cros failed"
		return 1
	}
	# really renumbered: records 69..81 with a payload that is no u64s
	python3 - "$1.cros.data" <<'EOF' || fail "$1: no Chromium OS records written"
import struct, sys
b = open(sys.argv[1], "rb").read()
e = "<" if b[:8] == b"PERFILE2" else ">"
off, seen = 16, set()
while off + 8 <= len(b):
    t, _m, s = struct.unpack_from(e + "IHH", b, off)
    if 69 <= t <= 81:
        seen.add(t)
    off += s + ((struct.unpack_from(e + "I", b, off + 8)[0] + 7) & ~7 if t == 66 else 0)
sys.exit(0 if {69, 70, 73, 77, 78, 81} <= seen else 1)
EOF
}

rewrite le "$TESTDATA/le-pipe.data"
rewrite be "$TESTDATA/be-pipe.data"
rewrite lei "$TESTDATA/le-pipe.inj.data" # the BE file's LE twin (be-twins.sh)
# the same with the feature records first, before the HEADER_ATTRs
rewrite lef "$TESTDATA/le-pipe.data" front
rewrite bef "$TESTDATA/be-pipe.data" front
rewrite leif "$TESTDATA/le-pipe.inj.data" front

for x in le be lef bef; do
	C=$x.cros.data T=$x.twin.data
	src=$TESTDATA/${x:0:2}-pipe.data
	oracle=$T
	[ $x = be ] && oracle=lei.twin.data
	[ $x = bef ] && oracle=leif.twin.data

	# header: what the twin says, features in record order
	pa header -i "$C" >"$x.hdr" 2>"$x.hdr.err"
	st=$?
	[ $st -eq 0 ] || fail "$x: pa header exit status $st: $(head -n 2 "$x.hdr.err")"
	[ -s "$x.hdr.err" ] && fail "$x: pa header wrote to stderr: $(head -n 2 "$x.hdr.err")"
	pa header -i "$T" >"$x.twin.hdr" 2>/dev/null
	nocapt "$x.hdr" >"$x.hdr.cmp"
	nocapt "$x.twin.hdr" >"$x.twin.hdr.cmp"
	same "$x: pa header, Chromium OS numbering vs upstream" "$x.twin.hdr.cmp" "$x.hdr.cmp"
	wants=("hostname" "os release" "nrcpus online" "total memory" "cmdline" "event" "pmu mappings")
	[ "${x:0:2}" = le ] && wants+=("perf version" "arch" "cpudesc" "cpuid") # not kept by perf inject
	for want in "${wants[@]}"; do
		CHECKS=$((CHECKS + 1))
		grep -q "^# $want : \|^# $want: " "$x.hdr" || fail "$x: pa header has no '$want' line"
	done
	if [ $have_perf = 1 ] && [ "${x:0:2}" = le ]; then
		perf_header "$T" | pipe_feature_lines_perf >"$x.perf.feat"
		pipe_feature_lines_pa <"$x.hdr" >"$x.pa.feat"
		same "$x: pa header feature lines vs perf on the twin" "$x.perf.feat" "$x.pa.feat"
	fi

	# every sample read
	pa dump --stats -i "$C" >"$x.dump" 2>"$x.dump.err" || fail "$x: pa dump failed: $(head -n 2 "$x.dump.err")"
	pa dump --stats -i "$src" >"$x.src.dump" 2>/dev/null
	pa_counts "$x.dump" | grep -E '^(SAMPLE|MMAP2?|COMM|FORK|EXIT) ' >"$x.counts"
	pa_counts "$x.src.dump" | grep -E '^(SAMPLE|MMAP2?|COMM|FORK|EXIT) ' >"$x.src.counts"
	CHECKS=$((CHECKS + 1))
	grep -q '^SAMPLE [1-9]' "$x.counts" || fail "$x: no samples counted"
	same "$x: kernel record counts vs the original" "$x.src.counts" "$x.counts"

	# report: perf's numbers for the twin, pa's for the original
	for o in "--sort comm" "--sort pid" "--sort dso" "--sort sym" "--sort comm,dso,sym" \
		"--no-children -g none --sort comm,dso,sym" "--children" "-q -g caller --sort dso,sym" ""; do
		# shellcheck disable=SC2086
		if ! pa report --stdio -i "$C" $o >got 2>got.err; then
			fail "$x '$o': pa report failed: $(head -n 2 got.err)"
			continue
		fi
		# shellcheck disable=SC2086
		pa report --stdio -i "$src" $o >orig 2>/dev/null
		same_graphs "$x: report '$o' vs the original" orig got
		# shellcheck disable=SC2086
		pa report --stdio -i - $o <"$C" >stdin.got 2>/dev/null
		same "$x: report '$o' from stdin" got stdin.got
		if [ $have_perf = 1 ]; then
			# shellcheck disable=SC2086
			perf report --stdio -i "$oracle" $o 2>/dev/null | grep -v '^# (Tip' >exp
			same_graphs "$x: report '$o' vs perf on the twin" exp got
		fi
	done
done

# Upstream pipes keep upstream's numbering: their records 69..80 are still
# ID_INDEX, THREAD_MAP, CPU_MAP, FEATURE, not Chromium OS features.
for x in le be; do
	pa dump --stats -i "$TESTDATA/$x-pipe.data" >"$x.up.dump" 2>"$x.up.err" ||
		fail "$x-pipe.data: pa dump failed: $(head -n 2 "$x.up.err")"
	for t in ID_INDEX THREAD_MAP CPU_MAP FEATURE; do
		CHECKS=$((CHECKS + 1))
		pa_counts "$x.up.dump" | grep -q "^$t [1-9]" || fail "$x-pipe.data: no $t record counted"
	done
done

# Damage, in the Chromium OS numbering (LE file): the VERSION record's
# string length past its record, after HOSTNAME decided the numbering:
# one warning, VERSION left out, every sample still read, exit 0.
off=$(cros_off 71 le.cros.data)
if [ -n "$off" ]; then
	cp le.cros.data dmg.data
	python3 "$PDTOOL" put dmg.data $((off + 8)) 4 0xfffffff0
	pa report --stdio -i dmg.data --sort comm >dmg.out 2>dmg.err
	st=$?
	CHECKS=$((CHECKS + 1))
	[ $st -eq 0 ] || fail "damaged VERSION record: exit status $st: $(head -n 2 dmg.err)"
	CHECKS=$((CHECKS + 1))
	if [ "$(wc -l <dmg.err)" -ne 1 ] || ! grep -q "'dmg.data'.*VERSION.*offset [0-9]" dmg.err; then
		fail "damaged VERSION record: want one warning naming VERSION, got: $(head -n 3 dmg.err)"
	fi
	pa report --stdio -i le.cros.data --sort comm >undmg.out 2>/dev/null
	same "damaged VERSION record: report unchanged" undmg.out dmg.out
	pa header -i dmg.data 2>/dev/null | grep -v '^# captured on' >dmg.hdr
	CHECKS=$((CHECKS + 1))
	if grep -q '^# perf version' dmg.hdr || ! grep -q '^# arch' dmg.hdr; then
		fail "damaged VERSION record: header should drop VERSION only"
	fi
else
	fail "no VERSION record in le.cros.data"
fi

# Cut inside a Chromium OS record: one line naming the file and an offset, exit 2.
off=$(cros_off 77 le.cros.data)
if [ -n "$off" ]; then
	head -c $((off + 20)) le.cros.data >cut.data
	pa report --stdio -i cut.data >/dev/null 2>cut.err
	st=$?
	CHECKS=$((CHECKS + 1))
	[ $st -eq 2 ] || fail "cut record: exit status $st, want 2"
	CHECKS=$((CHECKS + 1))
	if [ "$(wc -l <cut.err)" -ne 1 ] || ! grep -q "'cut.data'.*offset [0-9]" cut.err; then
		fail "cut record: want one line naming the file and offset, got: $(head -n 3 cut.err)"
	fi
else
	fail "no CMDLINE record in le.cros.data"
fi

finish
