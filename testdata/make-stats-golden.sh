#!/usr/bin/env bash
# make-stats-golden.sh - perf report --stats on each fixture perf reads,
# kept so that tests/integration/dump.sh checks pa report --stats where
# perf is absent. Needs perf 6.1 (the oracle). A fixture perf prints
# nothing for (it fails to inflate a pipe's zstd records) gets no file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/golden/stats
mkdir -p "$out"
rm -f "$out"/*.txt
export LC_ALL=C PAGER=cat PERF_PAGER=cat
for f in "$here"/le-*.data "$here"/be-*.data; do
	name=$(basename "$f")
	perf report -i "$f" --stats </dev/null >"$out/$name.txt" 2>/dev/null || true
	[ -s "$out/$name.txt" ] || rm -f "$out/$name.txt"
done
