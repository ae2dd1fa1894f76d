# shellcheck shell=bash
# lib.sh - shared by the integration tests (sourced, bash).
#
# Every test script is run by ctest as
#   bash TEST.sh PA_BINARY TESTDATA_DIR WORK_DIR
# pa runs under $PA_EMULATOR when set (cross runs: "qemu-s390x-static -L
# SYSROOT"), else under $PA_DEFAULT_EMULATOR (set by tests/CMakeLists.txt from
# the toolchain's CMAKE_CROSSCOMPILING_EMULATOR). perf always runs natively.
# Exit status: 0 pass, 1 fail, 77 skip.
set -uo pipefail

PA_BIN=${1:?usage: $0 PA_BINARY TESTDATA_DIR WORK_DIR}
TESTDATA=${2:?testdata dir}
WORK=${3:?work dir}
# Absolute, so that tests may cd.
abspath() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
PA_BIN=$(abspath "$PA_BIN")
TESTDATA=$(abspath "$TESTDATA")
WORK=$(abspath "$WORK")
PA_EMU=${PA_EMULATOR:-${PA_DEFAULT_EMULATOR:-}}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # used by the tests that source this
PDTOOL=$HERE/perfdata.py

# python3 through a version manager's shim (pyenv: a bash script that
# works out the version on every call) costs several times python's own
# start; the tests run it hundreds of times: the interpreter the shim
# picks, found once, goes first on PATH (as `pyenv exec` does).
if [[ $(command -v python3 2>/dev/null) == */shims/python3 ]]; then
	_py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
	[ -x "$_py" ] && PATH=$(dirname "$_py"):$PATH
	unset _py
fi

# Same clock and messages for pa and perf, no pager.
export TZ=UTC0 LC_ALL=C PAGER=cat PERF_PAGER=cat
# A scratch directory, emptied first (only if it is one of ours).
if [ -e "$WORK" ] && [ ! -e "$WORK/.pa-test-work" ] && [ "$(basename "$(dirname "$WORK")")" != integration-work ] &&
	[ -n "$(ls -A "$WORK" 2>/dev/null)" ]; then
	echo "FAIL: refusing to empty $WORK (not a test work directory)"
	exit 1
fi
rm -rf "$WORK"
mkdir -p "$WORK" && touch "$WORK/.pa-test-work" || exit 1

FAILS=0
CHECKS=0
fail() {
	echo "FAIL: $*"
	FAILS=$((FAILS + 1))
}
pass() {
	CHECKS=$((CHECKS + 1))
}
skip() {
	echo "SKIP: $*"
	exit 77
}
note() { echo "note: $*"; }

# Reduced runs. Under a sanitizer (ASAN_OPTIONS set: scripts/test-sanitize)
# or an emulator ($PA_EMU) every pa run is several times slower, and perf,
# which runs natively, gives the same answers as in the native run. Tests
# that repeat one check over many combinations (recording x options) then
# run a deterministic subset of the combinations: case I runs when
# I % PA_TEST_STRIDE == 0 (default 3). The tests number their cases so
# that every option set (every kind of check) still runs in every mode, on
# some of the recordings: I = option index + recording index, a diagonal.
# Natively, or with PA_TEST_FULL=1, every case runs. A test that left cases
# out says so in a note line (finish: how many ran, and the rule).
SLOW_MODE=
[ -n "${ASAN_OPTIONS:-}" ] && SLOW_MODE="a sanitizer"
[ -n "$PA_EMU" ] && SLOW_MODE="$PA_EMU"
[ "${PA_TEST_FULL:-0}" = 1 ] && SLOW_MODE=
STRIDE=${PA_TEST_STRIDE:-3}
[[ $STRIDE =~ ^[1-9][0-9]*$ ]] || STRIDE=3
SUBSET_RAN=0
SUBSET_LEFT=0
# in_subset I [N]: whether case I (a number >= 0) runs in this mode
# (counted); N: every Nth instead of every STRIDE-th.
in_subset() {
	if [ -z "$SLOW_MODE" ] || [ $(($1 % ${2:-$STRIDE})) -eq 0 ]; then
		SUBSET_RAN=$((SUBSET_RAN + 1))
		return 0
	fi
	SUBSET_LEFT=$((SUBSET_LEFT + 1))
	return 1
}
# case_run CMD ARGS...: CMD ARGS when case $CASE is in the subset; CASE
# counts on either way (a test sets CASE=K at the start of recording K for
# the diagonal).
CASE=0
case_run() {
	in_subset $((CASE++)) || return 0
	"$@"
}
subset_note() {
	[ "$SUBSET_LEFT" -gt 0 ] || return 0
	note "under $SLOW_MODE: $SUBSET_RAN of $((SUBSET_RAN + SUBSET_LEFT)) ${SUBSET_WHAT:-option/recording cases} run" \
		"(${SUBSET_RULE:-case I when I % $STRIDE == 0}; natively, or with PA_TEST_FULL=1, all)"
}

