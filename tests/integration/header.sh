#!/usr/bin/env bash
# `pa header -i F` against `perf report --header-only -i F` for every
# little-endian fixture (the recordings and the LE twins of the BE ones),
# file and pipe mode alike, line for line; the big-endian pipe against its
# LE twin; a pipe recorded now.
#
# The big-endian fixtures are not compared with perf here: perf 6.1 cannot
# read them right (it reads the feature sections perf inject -b copies
# unconverted as garbage, "(null)", and stops at the first HEADER_FEATURE
# of a big-endian pipe, "wrong feature ID"); be-twins.sh checks that pa
# reads each of them exactly as it reads its LE twin, which is compared
# with perf here.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
# perf and pa default to the build-id cache in $HOME/.debug (perf record
# writes to it; perf also reads ~/.perfconfig), which the tests running beside
# this one share: a private HOME. No debuginfod server either.
export HOME=$WORK/home
mkdir -p "$HOME" || exit 1
unset DEBUGINFOD_URLS

for name in $(le_fixtures); do
	f=$TESTDATA/$name
	pa header -i "$f" >"$WORK/$name.pa" 2>"$WORK/$name.pa.err"
	st=$?
	[ "$st" -eq 0 ] || { fail "$name: pa header exit status $st: $(head -n 3 "$WORK/$name.pa.err")"; continue; }
	[ -s "$WORK/$name.pa.err" ] && fail "$name: pa header wrote to stderr: $(head -n 3 "$WORK/$name.pa.err")"
	perf_header "$f" >"$WORK/$name.perf"
	[ -s "$WORK/$name.perf" ] || { fail "$name: perf printed no header"; continue; }
	# Pipe mode too, every line: perf's file header of zeros (the
	# version the magic says), its closing "# ========", then the features
	# in the order of their records, and no "missing features" line.
	same "$name: pa header vs perf report --header-only" "$WORK/$name.perf" "$WORK/$name.pa"
	if is_pipe "$f"; then
		pipe_feature_lines_perf <"$WORK/$name.perf" | grep -q . || fail "$name: no feature lines in perf's output"
		# From standard input (a pipe): the same, but for the time,
		# which is the pipe's for perf and pa alike.
		# shellcheck disable=SC2002 # a pipe on stdin, on purpose
		cat "$f" | pa header -i - >"$WORK/$name.stdin" 2>&1
		# shellcheck disable=SC2002
		cat "$f" | perf report --header-only -i - >"$WORK/$name.perf.stdin" 2>/dev/null
		grep -q '^# captured on    : ' "$WORK/$name.stdin" || fail "$name: stdin: no 'captured on' line"
		for x in stdin perf.stdin; do grep -v '^# captured on' "$WORK/$name.$x" >"$WORK/$name.$x.cmp"; done
		same "$name: pa header -i - vs perf report --header-only -i - (stdin)" \
			"$WORK/$name.perf.stdin.cmp" "$WORK/$name.stdin.cmp"
	fi
done

# A big-endian pipe prints what perf prints for its LE twin (perf 6.1
# cannot read the BE one), "captured on" included: same mtime.
for be in $(be_fixtures); do
	is_pipe "$TESTDATA/$be" || continue
	x=${be#be-}
	twin=le-${x%.data}.inj.data
	[ -f "$TESTDATA/$twin" ] || { fail "$be: no twin $twin"; continue; }
	cp "$TESTDATA/$be" "$WORK/$be" && cp "$TESTDATA/$twin" "$WORK/$twin" && touch -r "$TESTDATA/$twin" "$WORK/$be" "$WORK/$twin"
	pa header -i "$WORK/$be" >"$WORK/$be.pa" 2>"$WORK/$be.pa.err" || fail "$be: pa header failed: $(head -n 2 "$WORK/$be.pa.err")"
	[ -s "$WORK/$be.pa.err" ] && fail "$be: pa header wrote to stderr: $(head -n 2 "$WORK/$be.pa.err")"
	perf_header "$WORK/$twin" >"$WORK/$twin.perf"
	same "$be: pa header vs perf report --header-only on $twin" "$WORK/$twin.perf" "$WORK/$be.pa"
done

# A pipe recorded here and now (perf record -o - > FILE), both ways.
if command -v cc >/dev/null 2>&1 && cc -O1 -g -o "$WORK/burn" "$TESTDATA/src/burn.c" 2>/dev/null; then
	workload=("$WORK/burn" 20)
else
	# shellcheck disable=SC2016 # expanded by that sh
	workload=(sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done')
fi
for c in "fresh.pipe|-g -F 999" "fresh-zstd.pipe|-F 999 -z"; do
	name=${c%%|*}
	# shellcheck disable=SC2206
	opts=(${c#*|})
	f=$WORK/$name.data
	if ! perf record -q "${opts[@]}" -o - -- "${workload[@]}" >"$f" 2>"$WORK/$name.rec.err" || [ ! -s "$f" ]; then
		note "$name: perf record ${opts[*]} -o - failed here, skipped: $(head -n 1 "$WORK/$name.rec.err")"
		continue
	fi
	pa header -i "$f" >"$WORK/$name.pa" 2>"$WORK/$name.pa.err" || fail "$name: pa header failed: $(head -n 2 "$WORK/$name.pa.err")"
	perf_header "$f" >"$WORK/$name.perf"
	same "$name: pa header vs perf report --header-only" "$WORK/$name.perf" "$WORK/$name.pa"
done

# `pa report --header-only` is the same command (README), also for pipes.
for name in le-file.data le-pipe.data; do
	f=$TESTDATA/$name
	pa report --header-only -i "$f" >"$WORK/$name.report" 2>&1
	st=$?
	[ "$st" -eq 0 ] || fail "$name: pa report --header-only exit status $st"
	same "$name: pa report --header-only vs pa header" "$WORK/$name.pa" "$WORK/$name.report"
done

finish
