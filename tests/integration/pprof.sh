#!/usr/bin/env bash
# pa export --format pprof, read back by pprof itself (`go tool pprof`,
# from Debian's golang-go) and checked against pa report on the same file
# and filters:
#  - the total samples and total period of each event (pprof: the sums of
#    each sample type over -raw's samples; pa report: the sums of its
#    Samples and Period columns, --no-children, every sample in one row);
#  - each function's flat samples and period (pprof -top -noinlines, one
#    row per function name; pa report --sort tid,comm,dso,sym rows summed
#    by name, an address without a symbol counted as pprof names it:
#    "[DSO]");
#  - the same with a filter (--comms, --pid) on both sides, and --event
#    against pa report's section of that event;
#  - the sample types' names and units (one event, two events);
#  - the big-endian twin be-file.data gives the profile of its
#    little-endian original (-raw identical but for the recording's time);
#  - mappings carry the build-ids perf buildid-list names, has_functions
#    where symbols were found;
#  - C++ functions carry their mangled names as system names, and the
#    start lines their DWARF declares;
#  - inline frames (testdata/inline, DWARF-unwound C++): locations with
#    several Line entries, and the stacks pprof -traces expands them to
#    are the golden stacks perf script | stackcollapse gave (folded.txt,
#    and folded-noinline.txt with --no-inline);
#  - --cpu-label, a recording made now of a small C program (when perf
#    record works here): its functions by name, its build-id as readelf
#    reads it;
#  - a truncated file: exit status 2, one line naming the file and the
#    offset, no output file left.
# Without go the test is skipped (exit 77), never passed.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1

command -v go >/dev/null 2>&1 ||
	skip "no go here: the profiles are read with 'go tool pprof' (Debian: golang-go)"
# go writes nothing outside the work directory, and asks no network
export HOME=$WORK/home GOPATH=$WORK/gopath GOCACHE=$WORK/gocache GOENV=off GOFLAGS='' \
	GOPROXY=off GOTOOLCHAIN=local GOTELEMETRY=off
mkdir -p "$HOME"
go tool -n pprof >/dev/null 2>&1 || skip "'go tool pprof' is not available here"
pprof() { go tool pprof -symbolize=none "$@" 2>/dev/null; }
have_perf=0
command -v perf >/dev/null 2>&1 && have_perf=1
INL=$TESTDATA/inline

# (a pa built without protobuf-c, such as a cross build whose sysroot has
# no libprotobuf-c, says so)
if ! pa export --format pprof -i "$TESTDATA/le-file.data" -o probe.pb.gz 2>probe.err &&
	grep -q 'built without protobuf-c' probe.err; then
	skip "this pa was built without protobuf-c: $(head -n 1 probe.err)"
fi

# export WHAT OUT FILE [OPTIONS...]: pa export --format pprof into OUT
export_pprof() {
	local what=$1 out=$2 f=$3
	shift 3
	CHECKS=$((CHECKS + 1))
	rm -f "$out"
	if ! pa export --format pprof -i "$f" -o "$out" "$@" 2>exp.err; then
		fail "$what: pa export failed: $(head -n 2 exp.err)"
		return 1
	fi
	if ! gzip -t "$out" 2>/dev/null; then
		fail "$what: $out is not gzip data"
		return 1
	fi
	return 0
}

# The sample types of a profile, "INDEX TYPE UNIT" per line (-raw's
# "samples/count cpu/nanoseconds[dflt]" line).
sample_types() {
	pprof -raw "$1" | awk '/^Samples:/ {getline; for (i = 1; i <= NF; i++) {
		t = $i; sub(/\[dflt\]$/, "", t); n = split(t, a, "/"); print i - 1, a[1], a[n]}; exit}'
}

# Sums of each value column over -raw's samples, one per line.
raw_totals() {
	pprof -raw "$1" | awk '/^Samples:/ {s = 1; getline; next} /^Locations/ {s = 0}
		s && /^ *-?[0-9 ]+:/ {sub(/:.*/, ""); for (i = 1; i <= NF; i++) t[i] += $i; if (NF > n) n = NF}
		END {for (i = 1; i <= n; i++) print t[i] + 0}'
}

