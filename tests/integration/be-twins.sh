#!/usr/bin/env bash
# Each big-endian fixture be-X.data must read exactly like its little-endian
# twin le-X.inj.data: same `pa header` (but for the "captured on" line, the
# file's mtime), `pa buildid-list` (with and without --with-hits) and
# `pa dump`. The twins are the outputs of the same `perf inject -b` run by an
# s390x perf and by the host perf (testdata/README.md), so they differ in
# byte order only; header.sh compares the LE twins with perf itself, and
# pa report on each BE file is compared with perf report on its LE twin.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
# perf and pa default to the build-id cache in $HOME/.debug (perf record
# writes to it; perf also reads ~/.perfconfig), which the tests running beside
# this one share: a private HOME. No debuginfod server either.
export HOME=$WORK/home
mkdir -p "$HOME" || exit 1
unset DEBUGINFOD_URLS

bes=$(be_fixtures)
[ -n "$bes" ] || { fail "no be-*.data fixtures in $TESTDATA"; finish; }

for be in $bes; do
	x=${be#be-}
	le=le-${x%.data}.inj.data
	B=$TESTDATA/$be L=$TESTDATA/$le
	[ -f "$L" ] || { fail "$be: no twin $le"; continue; }
	# Really big-endian (and the twin really little-endian).
	[ "$(head -c 8 "$B")" = 2ELIFREP ] || fail "$be: bytes 0-7 are not \"2ELIFREP\""
	[ "$(head -c 8 "$L")" = PERFILE2 ] || fail "$le: bytes 0-7 are not \"PERFILE2\""
	if is_pipe "$B"; then is_pipe "$L" || fail "$be is a pipe but $le is not"; fi
	pass

	for cmd in "header" "buildid-list" "buildid-list --with-hits" "dump"; do
		tag=${cmd// /}
		# shellcheck disable=SC2086
		pa $cmd -i "$B" >"$WORK/$be.$tag" 2>"$WORK/$be.$tag.err"
		sb=$?
		# shellcheck disable=SC2086
		pa $cmd -i "$L" >"$WORK/$le.$tag" 2>"$WORK/$le.$tag.err"
		sl=$?
		[ "$sb" -eq 0 ] || fail "$be: pa $cmd exit status $sb: $(head -n 2 "$WORK/$be.$tag.err")"
		[ "$sl" -eq 0 ] || fail "$le: pa $cmd exit status $sl: $(head -n 2 "$WORK/$le.$tag.err")"
		[ -s "$WORK/$be.$tag.err" ] && fail "$be: pa $cmd wrote to stderr: $(head -n 2 "$WORK/$be.$tag.err")"
		[ -s "$WORK/$le.$tag" ] || fail "$le: pa $cmd printed nothing"
		grep -v '^# captured on' "$WORK/$be.$tag" >"$WORK/$be.$tag.cmp"
		grep -v '^# captured on' "$WORK/$le.$tag" >"$WORK/$le.$tag.cmp"
		same "pa $cmd: $be vs $le" "$WORK/$le.$tag.cmp" "$WORK/$be.$tag.cmp"
	done
done

# pa report on each big-endian file prints what perf itself prints for its
# little-endian twin (perf 6.1 cannot read the big-endian one): rows, and
# call graphs in both orders.
if command -v perf >/dev/null 2>&1; then
	for be in $bes; do
		x=${be#be-}
		L=$TESTDATA/le-${x%.data}.inj.data
		[ -f "$L" ] || continue
		for o in "-q --no-children -g none --sort comm,dso,sym" "-q --no-children -g none --sort comm,dso" \
			"-q --sort comm,dso" "-q -g caller --sort dso,sym" "--no-children"; do
			# shellcheck disable=SC2086
			perf report -i "$L" --stdio $o 2>/dev/null | grep -v '^# (Tip' >"$WORK/exp"
			# shellcheck disable=SC2086
			pa report -i "$TESTDATA/$be" --stdio $o >"$WORK/got" 2>"$WORK/got.err" ||
				fail "$be: pa report $o failed: $(head -n 2 "$WORK/got.err")"
			[ -s "$WORK/exp" ] || fail "$(basename "$L"): perf report $o printed nothing"
			same "pa report $o on $be vs perf report on le-${x%.data}.inj.data" "$WORK/exp" "$WORK/got"
		done
	done
else
	fail "no perf: the big-endian reports could not be compared with perf's"
fi

# What the BE files must exercise, so that equal outputs mean something:
# samples with call chains, a build-id table, MMAP2 records carrying
# build-ids, two events, a group, dwarf user stacks, a pipe with
# HEADER_ATTR/HEADER_FEATURE/HEADER_BUILD_ID records.
want() { grep -q -- "$2" "$WORK/$1" || fail "$1 lacks '$2' (fixture no longer covers it?)"; pass; }
want be-file.data.dump 'PERF_RECORD_SAMPLE .* callchain: [1-9]'
want be-file.data.buildid-list '^[0-9a-f]\{40\} '
want be-buildid-mmap.data.dump 'PERF_RECORD_MMAP2 .* buildid [0-9a-f]\{40\}'
want be-two-events.data.header 'name = task-clock'
want be-group.data.header '^# group: '
want be-dwarf.data.dump ' stack: [1-9]'
want be-pipe.data.dump 'PERF_RECORD_HEADER_ATTR'
want be-pipe.data.dump 'PERF_RECORD_FEATURE HOSTNAME'
want be-pipe.data.dump 'PERF_RECORD_HEADER_BUILD_ID'

finish
