#!/usr/bin/env bash
# The pager (cli/pager.c) and the hints of pa report on a terminal: on a
# pseudo-terminal (pager.py), pa report, pa script and pa diff pipe their
# text into $PAGER (LESS=FRSX when unset) and the pager receives exactly what
# pa prints on a pipe; --no-pager, `pa --no-pager`, PAGER= and PAGER=cat run
# none, nor does a stdout that is no terminal; `pa -p` pages any command; a
# pager quit early ends pa quietly. pa report without --stdio on a terminal
# says in one stderr line that this is the stdio report and names pa view;
# not with --stdio, -q, or off a terminal. Under an emulator (cross builds)
# only the off-terminal checks run.
. "$(dirname "$0")/lib.sh"
need_python
cd "$WORK" || exit 1
PTY=$HERE/pager.py
F=$TESTDATA/le-file.data
pa archive --unpack "$TESTDATA/le-file.data.tar.zst" --buildid-dir "$WORK/cache" >/dev/null 2>&1 ||
	fail "pa archive --unpack of the fixture's archive"
R=(-i "$F" --buildid-dir "$WORK/cache")
# The pager: records its input and the LESS it was given, and that it ran.
REC="echo \"\${LESS-unset}\" >$WORK/less; cat >$WORK/paged"
unset PERF_PAGER PA_PAGER LESS
export PAGER=$REC

pa report --stdio "${R[@]}" >report.exp 2>report.err || fail "pa report on a pipe"
[ -s report.exp ] || fail "pa report printed nothing"
pa script "${R[@]}" >script.exp 2>/dev/null || fail "pa script on a pipe"
pa diff "$F" "$F" --buildid-dir "$WORK/cache" >diff.exp 2>/dev/null || fail "pa diff on a pipe"
pa header -i "$F" >header.exp 2>/dev/null || fail "pa header on a pipe"

# off a terminal: no pager, no hint (even without --stdio)
rm -f paged
pa report "${R[@]}" >got 2>got.err
[ -e paged ] && fail "the pager ran for a stdout that is not a terminal"
same "pa report off a terminal" report.exp got
grep -q "pa view" got.err && fail "the stdio hint off a terminal: $(cat got.err)"
pass

if [ -n "$PA_EMU" ]; then
	note "pa runs under '$PA_EMU': the terminal checks are skipped"
	finish
fi

# ontty NAME STDERR CMD...: CMD on a terminal, its terminal text in NAME.tty
ontty() {
	local name=$1 err=$2
	shift 2
	rm -f paged less
	python3 "$PTY" "$name.tty" "$err" -- "$@"
}
# paged WHAT EXPECTED: the pager ran, was given LESS=FRSX and got EXPECTED
paged() {
	if [ ! -e paged ]; then
		fail "$1: the pager did not run"
		return
	fi
	same "$1: what the pager got" "$2" paged
	CHECKS=$((CHECKS + 1))
	[ "$(cat less)" = FRSX ] || fail "$1: LESS in the pager is '$(cat less)', not FRSX"
}
# notpaged WHAT EXPECTED: no pager ran; EXPECTED came to the terminal
notpaged() {
	CHECKS=$((CHECKS + 1))
	[ -e paged ] && fail "$1: the pager ran"
	same "$1: the terminal's text" "$2" "$3"
}

ontty stdio stdio.err "$PA_BIN" report --stdio "${R[@]}" || fail "pa report --stdio on a terminal"
paged "pa report --stdio" report.exp
[ -s stdio.err ] && fail "pa report --stdio on a terminal said: $(cat stdio.err)"
[ -s stdio.tty ] && fail "pa report --stdio wrote to the terminal past the pager"

# no interface flag: one line on stderr, the same report paged
ontty plain plain.err "$PA_BIN" report "${R[@]}" || fail "pa report on a terminal"
paged "pa report" report.exp
CHECKS=$((CHECKS + 1))
[ "$(wc -l <plain.err)" = 1 ] && grep -q "^pa: report: .*--stdio.*pa view -o report.html" plain.err ||
	fail "pa report on a terminal: not the one stdio hint line: $(cat plain.err)"
LESS=MX ontty less less.err "$PA_BIN" report --stdio "${R[@]}"
CHECKS=$((CHECKS + 1))
[ "$(cat less 2>/dev/null)" = MX ] || fail "the user's LESS was replaced: '$(cat less 2>/dev/null)'"
ontty quiet quiet.err "$PA_BIN" report -q "${R[@]}"
CHECKS=$((CHECKS + 1))
grep -q "pa view" quiet.err && fail "pa report -q gave the stdio hint"
# stderr on the terminal: the hint is said before the pager starts, once
ontty both tty "$PA_BIN" report "${R[@]}"
CHECKS=$((CHECKS + 1))
[ "$(cat both.tty paged 2>/dev/null | grep -c "pa view")" = 1 ] ||
	fail "the hint with stderr on the terminal: not once: $(cat both.tty)"

# turned off: --no-pager, pa --no-pager, PAGER=, PAGER=cat
ontty nopager nopager.err "$PA_BIN" report --stdio --no-pager "${R[@]}"
notpaged "pa report --no-pager" report.exp nopager.tty
ontty gnopager gnopager.err "$PA_BIN" --no-pager report --stdio "${R[@]}"
notpaged "pa --no-pager report" report.exp gnopager.tty
PAGER= ontty empty empty.err "$PA_BIN" report --stdio "${R[@]}"
notpaged "PAGER= pa report" report.exp empty.tty
PAGER=cat PA_PAGER="$REC" ontty papager papager.err "$PA_BIN" report --stdio "${R[@]}"
paged "PA_PAGER over PAGER" report.exp
PAGER=cat ontty cat cat.err "$PA_BIN" report --stdio "${R[@]}"
notpaged "PAGER=cat pa report" report.exp cat.tty

# script, diff; pa -p pages a command that does not page itself
ontty script script.err "$PA_BIN" script "${R[@]}" || fail "pa script on a terminal"
paged "pa script" script.exp
ontty diff diff.err "$PA_BIN" diff "$F" "$F" --buildid-dir "$WORK/cache" || fail "pa diff on a terminal"
paged "pa diff" diff.exp
ontty header header.err "$PA_BIN" header -i "$F"
notpaged "pa header" header.exp header.tty
ontty pheader pheader.err "$PA_BIN" -p header -i "$F" || fail "pa -p header on a terminal"
paged "pa -p header" header.exp

# the user quits the pager at once: pa ends, quietly (SIGPIPE or EPIPE)
PAGER="head -c 1 >/dev/null" ontty quit quit.err "$PA_BIN" script "${R[@]}"
rc=$?
CHECKS=$((CHECKS + 1))
{ [ $rc = 0 ] || [ $rc = 141 ]; } || fail "pa script after the pager quit: status $rc"
[ -s quit.err ] && fail "pa script after the pager quit said: $(cat quit.err)"
finish
