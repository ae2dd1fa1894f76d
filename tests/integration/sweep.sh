#!/usr/bin/env bash
# The sweep of every committed fixture: each recording in testdata/ (both
# byte orders, branch stacks, inline frames, pipe and zstd files) through
# pa report with the sort keys comm, pid, dso, sym and comm,dso,sym, with
# the defaults (children and call graphs where recorded) and with --fields
# (two sets of four per file), and with -v's columns (long DSO names, each
# symbol's address and the letter of where its symbols came from: the
# cache's copy or debug file, --symfs, kallsyms) equals perf
# report on it; perf 6.1 cannot read the big-endian files, so their
# little-endian twins (le-X.inj.data: the same samples and build-ids) give
# perf's answer. Symbols come from le-file.data's archive in a private cache
# (the fixtures' programs), or from the fixture's own symfs. Under an
# emulator or a sanitizer, one option set in STRIDE per file.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_perf
private_home
cd "$WORK" || exit 1
pa archive --unpack "$TESTDATA/le-file.data.tar.zst" >/dev/null 2>unpack.err ||
	fail "pa archive --unpack: $(head -n 2 unpack.err)"

# perf's file for FILE, and the options both need
twin() {
	local b=${1##*/}
	case $1 in
	*/branch/be*) echo "$TESTDATA/branch/le${b#be}" ;;
	*/be-*) echo "$TESTDATA/le-${b#be-}" | sed 's/\.data$/.inj.data/' ;;
	*) echo "$1" ;;
	esac
}
extra() {
	case $1 in
	*/branch/*) echo "--symfs $TESTDATA/branch/symfs" ;;
	*/inline/*) echo "--symfs $TESTDATA/inline/symfs" ;;
	esac
}
# (perf's random tip and a blank line before it go)
norm_tip() { sed '/^# (Tip/d' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }

files=("$TESTDATA"/le-*.data "$TESTDATA"/be-*.data "$TESTDATA"/branch/*.data
	"$TESTDATA"/inline/inline.data)
[ ${#files[@]} -ge 20 ] || fail "only ${#files[@]} fixtures found"
# --fields with and without --sort (perf's columns and output order: the
# sort keys first, the fields after; a children column without --children
# shows N/A; a leading '+' adds to the defaults): two of these per file, in
# turn
fsets=("-F overhead,sym --sort dso" "--no-children -F sample,overhead,comm"
	"--no-children -F overhead_children,overhead,sym" "-F dso,overhead --sort sym"
	"--no-children -F +sample --sort +pid" "-F +period --sort +sym,cpu")
CASE=0 nf=0
for f in "${files[@]}"; do
	p=$(twin "$f")
	[ -f "$p" ] || { fail "no little-endian twin $p for $f"; continue; }
	nf=$((nf + 1))
	for o in "--sort comm" "--sort pid" "--sort dso" "--sort sym" "--sort comm,dso,sym" "" \
		"${fsets[nf % 6]}" "${fsets[(nf + 1) % 6]}" "-v --no-children"; do
		in_subset $((CASE++)) || continue
		# shellcheck disable=SC2046,SC2086
		perf report -i "$p" $(extra "$f") --stdio $o 2>/dev/null </dev/null | norm_tip >exp
		# shellcheck disable=SC2046,SC2086
		pa report -i "$f" $(extra "$f") --stdio --no-pager $o 2>got.err | norm_tip >got
		CHECKS=$((CHECKS + 1))
		grep -q '%' exp || fail "${f#"$TESTDATA"/} '$o': perf printed no row"
		same "${f#"$TESTDATA"/} '$o': pa report is perf report (perf on ${p#"$TESTDATA"/})" exp got
	done
done
finish