# pa ARGS... : the pa under test (through the emulator for cross builds).
# shellcheck disable=SC2086 # PA_EMU is a command prefix: split on purpose
pa() { $PA_EMU "$PA_BIN" "$@"; }

need_perf() {
	command -v perf >/dev/null 2>&1 || skip "no perf on this machine"
}
need_python() {
	command -v python3 >/dev/null 2>&1 || skip "no python3 on this machine"
}

# Compare two files; on difference, count a failure and show a short diff.
# same WHAT EXPECTED ACTUAL
same() {
	CHECKS=$((CHECKS + 1))
	if ! cmp -s "$2" "$3"; then
		fail "$1"
		diff -u "$2" "$3" | head -n 40 | sed 's/^/    /'
		return 1
	fi
	return 0
}

# Compare two perf report --stdio outputs like same(), but pass (with a
# note) when the only difference is the order of call-graph siblings of
# equal percentage: perf orders those by the heap addresses of their DSO
# objects (report/report.h, "Limits"). Strict without python3.
# same_graphs WHAT EXPECTED ACTUAL
same_graphs() {
	if ! cmp -s "$2" "$3" && command -v python3 >/dev/null 2>&1; then
		local norm
		norm="$(dirname "${BASH_SOURCE[0]}")/graphnorm.py"
		if python3 "$norm" <"$2" >"$2.norm" && python3 "$norm" <"$3" >"$3.norm" &&
			cmp -s "$2.norm" "$3.norm"; then
			CHECKS=$((CHECKS + 1))
			note "$1: call-graph siblings of equal percentage in another order (perf: heap addresses)"
			return 0
		fi
	fi
	same "$@"
}

# perf report --stdio OPTIONS and pa's on FILE, compared like same_graphs().
# check_report WHAT FILE "OPTIONS"
check_report() {
	local what=$1 f=$2 o=$3
	# shellcheck disable=SC2086
	perf report -i "$f" --stdio $o 2>/dev/null | grep -v '^# (Tip' >exp
	# shellcheck disable=SC2086
	if ! pa report -i "$f" --stdio $o >got 2>got.err; then
		fail "$what '$o': pa failed: $(head -n 2 got.err)"
		return
	fi
	same_graphs "$what: report '$o'" exp got
}

# Like same(), but pass (with a note) when the only difference is srclines
# of the last column that pa cut to the column's width where perf printed
# them whole (report/report.h, "Limits": which srclines perf computes
# before printing). Strict without python3.
# same_cut_srclines WHAT EXPECTED ACTUAL
same_cut_srclines() {
	if ! cmp -s "$2" "$3" && command -v python3 >/dev/null 2>&1 &&
		python3 - "$2" "$3" <<'EOF'; then
import sys
e = open(sys.argv[1]).read().split("\n")
g = open(sys.argv[2]).read().split("\n")
ok = len(e) == len(g) and all(
    x == y or (y.rstrip() and x.rstrip().startswith(y.rstrip())) for x, y in zip(e, g))
sys.exit(0 if ok else 1)
EOF
		CHECKS=$((CHECKS + 1))
		note "$1: srclines cut to the column where perf printed them whole"
		return 0
	fi
	same "$@"
}

# Fixture lists.
le_fixtures() { (cd "$TESTDATA" && ls le-*.data); }
be_fixtures() { (cd "$TESTDATA" && ls be-*.data 2>/dev/null); }
# Pipe mode: the header's size field (bytes 8-15) is 16, in either order.
is_pipe() {
	local s
	s=$(od -An -tx1 -j8 -N8 "$1" | tr -d ' \n')
	[ "$s" = 1000000000000000 ] || [ "$s" = 0000000000000010 ]
}

