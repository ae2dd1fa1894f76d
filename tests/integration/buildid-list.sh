#!/usr/bin/env bash
# `pa buildid-list -i F [--with-hits]` against perf buildid-list on every
# fixture, big-endian ones included (perf reads their build-id tables and
# records right; only its feature printing trips over them).
#
# perf 6.1's buildid-list cannot decompress a zstd pipe ("Couldn't
# decompress data", although perf report -D reads it). There we check that
# pa succeeds, lists the workload, and lists only DSOs that perf report -D
# shows in MMAP records (a plain pipe recording has no build-ids).
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
# perf and pa default to the build-id cache in $HOME/.debug (perf record
# writes to it; perf also reads ~/.perfconfig), which the tests running beside
# this one share: a private HOME. No debuginfod server either.
export HOME=$WORK/home
mkdir -p "$HOME" || exit 1
unset DEBUGINFOD_URLS

perf_broke() { grep -qE "Couldn't decompress|failed to process type" "$1"; }

for name in $(le_fixtures) $(be_fixtures); do
	f=$TESTDATA/$name
	for opt in "" --with-hits; do
		tag=$name${opt:+.hits}
		pa buildid-list -i "$f" $opt >"$WORK/$tag.pa" 2>"$WORK/$tag.pa.err"
		st=$?
		[ "$st" -eq 0 ] || { fail "$tag: pa buildid-list $opt exit status $st: $(head -n 3 "$WORK/$tag.pa.err")"; continue; }
		[ -s "$WORK/$tag.pa.err" ] && fail "$tag: pa buildid-list $opt wrote to stderr: $(head -n 3 "$WORK/$tag.pa.err")"
		perf buildid-list -i "$f" $opt >"$WORK/$tag.perf" 2>"$WORK/$tag.perf.err"
		if perf_broke "$WORK/$tag.perf.err"; then
			note "$tag: perf buildid-list failed ($(head -n 1 "$WORK/$tag.perf.err")): checking against perf report -D's MMAP records"
			perf report -D -i "$f" 2>/dev/null |
				sed -nE 's/.*PERF_RECORD_MMAP2? [0-9]+\/[0-9]+: \[[^]]*]: [rwxps-]+ (.*)$/\1/p' |
				grep -vE '^\[kernel\.kallsyms\]' | sort -u >"$WORK/$tag.mmaps"
			[ -s "$WORK/$tag.mmaps" ] || { fail "$tag: no MMAP records in perf report -D"; continue; }
			sed -E 's/^[0-9a-f]* +//' "$WORK/$tag.pa" | sort -u >"$WORK/$tag.pa.names"
			# every DSO pa lists is mapped, and pa lists the workload.
			comm -13 "$WORK/$tag.mmaps" "$WORK/$tag.pa.names" | grep -v '^\[vdso\]$' >"$WORK/$tag.extra"
			[ -s "$WORK/$tag.extra" ] && fail "$tag: pa lists DSOs with no MMAP record: $(tr '\n' ' ' <"$WORK/$tag.extra")"
			grep -q '/burn$' "$WORK/$tag.pa.names" || fail "$tag: pa does not list the burn workload"
			pass
			continue
		fi
		[ -s "$WORK/$tag.perf.err" ] && note "$tag: perf said: $(head -n 1 "$WORK/$tag.perf.err")"
		norm_vdso <"$WORK/$tag.perf" >"$WORK/$tag.perf.n"
		norm_vdso <"$WORK/$tag.pa" >"$WORK/$tag.pa.n"
		same "$tag: pa buildid-list $opt vs perf buildid-list $opt" "$WORK/$tag.perf.n" "$WORK/$tag.pa.n"
	done
done

# The workload's build-id must be there where perf recorded one (a test that
# both tools print nothing would prove little).
grep -q '^[0-9a-f]\{40\} .*/burn$' "$WORK/le-file.data.pa" || fail "le-file.data: pa lists no build-id for burn"
pass

finish