# pa report's rows: "EVENT_INDEX<TAB>NAME<TAB>SAMPLES<TAB>PERIOD", the name as
# pprof names the function (an address without a symbol: "[DSO]"). Sorted
# by tid and comm too: perf applies --comms and --pid to an entry, after
# samples were merged into it, so that only entries of one thread and comm
# are filtered as single samples are. Columns are cut where the dotted
# line under the header puts them (comms and DSO names may hold spaces):
# samples, period, ..., DSO, symbol.
# report_rows FILE OPTIONS...
report_rows() {
	local f=$1
	shift
	pa report -i "$f" --stdio --no-children --sort tid,comm,dso,sym \
		-F sample,period,tid,comm,dso,sym -g none "$@" 2>rep.err | awk '
		function col(i) { v = substr($0, st[i], i < n ? st[i + 1] - st[i] : length($0)); gsub(/^ +| +$/, "", v); return v }
		/^# Samples: / {ev++; n = 0; next}
		/^# \.\.\./ {
			n = 0; pos = 1
			while (match(substr($0, pos), /\.+/)) { st[++n] = pos + RSTART - 1; pos = st[n] + RLENGTH }
			next
		}
		/^#/ || NF == 0 || n < 4 {next}
		{
			# (perf leaves out the columns a filter makes constant)
			dso = col(n - 1); sym = col(n)
			if (sym !~ /^\[.\] /) { print "unparsed row: " $0 >"/dev/stderr"; next }
			sym = substr(sym, 5)
			if (sym ~ /^0x[0-9a-f]+$/)
				sym = dso ~ /^\[/ ? dso : "[" dso "]"
			printf "%d\t%s\t%s\t%s\n", ev - 1, sym, col(1), col(2)
		}'
}

# "NAME<TAB>VALUE" per function with a non-zero value, sorted.
# report_flat ROWS EVENT_INDEX COLUMN(3 samples, 4 period)
report_flat() {
	awk -F '\t' -v e="$2" -v c="$3" '$1 == e {v[$2] += $c} END {for (n in v) if (v[n]) printf "%s\t%d\n", n, v[n]}' "$1" |
		LC_ALL=C sort
}
# pprof_flat PROFILE SAMPLE_INDEX: pprof -top -noinlines, one row per function
pprof_flat() {
	pprof -top -noinlines -nodecount=1000000 -nodefraction=0 -unit=ns -sample_index="$2" "$1" |
		awk '/^ +flat +flat%/ {s = 1; next}
		s {v = $1; sub(/ns$/, "", v); line = $0
		   sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", line)
		   if (v + 0) printf "%s\t%d\n", line, v}' | LC_ALL=C sort
}

# check_profile WHAT FILE [OPTIONS...]: the profile pa export writes for FILE
# with OPTIONS against pa report with the same OPTIONS.
check_profile() {
	local what=$1 f=$2
	shift 2
	export_pprof "$what" p.pb.gz "$f" "$@" || return
	report_rows "$f" "$@" >rows
	if [ ! -s rows ]; then
		fail "$what: pa report printed no rows: $(head -n 2 rep.err)"
		return
	fi
	local nev
	nev=$(awk -F '\t' '{print $1}' rows | sort -u | wc -l)
	sample_types p.pb.gz >types
	raw_totals p.pb.gz >totals
	CHECKS=$((CHECKS + 1))
	if [ "$(wc -l <types)" -ne $((2 * nev)) ]; then
		fail "$what: $(wc -l <types) sample types for $nev events with samples"
		sed 's/^/    /' types
		return
	fi
	local e i
	for ((e = 0; e < nev; e++)); do
		for i in 3 4; do
			local idx=$((2 * e + i - 3)) exp got
			exp=$(awk -F '\t' -v e="$e" -v c="$i" '$1 == e {t += $c} END {print t + 0}' rows)
			got=$(sed -n "$((idx + 1))p" totals)
			CHECKS=$((CHECKS + 1))
			[ "$exp" = "$got" ] ||
				fail "$what: event $e: total of sample type $idx ($(sed -n "$((idx + 1))p" types)): pprof $got, pa report $exp"
			report_flat rows "$e" "$i" >flat.exp
			pprof_flat p.pb.gz "$idx" >flat.got
			same "$what: event $e: flat values of sample type $idx per function" flat.exp flat.got
		done
	done
	# samples and period in pprof's units: count, and nanoseconds for clocks
	CHECKS=$((CHECKS + 1))
	awk 'NR % 2 == 1 && $3 != "count" {bad = 1} END {exit bad}' types ||
		fail "$what: a samples type is not a count: $(tr '\n' ' ' <types)"
}

# ---- 1. fixtures against pa report ------------------------------------------------
for f in le-file le-two-events le-dwarf be-file le-sysw; do
	check_profile "$f" "$TESTDATA/$f.data"
