#!/usr/bin/env bash
# sysprof captures (testdata/le-burn.syscap, be-burn.syscap; made by
# testdata/make-syscap.sh from testdata/syscap-burn.stacks):
# - pa report's rows (comm, dso, sym) are those computed here from the stacks
#   the capture writer was given, with the symbols of the recorded binary
#   (testdata/syscap-burn.elf) read by nm, not by pa;
# - the big-endian capture reads exactly like the little-endian one;
# - stdin works like a file; the synthesized JIT maps are there;
# - damaged captures give exit status 2 and one line naming the offset.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

LE=$TESTDATA/le-burn.syscap
BE=$TESTDATA/be-burn.syscap
STACKS=$TESTDATA/syscap-burn.stacks
ELF=$TESTDATA/syscap-burn.elf
for f in "$LE" "$BE" "$STACKS" "$ELF"; do
	[ -f "$f" ] || skip "no $(basename "$f") (testdata/make-syscap.sh makes it)"
done
command -v nm >/dev/null || skip "no nm (binutils)"
cd "$WORK" || exit 1

# The recorded binary under its recorded path, for --symfs. The capture has
# no build-ids (sysprof 3.46 keeps none), so pa takes the file by its path.
bin=$(awk '$1 == "map" && $9 ~ /\/syscap-burn$/ {print $9; exit}' "$STACKS")
[ -n "$bin" ] || { echo "FAIL: no map of syscap-burn in $STACKS"; exit 1; }
mkdir -p "symfs$(dirname "$bin")" && cp "$ELF" "symfs$bin"

