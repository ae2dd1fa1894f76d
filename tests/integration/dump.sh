#!/usr/bin/env bash
# `pa dump` reads every fixture to the end without complaint, and counts the
# same records per type as perf report -D ("Aggregated stats"), and `pa
# report --stats` prints what perf's does: this proves
# the reader walks the whole data section (COMPRESSED records included) the
# way perf does, in both byte orders.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

# pa report --stats prints perf's text: the copies of it kept for the
# fixtures (testdata/make-report-golden.sh), here where perf is absent too,
# and perf itself below.
for g in "$TESTDATA"/golden/stats/*.data.txt; do
	name=$(basename "$g" .txt)
	pa report -i "$TESTDATA/$name" --stats >"$WORK/$name.rstats" 2>"$WORK/$name.rstats.err" ||
		fail "$name: pa report --stats failed: $(head -n 2 "$WORK/$name.rstats.err")"
	same "$name: pa report --stats vs perf's kept text" "$g" "$WORK/$name.rstats"
done
need_perf
# perf and pa default to the build-id cache in $HOME/.debug (perf record
# writes to it; perf also reads ~/.perfconfig), which the tests running beside
# this one share: a private HOME. No debuginfod server either.
export HOME=$WORK/home
mkdir -p "$HOME" || exit 1
unset DEBUGINFOD_URLS

for name in $(le_fixtures) $(be_fixtures); do
	f=$TESTDATA/$name
	pa dump -i "$f" >"$WORK/$name.dump" 2>"$WORK/$name.err"
	st=$?
	[ "$st" -eq 0 ] || { fail "$name: pa dump exit status $st: $(head -n 3 "$WORK/$name.err")"; continue; }
	[ -s "$WORK/$name.err" ] && fail "$name: pa dump wrote to stderr: $(head -n 3 "$WORK/$name.err")"
	grep -q 'PERF_RECORD_SAMPLE' "$WORK/$name.dump" || fail "$name: no samples in pa dump"
	pass

	pa dump --stats -i "$f" >"$WORK/$name.stats" 2>&1 || fail "$name: pa dump --stats failed"
	pa_counts "$WORK/$name.stats" >"$WORK/$name.pa.counts"
	pa_counts "$WORK/$name.dump" >"$WORK/$name.dump.counts"
	same "$name: pa dump --stats vs the counts after a full dump" "$WORK/$name.pa.counts" "$WORK/$name.dump.counts"
	# Each record printed is counted (containers are counted, not printed).
	nl=$(grep -cE '^0x[0-9a-f]+(\+(0x)?[0-9a-f]+)? \[' "$WORK/$name.dump")
	nc=$(awk '$1 != "COMPRESSED" && $1 != "COMPRESSED2" {n += $2} END {print n + 0}' "$WORK/$name.pa.counts")
	[ "$nl" = "$nc" ] || fail "$name: pa dump printed $nl records but counted $nc"
	pass

	perf_counts "$f" >"$WORK/$name.perf.counts"
	if [ -s "$WORK/$name.perf.counts" ]; then
		same "$name: records per type, pa dump --stats vs perf report -D" \
			"$WORK/$name.perf.counts" "$WORK/$name.pa.counts"
	else
		# perf 6.1 cannot read a big-endian pipe (HEADER_FEATURE ids
		# are not swapped): be-twins.sh compares with the LE twin.
		note "$name: perf report -D gave no stats; not compared with perf"
	fi
	perf report -i "$f" --stats >"$WORK/$name.pstats" 2>/dev/null
	if [ -s "$WORK/$name.pstats" ]; then
		pa report -i "$f" --stats >"$WORK/$name.astats" 2>&1
		same "$name: pa report --stats vs perf report --stats" "$WORK/$name.pstats" "$WORK/$name.astats"
	fi

	if is_pipe "$f"; then
		# shellcheck disable=SC2002 # a pipe on stdin, on purpose
		cat "$f" | pa dump -i - >"$WORK/$name.stdin" 2>&1
		same "$name: pa dump -i - (stdin) vs -i FILE" "$WORK/$name.dump" "$WORK/$name.stdin"
	fi
done

finish