done
check_profile "le-file --comms burn" "$TESTDATA/le-file.data" --comms burn
check_profile "le-sysw --comms sleep,seq" "$TESTDATA/le-sysw.data" --comms sleep,seq
# the pid of the second most sampled process
pid=$(pa report -i "$TESTDATA/le-sysw.data" --stdio --no-children --sort pid -g none 2>/dev/null |
	awk '!/^#/ && NF >= 2 && ++n == 2 {sub(/:.*/, "", $2); print $2; exit}')
if [ -n "$pid" ]; then
	check_profile "le-sysw --pid $pid" "$TESTDATA/le-sysw.data" --pid "$pid"
	CHECKS=$((CHECKS + 1))
	pprof -raw p.pb.gz | grep -E ' pid:\[' | grep -qvE " pid:\[$pid( count)?\]" &&
		fail "le-sysw --pid $pid: samples of other pids in the profile"
else
	fail "le-sysw: no pid found in pa report --sort pid"
fi
# --event: the event's types only, its numbers those of pa report's section
# for it (pa report shows every event)
if export_pprof "--event task-clock" ev.pb.gz "$TESTDATA/le-two-events.data" --event task-clock; then
	report_rows "$TESTDATA/le-two-events.data" | awk -F '\t' -v OFS='\t' '$1 == 1 {$1 = 0; print}' >rows
	sample_types ev.pb.gz >types
	printf '%s\n' "0 samples count" "1 cpu nanoseconds" >types.exp
	same "--event task-clock: sample types" types.exp types
	for i in 0 1; do
		report_flat rows 0 $((i + 3)) >flat.exp
		pprof_flat ev.pb.gz $i >flat.got
		same "--event task-clock: flat values of type $i" flat.exp flat.got
		CHECKS=$((CHECKS + 1))
		[ -s flat.exp ] || fail "--event task-clock: pa report has no task-clock rows"
	done
fi

# Two events: the types are named after each event, the periods in ns.
if export_pprof "le-two-events types" two.pb.gz "$TESTDATA/le-two-events.data"; then
	sample_types two.pb.gz >types
	printf '%s\n' "0 cpu-clock_samples count" "1 cpu-clock nanoseconds" \
		"2 task-clock_samples count" "3 task-clock nanoseconds" >types.exp
	same "le-two-events: sample types" types.exp types
fi
# One clock event: pprof's cpu profile types.
if export_pprof "le-file types" one.pb.gz "$TESTDATA/le-file.data"; then
	sample_types one.pb.gz >types
	printf '%s\n' "0 samples count" "1 cpu nanoseconds" >types.exp
	same "le-file: sample types" types.exp types
	CHECKS=$((CHECKS + 1))
	pprof -raw one.pb.gz | grep -q '^PeriodType: cpu nanoseconds$' || fail "le-file: no cpu/nanoseconds period type"
fi

# ---- 2. the big-endian twin -------------------------------------------------------------
# -raw but for the lines that depend on the file's time stamp
raw_stable() { pprof -raw "$1" | grep -v -e '^Time:' -e '^Duration:'; }
if export_pprof be be.pb.gz "$TESTDATA/be-file.data" &&
	export_pprof le-inj le-inj.pb.gz "$TESTDATA/le-file.inj.data" &&
	export_pprof le le.pb.gz "$TESTDATA/le-file.data"; then
	raw_stable be.pb.gz >be.raw
	raw_stable le-inj.pb.gz >le-inj.raw
	same "be-file.data vs le-file.inj.data: pprof -raw" le-inj.raw be.raw
	for i in 0 1; do
		pprof_flat le.pb.gz $i >le.flat
		pprof_flat be.pb.gz $i >be.flat
		same "be-file.data vs le-file.data: flat values of type $i" le.flat be.flat
		CHECKS=$((CHECKS + 1))
		[ -s le.flat ] || fail "le-file.data: no function with a value of type $i"
	done
	CHECKS=$((CHECKS + 1))
	[ "$(raw_totals be.pb.gz)" = "$(raw_totals le.pb.gz)" ] ||
		fail "be-file.data vs le-file.data: totals $(raw_totals be.pb.gz | tr '\n' ' ') vs $(raw_totals le.pb.gz | tr '\n' ' ')"
fi

