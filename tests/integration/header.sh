#!/usr/bin/env bash
# `pa header -i F` against `perf report --header-only -i F` for every
# little-endian fixture (the recordings and the LE twins of the BE ones).
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
	if is_pipe "$f"; then
		pipe_feature_lines_perf <"$WORK/$name.perf" >"$WORK/$name.perf.feat"
		pipe_feature_lines_pa <"$WORK/$name.pa" >"$WORK/$name.pa.feat"
		[ -s "$WORK/$name.perf.feat" ] || { fail "$name: no feature lines in perf's output"; continue; }
		same "$name: pa header (pipe: feature lines) vs perf report --header-only" \
			"$WORK/$name.perf.feat" "$WORK/$name.pa.feat"
		# The framing pa adds around them.
		head -n 1 "$WORK/$name.pa" | grep -qx '# ========' || fail "$name: pa header does not start with '# ========'"
		grep -q '^# missing features: ' "$WORK/$name.pa" || fail "$name: no missing features line"
		pass
	else
		same "$name: pa header vs perf report --header-only" "$WORK/$name.perf" "$WORK/$name.pa"
	fi
	# A pipe-mode file reads the same from standard input.
	if is_pipe "$f"; then
		# shellcheck disable=SC2002 # a pipe on stdin, on purpose
		cat "$f" | pa header -i - >"$WORK/$name.stdin" 2>&1
		same "$name: pa header -i - (stdin) vs -i FILE" "$WORK/$name.pa" "$WORK/$name.stdin"
	fi
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
