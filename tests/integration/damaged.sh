#!/usr/bin/env bash
# A damaged optional header section is not a damaged file. Each feature
# section of the fixtures is damaged in turn (perfdata.py damage: a string
# length or count no file has bytes for; a section table entry pointing at
# the file header; in a pipe, a HEADER_FEATURE record with a bad length or
# no payload), and then:
#   - every pa command reads the file, exit status 0, with one warning line
#     naming the file, the feature and the offset (none for a section pa
#     neither parses nor checks: BPF_PROG_INFO, PMU_CAPS...);
#   - `pa header` prints what perf report --header-only prints for that
#     feature in the damaged file, and for every other feature what perf
#     prints for the intact file. perf 6.1 stops reading the features at
#     the first one that fails (file mode: the later ones print empty, some
#     with the analysis host's cpuid or PMUs; pipe mode: "failed to process
#     type: 80", nothing after): pa reads on;
#   - `pa report --stdio` prints what perf report prints for the damaged
#     file: all the samples.
# Big-endian fixtures: the same damage in the BE file and its LE twin (the
# same perf inject -b output, testdata/README.md), pa on the BE one against
# perf on the LE one. BUILD_ID: an entry of a bad size ends the table there,
# as for perf (the entries before it are kept). Damage in what the samples
# need (attrs, data) stays fatal, and so does a file cut short (a section
# past its end): bad-input.sh.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
need_python
private_home
cd "$WORK" || exit 1