# ---- 3. mappings: build-ids and what they have ------------------------------------------
# "BUILD_ID PATH" of every mapping -raw lists with a build-id
raw_buildids() {
	pprof -raw "$1" | awk '/^Mappings/ {m = 1; next}
		m && /^[0-9]+: / && NF >= 4 && $4 ~ /^[0-9a-f]+$/ && length($4) >= 16 {print $4, $3}' | sort
}
for f in le-file le-sysw; do
	export_pprof "$f mappings" m.pb.gz "$TESTDATA/$f.data" || continue
	raw_buildids m.pb.gz >m.ids
	CHECKS=$((CHECKS + 1))
	[ -s m.ids ] || fail "$f: no mapping with a build-id"
	if [ $have_perf = 1 ]; then
		perf buildid-list -i "$TESTDATA/$f.data" 2>/dev/null | sort >ids.perf
		while read -r id path; do
			CHECKS=$((CHECKS + 1))
			grep -qxF "$id $path" ids.perf ||
				fail "$f: mapping $path has build-id $id, perf buildid-list does not say so"
		done <m.ids
	fi
	# the kernel's mapping of the recorded kernel: its build-id is the header's
	CHECKS=$((CHECKS + 1))
	grep -q ' \[kernel.kallsyms\]$' m.ids || fail "$f: the kernel's mapping has no build-id"
done

# ---- 4. inline frames -----------------------------------------------------------------------
# folded stacks from pprof -traces: "COMM;ROOT;...;LEAF PERIOD", summed; the
# frames named as stackcollapse-perf.pl names them (everything from the
# first "(" on dropped, but for "(anonymous namespace)"), pprof's
# " (inline)" mark dropped
traces_folded() {
	pprof -traces -unit=ns -sample_index=1 "$1" | awk '
		function frame(s) {
			sub(/ \(inline\)$/, "", s)
			t = s; gsub(/\(anonymous namespace\)/, "", t)
			if (index(t, "(")) { gsub(/\(anonymous namespace\)/, "@ANON@", s); s = substr(s, 1, index(s, "(") - 1); gsub(/@ANON@/, "(anonymous namespace)", s) }
			sub(/ +$/, "", s)
			fr[++n] = s
		}
		function flush() { if (n) { s = comm; for (i = n; i >= 1; i--) s = s ";" fr[i]; w[s] += v } n = 0 }
		/^-----------\+/ {flush(); next}
		/^ +comm:  / {comm = $2; next}
		/^ +[a-z]+:  / {next}
		/^ *[0-9]+(ns)?   / {v = $1; sub(/ns$/, "", v); l = $0; sub(/^ *[0-9]+(ns)?   /, "", l); frame(l); next}
		/^             [^ ]/ {l = $0; sub(/^ +/, "", l); frame(l); next}
		END {flush(); for (s in w) print s, w[s]}' | LC_ALL=C sort
}
if export_pprof inline inl.pb.gz "$INL/inline.data" --symfs "$INL/symfs"; then
	# (template arguments left out on both sides: the outermost frame of an
	# address is named by its symbol here, "fib<long>", where perf names it
	# as addr2line spells it, "fib<long int>"; the names themselves are
	# checked against pa report below)
	untemplate() { sed -E ':a; s/<[^<>]*>//g; ta' "$1" | LC_ALL=C sort; }
	traces_folded inl.pb.gz >inl.folded
	untemplate inl.folded >inl.folded.n
	untemplate "$TESTDATA/golden/inline/folded.txt" >gold.folded.n
	same "inline: pprof -traces stacks vs perf's folded stacks" gold.folded.n inl.folded.n
	pprof -raw inl.pb.gz >inl.raw
	# locations with more than one Line (continuation lines under a location)
	CHECKS=$((CHECKS + 1))
	# a location of code of std::map's operator[] inlined into work_map,
	# itself inlined into main: its Lines innermost first
	awk '/^Locations/ {l = 1; next} /^Mappings/ {if (f != "") print f; l = 0}
		!l {next}
		{name = $0; sub(/ [^ ]*:[0-9]+ s=[0-9]+$/, "", name)}
		/^ +[0-9]+: / {if (f != "") print f; sub(/^ +[0-9]+: 0x[0-9a-f]+ (M=[0-9]+ )?/, "", name); f = name; next}
		{sub(/^ +/, "", name); f = f "|" name}' inl.raw >inl.lines
	grep -q '::operator\[\]|work_map|main$' inl.lines ||
		fail "inline: no location with the Lines operator[], work_map, main (innermost first)"
	multi=$(grep -c '|' inl.lines)
	CHECKS=$((CHECKS + 1))
	[ "$multi" -ge 10 ] || fail "inline: only $multi locations with several Line entries"
	# the program's mapping (the fixture records no build-ids): functions,
	# files, lines and inline frames
	CHECKS=$((CHECKS + 1))
	awk '/^Mappings/ {m = 1; next} m' inl.raw | grep -E ' /[^ ]*/prog ' |
		grep -q '\[FN\]\[FL\]\[LN\]\[IN\]' ||
		fail "inline: the program's mapping is not [FN][FL][LN][IN]: $(awk '/^Mappings/,0' inl.raw | grep prog)"
	# C++ functions: the demangled name, and the file's (mangled) name as
	# the system name, which -raw prints in parentheses: the sorting
	# template of the program's std::sort, std::__introsort_loop<...>
	CHECKS=$((CHECKS + 1))
	grep -qE 'std::__introsort_loop<.* s=[0-9]+\(_ZSt16__introsort_loop' inl.raw ||
		fail "inline: no function with its demangled name and its mangled system name"
	# start lines: main's, as the binary's DWARF declares it (readelf)
	if command -v readelf >/dev/null 2>&1; then
		decl=$(readelf --debug-dump=info "$INL/symfs/tmp/pa-inline/prog" 2>/dev/null |
			awk '/DW_AT_name.*: main$/ {m = 1; next} m && /DW_AT_decl_line/ {print $NF; exit}')
		CHECKS=$((CHECKS + 1))
		[ -n "$decl" ] && grep -qE " main inline\.cpp:[0-9]+ s=$decl\b" inl.raw ||
			fail "inline: main's start line is not $decl: $(grep -m1 ' main inline' inl.raw)"
	fi
	check_profile "inline" "$INL/inline.data" --symfs "$INL/symfs"
