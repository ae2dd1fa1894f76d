#!/usr/bin/env bash
# Record new perf.data files now, with the perf installed here, and compare pa
# with perf on them: header, buildid-list (plain and --with-hits), record
# counts. The fixtures pin one perf version; this keeps the reader honest
# against whatever perf writes today.
#
# Skips (77) only when `perf record` itself cannot run here (no perf, or
# perf_event_open refused: perf_event_paranoid, containers, no PMU access).
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
# perf and pa default to the build-id cache in $HOME/.debug (perf record
# writes to it; perf also reads ~/.perfconfig), which the tests running beside
# this one share: a private HOME. No debuginfod server either.
export HOME=$WORK/home
mkdir -p "$HOME" || exit 1
unset DEBUGINFOD_URLS

cd "$WORK" || exit 1
# The workload: testdata/src/burn.c if a C compiler is around, else a shell loop.
if command -v cc >/dev/null 2>&1 &&
	cc -O1 -g -fno-omit-frame-pointer -o burn "$TESTDATA/src/burn.c" 2>cc.err; then
	workload=(./burn 30)
else
	# shellcheck disable=SC2016 # expanded by that sh
	workload=(sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i + 1)); done')
fi

if ! perf record -q -o probe.data -- "${workload[@]}" >probe.out 2>probe.err; then
	skip "perf record does not work here: $(grep -v '^$' probe.err | head -n 3 | tr '\n' ' ')"
fi

# name, then perf record options; pipe recordings end in .pipe
cases=(
	"file|-g -F 999"
	"pipe.pipe|-g -F 999"
	"zstd|-g -F 999 -z"
	"zstd.pipe|-g -F 999 -z"
	"two|-g -F 999 -e cpu-clock,task-clock"
	"bmmap|-F 999 --buildid-mmap"
	"dwarf|--call-graph dwarf,512 -F 99"
	"sysw|-F 499 -a"
)
for c in "${cases[@]}"; do
	name=${c%%|*}
	# shellcheck disable=SC2206
	opts=(${c#*|})
	f=$WORK/$name.data
	if [[ $name == *.pipe ]]; then
		perf record -q "${opts[@]}" -o - -- "${workload[@]}" >"$f" 2>"$name.rec.err"
	else
		perf record -q "${opts[@]}" -o "$f" -- "${workload[@]}" >/dev/null 2>"$name.rec.err"
	fi
	st=$?
	if [ "$st" -ne 0 ] || [ ! -s "$f" ]; then
		# An option this perf or kernel lacks is not pa's problem.
		note "$name: perf record ${opts[*]} failed here, skipped: $(head -n 1 "$name.rec.err")"
		continue
	fi

	# header
	pa header -i "$f" >"$name.pa.h" 2>"$name.pa.h.err" || fail "$name: pa header failed: $(head -n 2 "$name.pa.h.err")"
	perf_header "$f" >"$name.perf.h"
	if is_pipe "$f"; then
		pipe_feature_lines_perf <"$name.perf.h" >"$name.perf.hf"
		pipe_feature_lines_pa <"$name.pa.h" >"$name.pa.hf"
		same "$name: pa header (feature lines) vs perf report --header-only" "$name.perf.hf" "$name.pa.hf"
	else
		same "$name: pa header vs perf report --header-only" "$name.perf.h" "$name.pa.h"
	fi

	# buildid-list
	for opt in "" --with-hits; do
		tag=$name${opt:+.hits}
		pa buildid-list -i "$f" $opt >"$tag.pa.b" 2>"$tag.pa.b.err" ||
			fail "$tag: pa buildid-list $opt failed: $(head -n 2 "$tag.pa.b.err")"
		perf buildid-list -i "$f" $opt >"$tag.perf.b" 2>"$tag.perf.b.err"
		if grep -qE "Couldn't decompress|failed to process type" "$tag.perf.b.err"; then
			note "$tag: perf buildid-list cannot read this file (perf bug), pa's output not compared"
			[ -s "$tag.pa.b" ] || fail "$tag: pa buildid-list printed nothing"
			continue
		fi
		norm_vdso <"$tag.perf.b" >"$tag.perf.bn"
		norm_vdso <"$tag.pa.b" >"$tag.pa.bn"
		same "$tag: pa buildid-list $opt vs perf" "$tag.perf.bn" "$tag.pa.bn"
	done

	# every record, counted like perf report -D counts them
	pa dump --stats -i "$f" >"$name.pa.stats" 2>"$name.pa.stats.err" ||
		fail "$name: pa dump failed: $(head -n 2 "$name.pa.stats.err")"
	[ -s "$name.pa.stats.err" ] && fail "$name: pa dump wrote to stderr: $(head -n 2 "$name.pa.stats.err")"
	pa_counts "$name.pa.stats" >"$name.pa.counts"
	perf_counts "$f" >"$name.perf.counts"
	same "$name: records per type, pa dump --stats vs perf report -D" "$name.perf.counts" "$name.pa.counts"
done

finish
