#!/usr/bin/env bash
# Broken inputs made from the fixtures: truncated copies, wrong magic,
# records of impossible sizes, feature sections out of bounds or with huge
# counts, corrupt compressed data. Each must make pa exit with status 2 and
# print exactly one line on stderr,
#   pa: 'FILE': MESSAGE at offset N
# with N inside the file (and N exact where the broken byte is known), and
# never crash (exit status >= 128) whatever the command.
#
# Which commands must notice: a broken header, attribute or feature section
# breaks every command; a broken record in a file-mode data section only
# the commands that read records (dump, buildid-list --with-hits; header and
# plain buildid-list only read the header, like perf's). In pipe mode every
# command reads the stream.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_python

CMDS_ALL=("dump" "header" "buildid-list" "buildid-list --with-hits")
CMDS_DATA=("dump" "buildid-list --with-hits")

info() { python3 "$PDTOOL" info "$1"; }
# getv INFO-FILE KEY [FIELD]: a value of `perfdata.py info` (FIELD of a,b,c)
getv() { sed -n "s/^$2=//p" "$1" | cut -d, -f"${3:-1}"; }
put() { python3 "$PDTOOL" put "$@" || { fail "perfdata.py put $*"; return 1; }; }

# run_case NAME SCOPE(all|data) [EXPECTED_OFFSET]
# Under a sanitizer or an emulator each broken file goes through half of
# the commands, in turn (case N, command J when N + J is even: dump and
# buildid-list, or header and buildid-list --with-hits, so one that reads
# the records each time); in_subset in lib.sh.
RUNCASE=0
# shellcheck disable=SC2034 # read by subset_note (lib.sh)
SUBSET_WHAT="broken file x command pairs" SUBSET_RULE="file N, command J when N + J is even"
run_case() {
	local name=$1 scope=$2 want_off=${3:-} f=$WORK/$1 size cmd c st lines line off must j=0
	size=$(stat -c %s "$f")
	RUNCASE=$((RUNCASE + 1))
	for cmd in "${CMDS_ALL[@]}"; do
		in_subset $((RUNCASE + j++)) 2 || continue
		must=1
		if [ "$scope" = data ]; then
			must=0
			for c in "${CMDS_DATA[@]}"; do [ "$c" = "$cmd" ] && must=1; done
		fi
		# shellcheck disable=SC2086
		pa $cmd -i "$f" >"$f.out" 2>"$f.err"
		st=$?
		CHECKS=$((CHECKS + 1))
		if [ "$st" -ge 126 ]; then
			fail "$name: pa $cmd crashed (exit status $st): $(tail -n 2 "$f.err")"
			continue
		fi
		if [ "$st" -eq 0 ] && [ "$must" = 0 ]; then
			continue # allowed not to look at the broken part
		fi
		if [ "$st" -ne 2 ]; then
			fail "$name: pa $cmd exit status $st, want 2 (stderr: $(head -n 2 "$f.err"))"
			continue
		fi
		lines=$(wc -l <"$f.err")
		line=$(head -n 1 "$f.err")
		if [ "$lines" -ne 1 ]; then
			fail "$name: pa $cmd printed $lines lines on stderr, want 1:"
			sed 's/^/    /' "$f.err" | head -n 5
			continue
		fi
		if ! [[ $line =~ ^pa:\ \'$f\':\ .+\ at\ offset\ ([0-9]+)$ ]]; then
			fail "$name: pa $cmd: stderr is not \"pa: '$f': ... at offset N\": $line"
			continue
		fi
		off=${BASH_REMATCH[1]}
		if [ "$off" -gt "$size" ]; then
			fail "$name: pa $cmd: offset $off is past the end of the $size-byte file: $line"
		elif [ -n "$want_off" ] && [ "$off" != "$want_off" ]; then
			fail "$name: pa $cmd: offset $off, want $want_off: $line"
		fi
	done
}

# warn_case NAME: damage in an optional feature section is no error (as for
# perf): every command exits 0 with exactly one line on stderr,
#   pa: 'FILE': warning: MESSAGE at offset N: ignored
# (tests/integration/damaged.sh checks what each command then prints)
warn_case() {
	local name=$1 f=$WORK/$1 cmd st
	for cmd in "${CMDS_ALL[@]}"; do
		# shellcheck disable=SC2086
		pa $cmd -i "$f" >"$f.out" 2>"$f.err"
		st=$?
		CHECKS=$((CHECKS + 1))
		if [ "$st" -ne 0 ]; then
			fail "$name: pa $cmd exit status $st, want 0 (stderr: $(head -n 2 "$f.err"))"
		elif [ "$(wc -l <"$f.err")" -ne 1 ] ||
			! grep -Eq "^pa: '$f': warning: .* at offset [0-9]+: ignored\$" "$f.err"; then
			fail "$name: pa $cmd: stderr is not one warning line: $(head -n 3 "$f.err")"
		fi
	done
}

# cut NAME SRC BYTES [SCOPE]: the first BYTES bytes of fixture SRC
cut_case() {
	head -c "$3" "$TESTDATA/$2" >"$WORK/$1"
	run_case "$1" "${4:-all}"
}
# copy NAME SRC: a copy to patch
copy() { cp "$TESTDATA/$2" "$WORK/$1" && chmod u+w "$WORK/$1"; }

for src in le-file.data be-file.data le-zstd.data le-pipe.data be-pipe.data le-pipe-zstd.data; do
	[ -f "$TESTDATA/$src" ] || { fail "missing fixture $src"; continue; }
	info "$TESTDATA/$src" >"$WORK/$src.info"
done

# ---- truncated copies ---------------------------------------------------------
for src in le-file.data be-file.data; do
	I=$WORK/$src.info
	s=${src%.data}
	cut_case "$s.cut0" "$src" 0
	cut_case "$s.cut7" "$src" 7
	cut_case "$s.cut16" "$src" 16
	cut_case "$s.cut100" "$src" 100
	cut_case "$s.cut-attrs" "$src" $(($(getv "$I" attrs_offset) + 20))
	cut_case "$s.cut-sample" "$src" $(($(getv "$I" first_sample) + $(getv "$I" first_sample 2) / 2))
	cut_case "$s.cut-data-end" "$src" "$(getv "$I" feat_offset)"
	cut_case "$s.cut-feat-table" "$src" $(($(getv "$I" feat_offset) + 8))
	cut_case "$s.cut-cmdline" "$src" $(($(getv "$I" feat_CMDLINE) + 10))
done
I=$WORK/le-zstd.data.info
cut_case le-zstd.cut-compressed le-zstd.data $(($(getv "$I" first_compressed) + $(getv "$I" first_compressed 2) / 2))
for src in le-pipe.data be-pipe.data le-pipe-zstd.data; do
	I=$WORK/$src.info
	s=${src%.data}
	cut_case "$s.cut0" "$src" 0
	cut_case "$s.cut7" "$src" 7
	cut_case "$s.cut-rechdr" "$src" 20 # inside the first record's header
	cut_case "$s.cut-feature" "$src" $(($(getv "$I" featrec_HOSTNAME) + 30))
done
for src in le-pipe.data be-pipe.data; do
	I=$WORK/$src.info
	cut_case "${src%.data}.cut-sample" "$src" $(($(getv "$I" first_sample) + $(getv "$I" first_sample 2) / 2))
done
I=$WORK/le-pipe-zstd.data.info
cut_case le-pipe-zstd.cut-compressed le-pipe-zstd.data $(($(getv "$I" first_compressed) + $(getv "$I" first_compressed 2) / 2))

# ---- patched copies -------------------------------------------------------------
# wrong magic
for src in le-file.data le-pipe.data be-pipe.data; do
	n=${src%.data}.magic
	copy "$n" "$src"
	printf 'PERFILE3' | dd of="$WORK/$n" conv=notrunc status=none
	run_case "$n" all 0
done

# a record of size 0, of size 4, and one running past the end of the data
for src in le-file.data be-file.data le-pipe.data be-pipe.data; do
	I=$WORK/$src.info
	s=${src%.data}
	scope=data
	case $src in *pipe*) scope=all ;; esac
	smp=$(getv "$I" first_sample)
	copy "$s.size0" "$src" && put "$WORK/$s.size0" $((smp + 6)) 2 0 && run_case "$s.size0" $scope "$smp"
	copy "$s.size4" "$src" && put "$WORK/$s.size4" $((smp + 6)) 2 4 && run_case "$s.size4" $scope "$smp"
	last=$(getv "$I" last_record)
	copy "$s.size-past-end" "$src" && put "$WORK/$s.size-past-end" $((last + 6)) 2 $((0xfff8)) &&
		run_case "$s.size-past-end" $scope
done

# file-mode header fields
for src in le-file.data be-file.data; do
	I=$WORK/$src.info
	s=${src%.data}
	fsize=$(getv "$I" file_size)
	copy "$s.attr-size" "$src" && put "$WORK/$s.attr-size" 16 8 8 && run_case "$s.attr-size" all
	copy "$s.attrs-past-eof" "$src" && put "$WORK/$s.attrs-past-eof" 24 8 $((fsize + 4096)) &&
		run_case "$s.attrs-past-eof" all
	copy "$s.data-past-eof" "$src" && put "$WORK/$s.data-past-eof" 40 8 $((fsize + 4096)) &&
		run_case "$s.data-past-eof" all
	copy "$s.data-size-huge" "$src" && put "$WORK/$s.data-size-huge" 48 8 $((1 << 62)) &&
		run_case "$s.data-size-huge" all
	# the ids of the first attribute: its file_section follows the attr
	ids=$(($(getv "$I" attrs_offset) + $(getv "$I" attr_size) - 16))
	copy "$s.ids-past-eof" "$src" && put "$WORK/$s.ids-past-eof" "$ids" 8 $((fsize + 4096)) &&
		run_case "$s.ids-past-eof" all
done

# feature sections: out of bounds, huge counts, bad build-id entry
for src in le-file.data be-file.data; do
	I=$WORK/$src.info
	s=${src%.data}
	fsize=$(getv "$I" file_size)
	te=$(getv "$I" feat_HOSTNAME 3)
	copy "$s.feat-past-eof" "$src" && put "$WORK/$s.feat-past-eof" "$te" 8 $((fsize + 4096)) &&
		run_case "$s.feat-past-eof" all
	te=$(getv "$I" feat_CMDLINE 3)
	copy "$s.feat-size-huge" "$src" && put "$WORK/$s.feat-size-huge" $((te + 8)) 8 $((1 << 40)) &&
		run_case "$s.feat-size-huge" all
	copy "$s.event-desc-nre" "$src" && put "$WORK/$s.event-desc-nre" "$(getv "$I" feat_EVENT_DESC)" 4 $((0xffffffff)) &&
		warn_case "$s.event-desc-nre"
	copy "$s.cmdline-nr" "$src" && put "$WORK/$s.cmdline-nr" "$(getv "$I" feat_CMDLINE)" 4 $((0xffffffff)) &&
		warn_case "$s.cmdline-nr"
	copy "$s.pmu-nr" "$src" && put "$WORK/$s.pmu-nr" "$(getv "$I" feat_PMU_MAPPINGS)" 4 $((0x7fffffff)) &&
		warn_case "$s.pmu-nr"
	bid=$(getv "$I" feat_BUILD_ID)
	copy "$s.buildid-size0" "$src" && put "$WORK/$s.buildid-size0" $((bid + 6)) 2 0 &&
		warn_case "$s.buildid-size0"
done
# the same in a pipe: the EVENT_DESC feature record, payload after feat id
for src in le-pipe.data be-pipe.data; do
	I=$WORK/$src.info
	s=${src%.data}
	fr=$(getv "$I" featrec_EVENT_DESC)
	copy "$s.event-desc-nre" "$src" && put "$WORK/$s.event-desc-nre" $((fr + 16)) 4 $((0xffffffff)) &&
		warn_case "$s.event-desc-nre"
	# a HEADER_FEATURE record too short for its feature id
	fr=$(getv "$I" featrec_HOSTNAME)
	copy "$s.feature-short" "$src" && put "$WORK/$s.feature-short" $((fr + 6)) 2 12 &&
		run_case "$s.feature-short" all "$fr"
	# a HEADER_ATTR record with no attr in it (the first record)
	copy "$s.attr-empty" "$src" && put "$WORK/$s.attr-empty" 22 2 8 && run_case "$s.attr-empty" all 16
done

# compressed data: a corrupt zstd frame, and a record of size 0 inside
for src in le-zstd.data le-pipe-zstd.data; do
	I=$WORK/$src.info
	s=${src%.data}
	scope=data
	case $src in *pipe*) scope=all ;; esac
	c=$(getv "$I" first_compressed)
	copy "$s.zstd-magic" "$src"
	printf '\0\0\0\0' | dd of="$WORK/$s.zstd-magic" bs=1 seek=$((c + 8)) conv=notrunc status=none
	run_case "$s.zstd-magic" $scope "$c"
	if command -v zstd >/dev/null 2>&1; then
		if python3 "$PDTOOL" zero-inner "$TESTDATA/$src" "$WORK/$s.inner-size0"; then
			run_case "$s.inner-size0" $scope "$c"
		else
			fail "perfdata.py zero-inner $src"
		fi
	else
		note "no zstd program: no test of a bad record inside compressed data"
	fi
