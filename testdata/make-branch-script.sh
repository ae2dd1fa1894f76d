#!/usr/bin/env bash
# make-branch-script.sh: perf 6.1's `perf script` answers on the committed
# branch-stack fixtures (branch/*.data, made by make-branch.sh, which runs
# this at its end): golden/branch/script-N.txt for the N-th line of
# golden/branch/script-optsets, with --symfs branch/symfs. perf reads the
# four files alike (checked on the three it can read: it cannot read the
# big-endian ones, whose little-endian twins they are).
#
#   testdata/make-branch-script.sh        (needs perf)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
gold=$here/golden/branch
out=$here/branch
rm -f "$gold"/script-*.txt
i=0
while IFS= read -r o; do
	i=$((i + 1))
	for v in le le-hw; do
		# shellcheck disable=SC2086
		perf script -i "$out/$v.data" --symfs "$out/symfs" $o 2>/dev/null >"$gold/script-$i.$v"
	done
	cmp -s "$gold/script-$i.le" "$gold/script-$i.le-hw" ||
		{ echo "make-branch-script: perf reads le-hw.data differently ($o)" >&2; exit 1; }
	rm "$gold/script-$i.le-hw"
	[ -s "$gold/script-$i.le" ] || { echo "make-branch-script: perf gave nothing for '$o'" >&2; exit 1; }
	mv "$gold/script-$i.le" "$gold/script-$i.txt"
done <"$gold/script-optsets"