# perf report --header-only lines to compare with `pa header`, which prints
# the same in both modes. Pipe mode: perf prints a dummy file header
# (captured on, data offset 0, ...) and then the features as their records
# stream by, without the "missing features" line; the feature lines alone:
perf_header() { perf report --header-only -i "$1" 2>/dev/null; }
pipe_feature_lines_perf() { awk 'n >= 2 && /^# / {print} /^# ========$/ {n++}'; }
pipe_feature_lines_pa() { pipe_feature_lines_perf; }

# perf names the vdso it extracts to read a build-id /tmp/perf-vdso.so-XXXXXX.
norm_vdso() { sed -E 's#/tmp/perf-vdso\.so-[A-Za-z0-9]{6}#[vdso]#'; }

# "NAME COUNT" per record type: from perf report -D's aggregated stats and
# from pa dump --stats (pa says HEADER_ATTR where perf says ATTR).
perf_counts() {
	perf report -D -i "$1" 2>/dev/null | sed -n '/^Aggregated stats/,/^[^ ]/p' |
		awk '$2 == "events:" && $1 != "TOTAL" {print $1, $3}' | sort
}
pa_counts() {
	awk '/^# +[A-Z0-9_]+: [0-9]+$/ {sub(":", "", $2); sub("^HEADER_", "", $2); print $2, $3}' "$1" |
		sort
}

# record_cases CASE...: each "NAME|perf record options|workload" recorded
# into $WORK/NAME.data (NAME ending in .pipe: pipe mode); the recordings
# made go to the array files. A pipe recording keeps no build-ids: pa takes
# the running kernel's symbols only on the recording host itself, and
# under an emulator it is another machine, so there it is left out.
# Skips the test when nothing could be recorded.
record_cases() {
	local c name ropts cmd f
	files=()
	for c in "$@"; do
		IFS='|' read -r name ropts cmd <<<"$c"
		f=$WORK/$name.data
		# shellcheck disable=SC2086
		if [[ $name == *.pipe ]]; then
			perf record -q $ropts -o - -- $cmd >"$f" 2>/dev/null
		else
			perf record -q $ropts -o "$f" -- $cmd >/dev/null 2>&1
		fi
		if [ $? -ne 0 ] || [ ! -s "$f" ]; then
			note "$name: perf record $ropts failed here, skipped"
			continue
		fi
		if [ -n "$PA_EMU" ] && [[ $name == *.pipe ]]; then
			note "$name: no build-ids recorded; not comparable under $PA_EMU"
			continue
		fi
		files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || skip "no recording could be made"
}

# private_home: perf and pa default to the build-id cache in $HOME/.debug
# (perf record writes to it; perf also reads ~/.perfconfig), which the tests
# running beside this one share: a private HOME, and no debuginfod server.
private_home() {
	export HOME=$WORK/home
	mkdir -p "$HOME" || exit 1
	unset DEBUGINFOD_URLS
}

# browser_check WHAT SCRIPT ARGS...: a *_cdp.py check in headless Chromium
# (exit 0 pass, 77 Chromium cannot be driven: the test skips, else fail).
browser_check() {
	local what=$1
	shift
	python3 "$@"
	local st=$?
	CHECKS=$((CHECKS + 1))
	case $st in
	0) ;;
	77) skip "chromium cannot be driven over the DevTools protocol" ;;
	*) fail "$what: browser checks" ;;
	esac
}

finish() {
	subset_note
	echo "$CHECKS checks, $FAILS failed"
	[ "$FAILS" -eq 0 ] || exit 1
	[ "$CHECKS" -gt 0 ] || { echo "FAIL: nothing was checked"; exit 1; }
	exit 0
}

# check_script WHAT FILE [OPTIONS...]: `pa script` equals `perf script`
# with the same options, byte for byte (perf's extracted vdso copy named
# [vdso], as pa names it: norm_vdso).
check_script() {
	local what=$1 f=$2
	shift 2
	perf script -i "$f" "$@" 2>script.perr | norm_vdso >script.exp
	if ! pa script -i "$f" "$@" >script.got 2>script.err; then
		# a refusal of perf's is one of pa's, with its message
		local msg
		msg=$(sed -n '1s/^pa: script: //p' script.err)
		CHECKS=$((CHECKS + 1))
		if [ -s script.exp ] || [ -z "$msg" ] || ! grep -qF "$msg" script.perr; then
			fail "$what: pa script $* failed: $(head -n 2 script.err)"
			return 1
		fi
		return 0
	fi
	norm_vdso <script.got >script.got.n
	[ -s script.exp ] || note "$what: perf script $* printed nothing"
	same "$what: pa script $*" script.exp script.got.n
}