done

# ---- not broken: a pipe with its header and nothing else is an empty stream ----
head -c 16 "$TESTDATA/le-pipe.data" >"$WORK/empty-pipe"
for cmd in "${CMDS_ALL[@]}"; do
	# shellcheck disable=SC2086
	pa $cmd -i "$WORK/empty-pipe" >"$WORK/empty-pipe.out" 2>"$WORK/empty-pipe.err"
	st=$?
	[ "$st" -eq 0 ] || fail "empty pipe: pa $cmd exit status $st: $(head -n 2 "$WORK/empty-pipe.err")"
	[ -s "$WORK/empty-pipe.err" ] && fail "empty pipe: pa $cmd wrote to stderr: $(head -n 2 "$WORK/empty-pipe.err")"
	pass
done

# ---- not broken: a live fork from a thread with no maps (kthreadd starting
# a kworker while perf records system-wide). Made from le-sysw.data by
# turning a synthesized FORK of a kernel thread into a live one (misc 0).
# Nothing to report, but the child's empty map set must be handled (a
# sanitizer build catches memcpy from NULL here).
fork=$(python3 "$PDTOOL" forks "$TESTDATA/le-sysw.data" | awk '$4 == 2 {print $1; exit}')
if [ -n "$fork" ]; then
	copy kthread-fork le-sysw.data && put "$WORK/kthread-fork" $((fork + 4)) 2 0
	for cmd in "dump" "buildid-list --with-hits"; do
		# shellcheck disable=SC2086
		pa $cmd -i "$WORK/kthread-fork" >"$WORK/kthread-fork.out" 2>"$WORK/kthread-fork.err"
		st=$?
		[ "$st" -eq 0 ] || fail "kthread-fork: pa $cmd exit status $st: $(head -n 2 "$WORK/kthread-fork.err")"
		[ -s "$WORK/kthread-fork.err" ] && fail "kthread-fork: pa $cmd wrote to stderr: $(head -n 2 "$WORK/kthread-fork.err")"
		pass
	done
else
	fail "le-sysw.data has no FORK from pid 2 (fixture changed?)"
fi

finish
