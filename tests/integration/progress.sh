#!/usr/bin/env bash
# The progress line (cli/progress.c) on a pseudo-terminal (pager.py): with
# stderr on a terminal, pa report, folded, flamegraph, view, export,
# buildid-list --with-hits and archive (pack and unpack) say how far they
# are in one line redrawn in place ("\r...\e[K"), erased before their
# output; the text they print is the same as off a terminal. Never with
# stderr off the terminal, with -q, when their text goes to a stdout that
# is not the terminal, or with PA_PROGRESS=0; and not before the delay
# (PA_PROGRESS_DELAY_MS, here 0 to see it on small files, and a long
# one to see it held back). Under an emulator only the off-terminal
# checks run.
. "$(dirname "$0")/lib.sh"
need_python
cd "$WORK" || exit 1
PTY=$HERE/pager.py
F=$TESTDATA/le-file.data
pa archive --unpack "$TESTDATA/le-file.data.tar.zst" --buildid-dir "$WORK/cache" >/dev/null 2>&1 ||
	fail "pa archive --unpack of the fixture's archive"
R=(-i "$F" --buildid-dir "$WORK/cache")
export PA_PAGER=cat
unset PA_PROGRESS PA_PROGRESS_DELAY_MS

pa report --stdio "${R[@]}" >report.exp 2>/dev/null || fail "pa report on a pipe"
[ -s report.exp ] || fail "pa report printed nothing"
# off a terminal: nothing on stderr
PA_PROGRESS_DELAY_MS=0 pa report --stdio "${R[@]}" >got 2>got.err
same "pa report off a terminal" report.exp got
CHECKS=$((CHECKS + 1))
[ -s got.err ] && fail "pa report off a terminal wrote to stderr: $(head -c 200 got.err)"

if [ -n "$PA_EMU" ]; then
	note "pa runs under '$PA_EMU': the terminal checks are skipped"
	finish
fi

# ontty NAME CMD...: CMD with stdout and stderr on one terminal (NAME.tty)
ontty() {
	local name=$1
	shift
	PA_PROGRESS_DELAY_MS=${DELAY-0} python3 "$PTY" "$name.tty" tty -- "$@"
}
# errtty NAME CMD...: stderr on the terminal (NAME.tty), stdout to NAME.out
errtty() {
	local name=$1
	shift
	PA_PROGRESS_DELAY_MS=${DELAY-0} python3 "$PTY" "$name.tty" tty --stdout "$name.out" -- "$@"
}
# shown NAME LABEL: NAME.tty has the progress line LABEL, drawn with "\r"
# and erased with "\r\e[K" before what follows; NAME.text is the rest
shown() {
	CHECKS=$((CHECKS + 1))
	python3 - "$1.tty" "$2" "$1.text" <<'EOF' || fail "$1: progress line: see above"
import re, sys
raw = open(sys.argv[1], "rb").read().decode(errors="replace")
label = sys.argv[2]
draws = re.findall("\r(" + re.escape(label) + ": [^\r\x1b]*)\x1b\\[K", raw)
if not draws:
    print(f"    no '{label}: ...' line drawn in {raw[:300]!r}")
    sys.exit(1)
if "\r\x1b[K" not in raw:
    print(f"    the progress line is never erased: {raw[-200:]!r}")
    sys.exit(1)
# the text without the line: what came before the first draw and after the erase
text = re.sub("\r[^\r\x1b]*\x1b\\[K", "", raw).replace("\r\x1b[K", "")
open(sys.argv[3], "w").write(text)
print("    " + draws[-1])
EOF
}
# none NAME: no progress line in NAME.tty
none() {
	CHECKS=$((CHECKS + 1))
	grep -q "$(printf '\033')\[K" "$1.tty" && fail "$1: a progress line: $(head -c 200 "$1.tty" | cat -v)"
}

ontty report "$PA_BIN" report --stdio "${R[@]}" || fail "pa report on a terminal"
shown report "Processing events" && same "pa report: the text with the line taken out" report.exp report.text
CHECKS=$((CHECKS + 1))
grep -q "(100%), [0-9]* samples, sorting" report.tty || fail "pa report: no final 100% line: $(cat -v report.tty | head -c 300)"

# held back: a run shorter than the delay shows nothing
DELAY=600000 ontty delayed "$PA_BIN" report --stdio "${R[@]}"
none delayed
# -q, PA_PROGRESS=0, stdout redirected, stderr not a terminal
ontty quiet "$PA_BIN" report --stdio -q "${R[@]}"
none quiet
PA_PROGRESS=0 ontty off "$PA_BIN" report --stdio "${R[@]}"
none off
errtty redirected "$PA_BIN" report --stdio "${R[@]}"
none redirected
same "pa report, stdout redirected" report.exp redirected.out
PA_PROGRESS_DELAY_MS=0 python3 "$PTY" errfile.tty errfile.err -- "$PA_BIN" report --stdio "${R[@]}"
CHECKS=$((CHECKS + 1))
[ -s errfile.err ] && fail "stderr off the terminal got: $(head -c 200 errfile.err | cat -v)"

# the other commands that read every event
pa folded "${R[@]}" >folded.exp 2>/dev/null
ontty folded "$PA_BIN" folded "${R[@]}"
shown folded "Processing events" && same "pa folded: its text" folded.exp folded.text
pa buildid-list --with-hits -i "$F" >bl.exp 2>/dev/null
ontty bl "$PA_BIN" buildid-list --with-hits -i "$F"
shown bl "Processing events" && same "pa buildid-list: its text" bl.exp bl.text
ontty view "$PA_BIN" view "${R[@]}" -o view.html
shown view "Processing events"
CHECKS=$((CHECKS + 1))
grep -q "(100%), [0-9]* samples, writing" view.tty || fail "pa view: no final line"
ontty flame "$PA_BIN" flamegraph "${R[@]}" -o flame.svg
shown flame "Processing events"
ontty export "$PA_BIN" export "${R[@]}" -o prof.pb.gz
shown export "Processing events"
[ -s view.html ] && [ -s flame.svg ] && [ -s prof.pb.gz ] || fail "view/flamegraph/export wrote nothing"
# output on stdout ("-") that is not the terminal: none
errtty viewout "$PA_BIN" view "${R[@]}" -o -
none viewout

# archive: the events, then the DSOs packed; unpack: the files
ontty pack "$PA_BIN" archive "${R[@]}" -o "$WORK/a.tar.zst"
shown pack "Packing"
CHECKS=$((CHECKS + 1))
grep -q "Packing: \([0-9]*\) of \1 DSOs" pack.tty || fail "pa archive: not every DSO counted: $(cat -v pack.tty | head -c 300)"
grep -q "^packed " pack.text || fail "pa archive: its text: $(cat pack.text)"
ontty unpack "$PA_BIN" archive --unpack "$WORK/a.tar.zst" --buildid-dir "$WORK/cache2"
shown unpack "Unpacking"
grep -q "^unpacked " unpack.text || fail "pa archive --unpack: its text: $(cat unpack.text)"
finish