# merge FEAT INTACT DAMAGED [drop|LINE]: INTACT's lines, those of FEAT
# (perf's lines for it, told by their start) replaced by DAMAGED's, or
# dropped, or replaced by one given line.
merge() {
	awk -v want="$1" -v mode="${4:-}" '
	function feat(l) {
		if (l ~ /^# hostname :/) return "HOSTNAME"
		if (l ~ /^# os release :/) return "OSRELEASE"
		if (l ~ /^# perf version :/) return "VERSION"
		if (l ~ /^# arch :/) return "ARCH"
		if (l ~ /^# nrcpus /) return "NRCPUS"
		if (l ~ /^# cpudesc :/) return "CPUDESC"
		if (l ~ /^# cpuid :/) return "CPUID"
		if (l ~ /^# total memory :/) return "TOTAL_MEM"
		if (l ~ /^# cmdline :/) return "CMDLINE"
		if (l ~ /^# event /) return "EVENT_DESC"
		if (l ~ /^# [A-Z_]+ info available/) { split(l, w, " "); return w[2] }
		if (l ~ /^# pmu mappings:/) return "PMU_MAPPINGS"
		if (l ~ /^# group:/) return "GROUP_DESC"
		if (l ~ /^# time of / || l ~ /^# sample duration/) return "SAMPLE_TIME"
		if (l ~ /^# clockid /) return "CLOCKID"
		if (l ~ /^# compressed :/) return "COMPRESSED"
		return ""
	}
	FILENAME == ARGV[1] { if (feat($0) == want) repl[nr++] = $0; next }
	feat($0) == want {
		if (!done) {
			if (mode == "drop") ;
			else if (mode != "") print mode
			else for (i = 0; i < nr; i++) print repl[i]
			done = 1
		}
		next
	}
	{ print }' "$3" "$2"
}

# Features pa parses or checks (the others it skips by size: no warning
# when damaged).
parsed=" BUILD_ID HOSTNAME OSRELEASE VERSION ARCH NRCPUS CPUDESC CPUID TOTAL_MEM CMDLINE EVENT_DESC CPU_TOPOLOGY NUMA_TOPOLOGY GROUP_DESC PMU_MAPPINGS CACHE SAMPLE_TIME MEM_TOPOLOGY CLOCKID COMPRESSED "
# Features whose first u32 is a length or a count ("len" damages them).
counted=" HOSTNAME OSRELEASE VERSION ARCH CPUDESC CPUID CMDLINE EVENT_DESC CPU_TOPOLOGY NUMA_TOPOLOGY PMU_MAPPINGS GROUP_DESC CACHE MEM_TOPOLOGY "

ALL="BUILD_ID HOSTNAME OSRELEASE VERSION ARCH NRCPUS CPUDESC CPUID TOTAL_MEM CMDLINE EVENT_DESC CPU_TOPOLOGY NUMA_TOPOLOGY BRANCH_STACK PMU_MAPPINGS GROUP_DESC AUXTRACE STAT CACHE SAMPLE_TIME MEM_TOPOLOGY CLOCKID DIR_FORMAT BPF_PROG_INFO BPF_BTF COMPRESSED CPU_PMU_CAPS CLOCK_DATA HYBRID_TOPOLOGY PMU_CAPS"

# One warning line naming the file, the feature and an offset, or none.
# check_warning WHAT ERRFILE PATH FEAT KIND(malformed|out of bounds|none)
check_warning() {
	local what=$1 errf=$2 path=$3 f=$4 kind=$5
	CHECKS=$((CHECKS + 1))
	if [ "$kind" = none ]; then
		[ -s "$errf" ] && fail "$what: unexpected stderr: $(head -n 2 "$errf")"
		return
	fi
	local re="^pa: '${path//./\\.}': warning: $kind $f feature section at offset [0-9]+: ignored\$"
	if [ "$(wc -l <"$errf")" -ne 1 ] || ! grep -Eq "$re" "$errf"; then
		fail "$what: want one line /$re/, got: $(head -n 3 "$errf")"
	fi
}

# once: perf's header and pa's other commands on an intact file are the
# same for every damaged copy of it (same path, mtime and bytes)
declare -A ONCE=()
# once_out CMD ARGS... (the last is the file): CMD's stdout, made once
once_out() {
	local key n
	key="$* $(stat -c '%Y %s' "${!#}") $(cksum <"${!#}")"
	if [ -z "${ONCE[$key]:-}" ]; then
		n=once.${#ONCE[@]}
		"$@" >"$n" 2>/dev/null
		ONCE[$key]=$n
	fi
	cat "${ONCE[$key]}"
}

# pa header on DAMAGED (BASE its intact original) against perf's output on
# the perf-readable pair PDAMAGED / PBASE (the same files for LE; the LE
# twin for BE). All four share one mtime ("captured on").
# check_header WHAT FEAT KIND DAMAGED PDAMAGED PBASE [pipe]
check_header() {
	local what=$1 f=$2 kind=$3 d=$4 pd=$5 pb=$6 pipe=${7:-}
	pa header -i "$d" >hdr.pa 2>hdr.err
	local st=$?
	[ "$st" -eq 0 ] || { fail "$what: pa header exit status $st: $(head -n 2 hdr.err)"; return; }
	check_warning "$what: pa header" hdr.err "$d" "$f" "$kind"
	once_out perf_header "$pb" >hdr.intact
	# (at most 4 GB of address space: perf 6.1 callocs a damaged count's
	# worth of GROUP_DESC entries, fails on the first string and then
	# frees every entry, touching gigabytes for minutes; refused the
	# calloc, it fails the same way at once, and prints the same)
	(ulimit -v 4194304 && perf report --header-only -i "$pd") >hdr.damaged 2>hdr.perr
	local pst=$?
	local mode=""
	if [ -n "$pipe" ]; then
		# perf stops at the record it fails to process; its EVENT_DESC
		# reader does not fail ("event desc: not available")
		[ "$f" = EVENT_DESC ] || mode=drop
	elif [ "$pst" -ne 0 ]; then
		# perf 6.1 crashes on a damaged PMU_MAPPINGS section (a count
		# without the table); pa prints what perf prints without one
		# or CMDLINE; pa prints what perf prints without one
		case $f in
		PMU_MAPPINGS) mode="# pmu mappings: not available" ;;
		CMDLINE) mode="# cmdline : " ;;
		*) fail "$what: perf report --header-only exit status $pst"; return ;;
		esac
		note "$what: perf exit status $pst; pa prints '$mode'"
	elif [ "$f" = CPUID ] && [ "$kind" != none ]; then
		# perf prints the analysis host's cpuid for one it cannot read
		mode="# cpuid : (null)"
	fi
	merge "$f" hdr.intact hdr.damaged "$mode" >hdr.exp
	same "$what: pa header vs perf report --header-only" hdr.exp hdr.pa
}

# The other commands read it all, with the same warning, and print what
# they print for the intact file (script, buildid-list, dump).
check_commands() {
	local what=$1 f=$2 kind=$3 d=$4 base=$5
	local cmd
	for cmd in "script" "buildid-list" "dump"; do
		# shellcheck disable=SC2086
		once_out pa $cmd -i "$base" >cmd.intact
		pa $cmd -i "$d" >cmd.got 2>cmd.err
		local st=$?
		[ "$st" -eq 0 ] || { fail "$what: pa $cmd exit status $st: $(head -n 2 cmd.err)"; continue; }
		check_warning "$what: pa $cmd" cmd.err "$d" "$f" "$kind"
		if [ "$f" = EVENT_DESC ]; then
			# dump names the events EVENT_DESC names, and no others
			sed -i -E 's/ event: [^ ]+//' cmd.intact cmd.got
		fi
		# (dump prints the file's offsets, which the damage does not move)
		same "$what: pa $cmd vs the intact file's" cmd.intact cmd.got
	done
}

# pa report on DAMAGED vs perf report on PDAMAGED.
check_report_damaged() {
	local what=$1 d=$2 pd=$3
	perf report -i "$pd" --stdio 2>/dev/null | grep -v '^# (Tip' >rep.exp
	pa report -i "$d" --stdio >rep.got 2>rep.err || { fail "$what: pa report failed: $(head -n 2 rep.err)"; return; }
	[ -s rep.exp ] || { fail "$what: perf report printed nothing"; return; }
	same_graphs "$what: pa report --stdio vs perf report" rep.exp rep.got
}

# Values (not lengths or counts) read from the file header parse: garbage,
# the same for perf and pa.
values=" NRCPUS TOTAL_MEM SAMPLE_TIME CLOCKID COMPRESSED "
kind_of() { # FEAT HOW
	[ "$2" = misplaced ] && [[ $values == *" $1 "* ]] && { echo none; return; }
	case $parsed in *" $1 "*) echo malformed ;; *) echo none ;; esac
}

# Which features of a fixture to damage: all of them in le-file.data (and
# its BE twin, and the pipes), in the others those le-file.data lacks or has
# otherwise (a group, two events, compression): the test stays short.
pick() { # FIXTURE FEAT
	case $1 in
	le-file.data | be-file.data | le-pipe.data | be-pipe.data) [ "$2" != TRACING_DATA ] ;;
	le-group.data | be-group.data) [[ " GROUP_DESC EVENT_DESC " == *" $2 "* ]] ;;
	le-two-events.data) [ "$2" = EVENT_DESC ] ;;
	*) [[ " COMPRESSED CLOCKID " == *" $2 "* ]] ;;
	esac
}

# candidates FIXTURE HOW: the features to damage that way.
candidates() {
	local f
	for f in $ALL; do
		pick "$1" "$f" || continue
		[ "$2" = len ] && [[ $counted != *" $f "* ]] && continue
		# (BUILD_ID: perf reads the file header as entries; "entry" below)
		[ "$2" = misplaced ] && [ "$f" = BUILD_ID ] && continue
		# (values read from the file header are garbage, which pa may
		# take for the other byte order: perf inject -b sections)
		[ "$2" = misplaced ] && [[ $values == *" $f "* ]] && continue
		echo "$f"
	done
}

# damage_each FIXTURE HOW [TWIN]: damaged copies (one python run, which is
# slow to start) FIXTURE.FEAT.HOW.data, and TWIN.FEAT.HOW.data of the twin;
# prints the features damaged.
damage_each() {
	local name=$1 how=$2 twin=${3:-} cands
	cands=$(candidates "$name" "$how")
	[ -n "$cands" ] || return 0
	# shellcheck disable=SC2086
	if [ -n "$twin" ] && [ "$twin" != "$name" ]; then
		python3 "$PDTOOL" damage-each "$TESTDATA/$twin" "$twin" "$how" $cands >/dev/null ||
			fail "$twin: perfdata.py damage-each $how"
	fi
	# shellcheck disable=SC2086
	python3 "$PDTOOL" damage-each "$TESTDATA/$name" "$name" "$how" $cands ||
		fail "$name: perfdata.py damage-each $how"
}

# Each fixture's sections differ little (the same perf wrote them): a
# group and a zstd recording beside the plain one, each byte order and
# mode. Under an emulator or a sanitizer (each pa run takes seconds
# there), one fixture of each kind. PA_DAMAGED_ALL=1: every fixture.
LE_FILES="le-file.data le-group.data"
BE_FILES="be-file.data"
PIPES="le-pipe.data:le-pipe.data be-pipe.data:le-pipe.inj.data"
if [ "${PA_DAMAGED_ALL:-0}" = 1 ]; then
	LE_FILES="le-file.data le-group.data le-zstd.data le-two-events.data"
	BE_FILES="be-file.data be-group.data"
	PIPES="le-pipe-zstd.data:le-pipe-zstd.data $PIPES"
elif [ -n "$PA_EMU" ] || [ -n "${ASAN_OPTIONS:-}" ]; then
	LE_FILES=le-file.data PIPES=be-pipe.data:le-pipe.inj.data
	note "under ${PA_EMU:-a sanitizer}: le-file, be-file and be-pipe only"
fi

# ---- file mode, little-endian: both kinds of damage
for name in $LE_FILES; do
	B=$TESTDATA/$name
	[ -f "$B" ] || { fail "no fixture $name"; continue; }
	cp "$B" base.data
	for how in len misplaced; do
		for f in $(damage_each "$name" "$how"); do
			d=$name.$f.$how.data
			touch -r "$B" "$d" base.data
			kind=$(kind_of "$f" "$how")
			check_header "$d" "$f" "$kind" "$d" "$d" base.data
			# the other commands: each kind of damage once, or each
			# feature pa reads (len)
			if [ "$how" = len ] || [ "$f" = HOSTNAME ]; then
				[ "$name" = le-file.data ] && check_commands "$d" "$f" "$kind" "$d" base.data
				# without a build-id table, perf takes the running
				# kernel's symbols, pa only a kernel of the right
				# build-id (resolver/): not a header matter
				[ "$f" = BUILD_ID ] || check_report_damaged "$d" "$d" "$d"
			fi
		done
	done
done

# ---- BUILD_ID: an entry of a bad size ends the table (perf keeps the
# entries before it, silently)
for pair in le-file.data:le-file.data be-file.data:le-file.inj.data; do
	name=${pair%%:*} twin=${pair#*:}
	B=$TESTDATA/$name L=$TESTDATA/$twin
	python3 "$PDTOOL" damage "$B" "$name.bid.data" BUILD_ID entry &&
		python3 "$PDTOOL" damage "$L" "$twin.bid.data" BUILD_ID entry || { fail "$name: perfdata.py damage"; continue; }
	d=$name.bid.data pd=$twin.bid.data
	[ -f "$d" ] && [ -f "$pd" ] || { fail "$name: no build-id damage made"; continue; }
	perf buildid-list -i "$pd" >bid.exp 2>/dev/null
	[ "$(wc -l <bid.exp)" -eq 1 ] || fail "$pd: perf buildid-list printed $(wc -l <bid.exp) lines, not the first entry only"
	pa buildid-list -i "$d" >bid.got 2>bid.err || fail "$d: pa buildid-list failed: $(head -n 2 bid.err)"
	same "$d: pa buildid-list vs perf buildid-list on $pd" bid.exp bid.got
	grep -Eq "^pa: '$d': warning: bad build-id entry size 4 in BUILD_ID feature section at offset [0-9]+: ignored\$" bid.err ||
		fail "$d: no build-id warning: $(head -n 2 bid.err)"
	[ "$(wc -l <bid.err)" -eq 1 ] || fail "$d: more than one line on stderr"
	pass
	check_report_damaged "$d" "$d" "$pd"
done

# ---- file mode, big-endian: against the LE twin (perf 6.1 misreads BE)
for be in $BE_FILES; do
	x=${be#be-}
	twin=le-${x%.data}.inj.data
	B=$TESTDATA/$be L=$TESTDATA/$twin
	[ -f "$B" ] && [ -f "$L" ] || { fail "no fixture $be or $twin"; continue; }
	cp "$L" twin.data
	for how in len misplaced; do
		for f in $(damage_each "$be" "$how" "$twin"); do
			d=$be.$f.$how.data pd=$twin.$f.$how.data
			touch -r "$L" "$d" "$pd" twin.data
			kind=$(kind_of "$f" "$how")
			check_header "$d" "$f" "$kind" "$d" "$pd" twin.data
			[ "$how" = len ] && check_report_damaged "$d" "$d" "$pd"
		done
	done
done

# ---- pipe mode: a damaged HEADER_FEATURE record (perf stops there; pa
# warns, leaves that feature out and reads on)
for pair in $PIPES; do
	name=${pair%%:*} twin=${pair#*:}
	B=$TESTDATA/$name L=$TESTDATA/$twin
	cp "$L" twin.data
	for how in len empty; do
		for f in $(damage_each "$name" "$how" "$twin"); do
			d=$name.$f.$how.data pd=$twin.$f.$how.data
			touch -r "$L" "$d" "$pd" twin.data
			kind=$(kind_of "$f" "$how")
			check_header "$d" "$f" "$kind" "$d" "$pd" twin.data pipe
			[ "$name" = le-pipe.data ] && [ "$how" = len ] && check_commands "$d" "$f" "$kind" "$d" "$B"
		done
	done
done

finish