fi
if export_pprof "inline --no-inline" inl0.pb.gz "$INL/inline.data" --symfs "$INL/symfs" --no-inline; then
	traces_folded inl0.pb.gz >inl0.folded
	LC_ALL=C sort "$TESTDATA/golden/inline/folded-noinline.txt" >gold0.folded
	same "inline --no-inline: pprof -traces stacks vs perf's folded stacks" gold0.folded inl0.folded
	CHECKS=$((CHECKS + 1))
	pprof -raw inl0.pb.gz | awk '/^Locations/ {l = 1; next} /^Mappings/ {l = 0} l && /^             [^ ]/ {n++} END {exit n > 0}' ||
		fail "inline --no-inline: a location with several Line entries"
fi

# ---- 5. --cpu-label -------------------------------------------------------------------------
if export_pprof "--cpu-label" cpu.pb.gz "$TESTDATA/le-sysw.data" --cpu-label &&
	export_pprof "no --cpu-label" nocpu.pb.gz "$TESTDATA/le-sysw.data"; then
	# every sample labelled with a cpu of the recording, the cpus pa report sees
	pprof -raw cpu.pb.gz | grep -oE '^ +cpu:\[[0-9]+( count)?\]' | grep -oE '[0-9]+' | sort -un >cpus.got
	pa report -i "$TESTDATA/le-sysw.data" --stdio --sort cpu -g none 2>/dev/null |
		awk '!/^#/ && NF >= 2 {print $NF + 0}' | sort -un >cpus.exp
	same "--cpu-label: the cpus of the labels" cpus.exp cpus.got
	CHECKS=$((CHECKS + 1))
	[ "$(pprof -raw cpu.pb.gz | grep -c '^ *comm:')" = "$(pprof -raw cpu.pb.gz | grep -c '^ *cpu:')" ] ||
		fail "--cpu-label: samples without a cpu label"
	CHECKS=$((CHECKS + 1))
	pprof -raw nocpu.pb.gz | grep -q 'cpu:\[' && fail "no --cpu-label: cpu labels in the profile"
	# the same totals with and without
	CHECKS=$((CHECKS + 1))
	[ "$(raw_totals cpu.pb.gz)" = "$(raw_totals nocpu.pb.gz)" ] || fail "--cpu-label changes the totals"
fi

# ---- 6. bad input -------------------------------------------------------------------------------
size=$(wc -c <"$TESTDATA/le-file.data")
head -c $((size / 2)) "$TESTDATA/le-file.data" >trunc.data
rm -f trunc.pb.gz
pa export --format pprof -i trunc.data -o trunc.pb.gz >trunc.out 2>trunc.err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 2 ] || fail "truncated file: exit status $st, not 2"
CHECKS=$((CHECKS + 1))
if [ "$(wc -l <trunc.err)" -ne 1 ] || ! grep -q "trunc.data" trunc.err ||
	! grep -qE 'offset [0-9]+' trunc.err; then
	fail "truncated file: not one line naming the file and an offset: $(head -n 3 trunc.err)"
