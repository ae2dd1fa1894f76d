#!/usr/bin/env bash
# make-diff-golden.sh - perf diff's output on the testdata fixtures, kept so
# that tests/integration/diff.sh checks pa diff where perf is absent. Needs
# perf 6.1 (the oracle). Cases: golden/diff/cases; big-endian files are
# given to perf as their little-endian twins (perf 6.1 reads no BE file).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/golden/diff
export TZ=UTC0 LC_ALL=C PAGER=cat PERF_PAGER=cat
HOME=$(mktemp -d)
export HOME
trap 'rm -rf "$HOME"' EXIT
unset DEBUGINFOD_URLS
mkdir -p "$HOME/.debug"
tar --zstd -xf "$here/le-file.data.tar.zst" -C "$HOME/.debug"
cd "$here"
grep -v '^#' "$out/cases" | while IFS='|' read -r name files opts; do
	[ -n "$name" ] || continue
	pf=$(for f in $files; do case $f in be-*) f=le-${f#be-}; echo "${f%.data}.inj.data" ;; *) echo "$f" ;; esac; done)
	# shellcheck disable=SC2086
	perf diff $opts $pf </dev/null 2>/dev/null >"$out/$name.txt"
done
