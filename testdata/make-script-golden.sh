#!/usr/bin/env bash
# make-script-golden.sh - perf script's output on the testdata fixtures, kept
# so that tests/integration/script.sh checks pa script where perf is absent.
# Needs perf 6.1 (the oracle). Cases: golden/script/cases.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/golden/script
export TZ=UTC0 LC_ALL=C PAGER=cat PERF_PAGER=cat
grep -v '^#' "$out/cases" | while IFS='|' read -r name fixture opts; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086
	# (a case perf refuses keeps its empty output)
	{ perf script -i "$here/$fixture" $opts </dev/null 2>/dev/null || true; } |
		gzip -9n >"$out/$name.txt.gz"
done
