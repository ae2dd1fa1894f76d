#!/usr/bin/env bash
# make-report-golden.sh - perf report --stats and --tasks on each fixture
# perf reads, kept so that tests/integration/dump.sh (--stats) and
# comms.sh (--tasks) check pa where perf is absent. Needs perf 6.1 (the
# oracle). A fixture perf prints nothing for (it fails to inflate a
# pipe's zstd records) gets no file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LC_ALL=C PAGER=cat PERF_PAGER=cat
for what in stats tasks; do
	out=$here/golden/$what
	mkdir -p "$out"
	rm -f "$out"/*.txt
	for f in "$here"/le-*.data "$here"/be-*.data; do
		name=$(basename "$f")
		perf report -i "$f" --"$what" </dev/null >"$out/$name.txt" 2>/dev/null || true
		[ -s "$out/$name.txt" ] || rm -f "$out/$name.txt"
	done
done
