#!/usr/bin/env bash
# make-generated-golden.sh - perf's outputs on the recordings that
# tests/integration/*_gen.py write over the inline program, kept so that
# the tests check pa where perf is absent. Needs perf 6.1 (the oracle).
# - objsym_gen.py (data objects in call chains): each option set of
#   golden/objsym/optsets (objsym.sh's), into golden/objsym/report-N.txt;
# - firstip_gen.py (rounds whose samples are not in time order, with and
#   without sample_id_all): each command of golden/hits/optsets
#   (hits.sh's) into golden/hits;
# - annorank_gen.py (two programs sampling one binary): the start
#   addresses of perf annotate's symbols, in its order (as
#   golden/annotate/starts.sed takes them, annotate.sh's), into
#   golden/annotate/rank.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LC_ALL=C PAGER=cat PERF_PAGER=cat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/inline/symfs/tmp/pa-inline/prog" "$tmp/prog"
python3 "$here/../tests/integration/objsym_gen.py" "$tmp/objsym.data" "$tmp/prog"
out=$here/golden/objsym
mkdir -p "$out"
j=0
while IFS= read -r o; do
	j=$((j + 1))
	# shellcheck disable=SC2086
	HOME=$tmp perf report -i "$tmp/objsym.data" --stdio $o </dev/null 2>/dev/null |
		grep -v '^# (Tip' >"$out/report-$j.txt"
done <"$out/optsets"
out=$here/golden/hits
for ids in "" no-ids; do
	tag=firstip${ids:+-$ids}
	# shellcheck disable=SC2086
	python3 "$here/../tests/integration/firstip_gen.py" "$tmp/$tag.data" "$tmp/prog" $ids
	k=0
	while IFS= read -r o; do
		k=$((k + 1))
		if [ "$o" = script ]; then
			HOME=$tmp perf script -i "$tmp/$tag.data" </dev/null 2>/dev/null
		else
			# shellcheck disable=SC2086
			HOME=$tmp perf report -i "$tmp/$tag.data" --stdio $o </dev/null 2>/dev/null
		fi | sed "s#$tmp/##g" | grep -v '^# (Tip' >"$out/$tag-$k.txt"
	done <"$out/optsets"
done
mkdir -p "$here/golden/annotate"
python3 "$here/../tests/integration/annorank_gen.py" "$tmp/rank.data" "$tmp/prog"
HOME=$tmp perf annotate -i "$tmp/rank.data" --stdio </dev/null 2>/dev/null |
	sed -nE -f "$here/golden/annotate/starts.sed" >"$here/golden/annotate/rank.txt"