# ---- expected rows ----------------------------------------------------------------
# Events in time order (the session's order; ties keep file order). For a
# sample: the comm of its process then (a fork copies it), and its first
# address that is not a PERF_CONTEXT_* marker: in kernel context it is
# unresolved ([kernel.kallsyms], "[k] 0x<address>": a capture carries no
# kernel symbols); "j:NAME" is a JIT address (0xe000000000000000 + the rank
# of NAME among the jit lines: libsysprof-capture hands them out so), in the
# synthesized [sysprof-jit] map, named from the JITMAP table; otherwise the map
# of its process (a fork copies them) gives the DSO, and nm the symbol that
# covers the address (syscap-burn is ET_EXEC: its addresses are its vaddrs).
nm -S --defined-only "$ELF" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ {print $1, $2, $4}' >syms
grep -E '^(comm|fork|exit|map|sample) ' "$STACKS" | sort -s -n -k2,2 >events
awk -v symsfile=syms -v stacks="$STACKS" '
function hex(s,   i, n, c) {
	n = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; n = n * 16 + c }
	return n
}
function base(p) { sub(/.*\//, "", p); return p }
BEGIN {
	while ((getline l < symsfile) > 0) { split(l, f, " "); ns++; ss[ns] = hex(f[1]); se[ns] = hex(f[1]) + hex(f[2]); sn[ns] = f[3] }
	while ((getline l < stacks) > 0) if (l ~ /^jit /) { split(l, f, " "); nj++; jit[f[3]] = nj }
}
$1 == "comm" { c = $5; for (i = 6; i <= NF; i++) c = c " " $i; comm[$4] = c }
$1 == "fork" {
	if ($4 in comm) comm[$5] = comm[$4]
	nm_[$5] = 0
	for (i = 1; i <= nm_[$4]; i++) { nm_[$5]++; ms[$5, i] = ms[$4, i]; me[$5, i] = me[$4, i]; mo[$5, i] = mo[$4, i]; mp[$5, i] = mp[$4, i] }
}
$1 == "map" { n = ++nm_[$4]; ms[$4, n] = hex($5); me[$4, n] = hex($6); mo[$4, n] = hex($7); mp[$4, n] = $9 }
$1 == "sample" {
	pid = $4; ctx = ""; leaf = ""
	for (i = 6; i <= NF; i++) {
		if ($i !~ /^j:/ && $i >= "fffffffffffff001") { ctx = $i; continue } # 16 hex digits
		leaf = $i; break
	}
	cm = (pid in comm) ? comm[pid] : ":" $5
	if (ctx == "ffffffffffffff80") { dso = "[kernel.kallsyms]"; sym = "[k] 0x" leaf }
	else if (leaf ~ /^j:/) { dso = "[sysprof-jit]"; sym = "[.] " substr(leaf, 3) }
	else {
		a = hex(leaf); dso = "[unknown]"; sym = "[.] 0x" leaf
		for (j = nm_[pid]; j >= 1; j--) if (a >= ms[pid, j] && a < me[pid, j]) {
			dso = base(mp[pid, j]); off = a - ms[pid, j] + mo[pid, j]
			sym = sprintf("[.] 0x%016x", off)
			for (k = 1; k <= ns; k++) if (a >= ss[k] && a < se[k]) sym = "[.] " sn[k]
			break
		}
	}
	rows[cm " " dso " " sym]++; total++
}
END { for (r in rows) printf "%.2f%% %s\n", 100 * rows[r] / total, r }
' events | sort >expected
nsamples=$(grep -c '^sample ' "$STACKS")
[ -s expected ] || { echo "FAIL: no expected rows"; exit 1; }

# ---- pa report ----------------------------------------------------------------------
rep() { pa report -i "$1" --stdio -q --no-children -g none --sort comm,dso,sym --symfs "$WORK/symfs"; }
rep "$LE" >le.rows 2>le.err
st=$?
if [ $st -ne 0 ]; then
	fail "pa report le-burn.syscap: exit $st: $(head -n 2 le.err)"
else
	awk 'NF {$1 = $1; print}' le.rows | sort >le.norm
	same "le-burn.syscap report rows vs the stacks it was written from" expected le.norm
fi
rep "$BE" >be.rows 2>be.err || fail "pa report be-burn.syscap: $(head -n 2 be.err)"
same "be-burn.syscap report vs le-burn.syscap" le.rows be.rows
# the full layout too (header lines, widths), and the event's name
pa report -i "$LE" --stdio --no-children -g none --symfs "$WORK/symfs" >le.full 2>&1
pa report -i "$BE" --stdio --no-children -g none --symfs "$WORK/symfs" >be.full 2>&1
same "be-burn.syscap full report vs le-burn.syscap" le.full be.full
CHECKS=$((CHECKS + 1))
grep -q "^# Samples: $nsamples  of event 'cpu-clock'" le.full || fail "no '# Samples: $nsamples' line: $(grep Samples le.full)"

# stdin: the capture is read whole from the pipe
# shellcheck disable=SC2002 # a pipe on stdin, on purpose
cat "$LE" | pa report -i - --stdio -q --no-children -g none --sort comm,dso,sym \
	--symfs "$WORK/symfs" >stdin.rows 2>stdin.err
same "report -i - (stdin) vs -i FILE" le.rows stdin.rows

# ---- pa dump -------------------------------------------------------------------------
pa dump -i "$LE" >le.dump 2>&1 || fail "pa dump le-burn.syscap failed: $(head -n 2 le.dump)"
pa dump -i "$BE" >be.dump 2>&1 || fail "pa dump be-burn.syscap failed: $(head -n 2 be.dump)"
same "pa dump be-burn.syscap vs le-burn.syscap" le.dump be.dump
pa dump --stats -i "$LE" >le.stats 2>&1
CHECKS=$((CHECKS + 1))
got=$(awk '$2 == "SAMPLE:" {print $3}' le.stats)
[ "$got" = "$nsamples" ] || fail "pa dump --stats counts $got samples, the stacks have $nsamples"
# every process that ran JIT code got the synthesized map before its samples
for pid in $(awk '$1 == "jit" {print $2}' "$STACKS" | sort -u); do
	CHECKS=$((CHECKS + 1))
	grep -q "PERF_RECORD_MMAP2 $pid/$pid: \[0xe000000000000001(.*\]: \[sysprof-jit\]" le.dump ||
		fail "no [sysprof-jit] map for pid $pid in pa dump"
done
# the writer added one LOG frame: skipped by length, counted
CHECKS=$((CHECKS + 1))
grep -Eq '^# +unknown \(skipped\): 1$' le.stats || fail "the LOG frame was not counted as skipped: $(grep -i unknown le.stats)"

# ---- other commands that read captures ------------------------------------------------
# Wherever they read perf.data (le-file.data), they must read captures too.
if pa folded -i "$TESTDATA/le-file.data" >/dev/null 2>&1; then
	pa folded -i "$LE" >le.folded 2>folded.err
	CHECKS=$((CHECKS + 1))
	got=$(awk '{n += $NF} END {print n + 0}' le.folded)
	[ "$got" = "$nsamples" ] || fail "pa folded counts $got samples, not $nsamples: $(head -n 2 folded.err)"
else
	note "pa folded does not read perf.data (yet): not tried on captures"
fi
if pa flamegraph -i "$TESTDATA/le-file.data" -o probe.svg >/dev/null 2>&1; then
	pa flamegraph -i "$LE" -o le.svg --symfs "$WORK/symfs" >fg.out 2>&1
	CHECKS=$((CHECKS + 1))
	grep -q "<title>all ($nsamples samples" le.svg 2>/dev/null ||
		fail "pa flamegraph on le-burn.syscap: not $nsamples samples: $(head -n 2 fg.out)"
	# the frames of both processes, and the JIT frame (named once the
	# session resolves JIT addresses through pa_file_jit_name)
	for frame in burn-child syscap-burn child_spin leaf; do
		CHECKS=$((CHECKS + 1))
		grep -q "<title>$frame (" le.svg 2>/dev/null ||
			fail "pa flamegraph on le-burn.syscap: no frame '$frame'"
	done
	CHECKS=$((CHECKS + 1))
	grep -Eq '<title>(jit_loop|\[*sysprof-jit\]*) \(' le.svg 2>/dev/null ||
		fail "pa flamegraph on le-burn.syscap: no JIT frame"
	# ... and it is a JIT frame, not a kernel one ([sysprof-jit] is bracketed
	# like a kernel module): the JIT kind in its title, _[j] under -a, and
	# a user frame for -U/-K
	CHECKS=$((CHECKS + 1))
	grep -Eq '<title>jit_loop \([^)]*, JIT\)' le.svg ||
		fail "pa flamegraph on le-burn.syscap: jit_loop is not a JIT frame: $(grep -o '<title>jit_loop[^<]*' le.svg | head -n 1)"
	pa folded -a -i "$LE" --symfs "$WORK/symfs" >le.folded.a 2>&1
	CHECKS=$((CHECKS + 1))
	grep -q ';jit_loop_\[j\][; ]' le.folded.a && ! grep -q 'jit_loop_\[k\]' le.folded.a ||
		fail "pa folded -a on le-burn.syscap: jit_loop not marked _[j]: $(grep jit_loop le.folded.a | head -n 1)"
	pa folded -U -i "$LE" --symfs "$WORK/symfs" >le.folded.u 2>&1
	pa folded -K -i "$LE" --symfs "$WORK/symfs" >le.folded.k 2>&1
	CHECKS=$((CHECKS + 1))
	grep -q ';jit_loop[; ]' le.folded.u && ! grep -q 'jit_loop' le.folded.k ||
		fail "pa folded -U/-K on le-burn.syscap: jit_loop is not a user frame"
else
	note "pa flamegraph does not read perf.data (yet): not tried on captures"
fi

# ---- damaged captures ----------------------------------------------------------------
# bad CASE FILE OFFSET: exit status 2, one line on stderr naming the offset.
bad() {
	local what=$1 f=$2 off=$3 st lines
	pa report -i "$f" --stdio -q --no-children -g none >bad.out 2>bad.err
	st=$?
	lines=$(wc -l <bad.err)
	CHECKS=$((CHECKS + 1))
	if [ $st -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q "at offset $off\$" bad.err; then
		fail "$what: exit $st, $lines line(s): $(head -n 3 bad.err)"
	fi
}
# patch FILE OFFSET HEXBYTES: overwrite bytes in place
patch() { printf '%b' "$(echo "$3" | sed 's/../\\x&/g')" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
first=256 # the first frame; the second follows it (its length: u16 LE at 256)
second=$((first + $(od -An -tu2 -j$first -N2 "$LE" | tr -d ' ')))
head -c $((first + 10)) "$LE" >trunc.syscap
bad "capture cut inside a frame header" trunc.syscap "$first"
head -c $((second + 30)) "$LE" >trunc2.syscap
bad "capture cut inside a frame" trunc2.syscap "$second"
head -c 200 "$LE" >short.syscap
bad "capture cut inside its header" short.syscap 200
cp "$LE" magic.syscap && patch magic.syscap 0 00
bad "bad magic" magic.syscap 0
cp "$LE" past.syscap && patch past.syscap $first f8ff
bad "frame length past the end (little-endian)" past.syscap $first
cp "$BE" past-be.syscap && patch past-be.syscap $first fff8
bad "frame length past the end (big-endian)" past-be.syscap $first
cp "$LE" zero.syscap && patch zero.syscap $first 0000
bad "zero-length frame" zero.syscap $first

finish