fi
CHECKS=$((CHECKS + 1))
ls trunc.pb.gz* >/dev/null 2>&1 && fail "truncated file: output left behind: $(ls trunc.pb.gz*)"
CHECKS=$((CHECKS + 1))
[ -s trunc.out ] && fail "truncated file: something on standard output"

# ---- 7. a recording made now --------------------------------------------------------------------
if [ $have_perf = 0 ]; then
	note "no perf here: no recording made"
	finish
fi
if ! command -v cc >/dev/null 2>&1; then
	note "no C compiler: no recording made"
	finish
fi
cat >prog.c <<'EOF'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}
__attribute__((noinline)) static unsigned long pprof_leaf_a(unsigned long x)
{
	for (int i = 0; i < 4000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
__attribute__((noinline)) static unsigned long pprof_leaf_b(unsigned long x)
{
	for (int i = 0; i < 12000; i++)
		x = x * 2862933555777941757ul + 3037000493ul;
	return x;
}
__attribute__((noinline)) static unsigned long pprof_mid(unsigned long x)
{
	return pprof_leaf_a(x) ^ pprof_leaf_b(x + 1);
}
int main(int argc, char **argv)
{
	double end = now_ms() + (argc > 1 ? atof(argv[1]) : 300);
	unsigned long x = 1;
	while (now_ms() < end)
		x = pprof_mid(x);
	sink = x;
	return 0;
}
EOF
if ! cc -O1 -g -fno-omit-frame-pointer -Wl,--build-id -o prog prog.c; then
	note "cannot build the test program: no recording made"
	finish
fi
if ! perf record -q -g -F 999 -o fresh.data -- ./prog 300 >/dev/null 2>&1 || [ ! -s fresh.data ]; then
	note "perf record is refused here: no recording made"
	finish
fi
check_profile "fresh" fresh.data
check_profile "fresh --comms prog" fresh.data --comms prog
if export_pprof "fresh" fresh.pb.gz fresh.data; then
	pprof -raw fresh.pb.gz >fresh.raw
	pprof_flat fresh.pb.gz 0 >fresh.flat
	# the program's functions with samples, as pa report finds them (not
	# a guess of where this recording's samples fell; an address with no
	# symbol, such as a PLT stub's, is no function pprof names)
	pa report -i fresh.data --stdio -q --no-children -g none --dsos prog --sort sym 2>/dev/null |
		awk '$2 == "[.]" && $3 !~ /^0x/ {print $3}' | LC_ALL=C sort -u >fresh.fns
	[ -s fresh.fns ] || note "fresh: no sample in the program itself"
	while read -r fn; do
		CHECKS=$((CHECKS + 1))
		grep -q "^$fn	" fresh.flat || fail "fresh: no samples in $fn"
	done <fresh.fns
	# the program's mapping: its build-id as readelf reads it, with functions,
	# file names and line numbers (built with -g)
	id=$(readelf -n prog 2>/dev/null | awk '/Build ID:/ {print $3; exit}')
	CHECKS=$((CHECKS + 1))
	if [ -z "$id" ]; then
		fail "fresh: readelf finds no build-id in the program"
	else
		awk '/^Mappings/ {m = 1; next} m' fresh.raw | grep -E " $WORK/prog $id " |
			grep -q '\[FN\]\[FL\]\[LN\]' ||
			fail "fresh: no mapping of $WORK/prog with build-id $id and [FN][FL][LN]: $(awk '/^Mappings/,0' fresh.raw | grep prog)"
	fi
	# the main program is mapping 1 (pprof's "File:")
	CHECKS=$((CHECKS + 1))
	pprof -top fresh.pb.gz | grep -qx 'File: prog' || fail "fresh: the main mapping is not the program"
	# their source file and lines: those defined in prog.c (a sample can
	# fall in _init or _start, from the C runtime's objects without lines)
	while read -r fn; do
		grep -qE "[ *]$fn\(" prog.c || continue
		CHECKS=$((CHECKS + 1))
		grep -qE " $fn prog\.c:[0-9]+ " fresh.raw || fail "fresh: $fn has no prog.c line"
	done <fresh.fns
fi
finish
