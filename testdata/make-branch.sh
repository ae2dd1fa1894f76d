#!/usr/bin/env bash
# make-branch.sh: the branch-stack fixtures and perf 6.1's answers on them.
#
#   testdata/make-branch.sh        (needs perf, cc, python3, binutils)
#   testdata/make-branch.sh --goldens
#                                  only perf's answers, on the fixtures there
#
# perf record -b needs a PMU that records branches, which these machines
# lack: src/gen-branch.c writes the recordings instead, from
# branch/branch.spec (make-branch-spec.py: three processes, a program and a
# shared library, 120 samples of 0-6 branch entries with every flag). The
# program and library are built as /tmp/pa-branch/{burn,libbr.so} and kept
# under branch/symfs at those paths. Four files: little- and big-endian,
# with and without PERF_SAMPLE_BRANCH_HW_INDEX (perf reads all four alike:
# checked). golden/branch/report-N.txt is perf's report with --symfs
# branch/symfs for the N-th line of golden/branch/optsets.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dir=/tmp/pa-branch
gold=$here/golden/branch
out=$here/branch

if [ "${1:-}" != --goldens ]; then
	rm -rf "$dir"
	mkdir -p "$dir" "$out" "$gold"
	cc -O1 -g -fno-omit-frame-pointer -o "$dir/burn" "$here/src/burn.c"
	cc -O1 -g -fPIC -shared -o "$dir/libbr.so" "$here/src/branch-lib.c"
	cc -O1 -o "$dir/gen-branch" "$here/src/gen-branch.c"
	python3 "$here/make-branch-spec.py" "$dir/burn" "$dir/libbr.so" 7 120 >"$out/branch.spec"
	for v in le be le-hw be-hw; do
		opts=()
		case $v in be*) opts+=(--be) ;; esac
		case $v in *hw) opts+=(--hw-index) ;; esac
		"$dir/gen-branch" "${opts[@]}" "$out/branch.spec" "$out/$v.data"
	done
	rm -rf "$out/symfs"
	mkdir -p "$out/symfs$dir"
	cp "$dir/burn" "$dir/libbr.so" "$out/symfs$dir/"
	rm -rf "$dir"
fi

rm -f "$gold"/report-*.txt
i=0
while IFS= read -r o; do
	i=$((i + 1))
	for v in le be le-hw be-hw; do
		# shellcheck disable=SC2086
		perf report -i "$out/$v.data" --symfs "$out/symfs" --stdio $o 2>/dev/null |
			sed '/^# (Tip/d' >"$gold/report-$i.$v"
	done
	for v in be le-hw be-hw; do
		cmp -s "$gold/report-$i.le" "$gold/report-$i.$v" ||
			{ echo "make-branch: perf reads $v.data differently ($o)" >&2; exit 1; }
		rm "$gold/report-$i.$v"
	done
	[ -s "$gold/report-$i.le" ] || { echo "make-branch: perf gave nothing for '$o'" >&2; exit 1; }
	mv "$gold/report-$i.le" "$gold/report-$i.txt"
done <"$gold/optsets"
"$here/make-branch-script.sh"
ls -l "$out" "$out/symfs$dir" "$gold"
