#!/usr/bin/env bash
# flamediff.sh - differential profiles: `pa folded --diff` against
# difffolded.py (next to this script: an independent re-implementation of
# FlameGraph's difffolded.pl, which is Perl and not installed here) on
# hand-made folded files with the script's corner cases and on testdata
# recordings folded by pa (both sides, mixed, from a pipe, with -n, -s and
# folded's own options); then `pa flamegraph --diff` on two hand-made
# profiles whose colours are known (grow grows, shrink shrinks, steady keeps
# its share, fresh is only in the new one, gone only in the baseline),
# as files and in headless Chromium (flamediff_cdp.py: colours in the DOM,
# hover text, zoom, search, legend, a screenshot at 1400x900 kept as
# WORK/flamediff-html.png and WORK/flamediff-svg.png).
#
# difffolded.pl prints its lines in Perl's hash order, which changes from
# run to run: lines are compared sorted. pa prints them sorted by stack.
# Without Chromium the browser part is left out: under an emulator (where
# there is none) the test passes on the rest, natively it exits 77 after
# every other check passed.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
need_python
cd "$WORK" || exit 1
REF=$HERE/difffolded.py
# a private home: its build-id cache gives testdata/le-file.data its symbols
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/.config XDG_CACHE_HOME=$WORK/home/.cache
mkdir -p "$HOME"

# check_diff WHAT BASELINE NEW [pa folded options...]: pa folded --diff
# equals difffolded.py on FOLDED_B FOLDED_N (set by the caller: the folded
# text of BASELINE and NEW), with each of the option sets in VARIANTS
# (words separated by ","; default: neither, -n, -s, both).
check_diff() {
	local what=$1 b=$2 n=$3 o variants
	shift 3
	local v=${VARIANTS-",-n,-s,-n -s"}
	if [ -z "$v" ]; then
		variants=("")
	else
		IFS=, read -r -a variants <<<"$v"
	fi
	for o in "${variants[@]}"; do
		# shellcheck disable=SC2086 # o: options on purpose
		python3 "$REF" $o "$FOLDED_B" "$FOLDED_N" | LC_ALL=C sort >diff.exp
		# shellcheck disable=SC2086
		if ! pa folded --diff $o "$@" "$b" "$n" >diff.raw 2>diff.err; then
			fail "$what $o: pa folded --diff failed: $(head -n 2 diff.err)"
			continue
		fi
		LC_ALL=C sort diff.raw >diff.got
		same "$what $o" diff.exp diff.got
	done
}

# ---- pa folded --diff on folded files ----
# duplicates, one-side stacks, hex addresses (+0x, upper case, "0x" alone,
# 0X), two blanks before the count (the first stays in the stack), tabs,
# fractions, "3.", leading zeros, lines without a count (blank, blanks
# only, words, CRLF), an empty stack, a last line without "\n", counts
# whose -n scaling is not exact in doubles
printf '%s\n' 'a;b 10' 'a;b 5' 'a;c  7' 'a;c 7' 'x;f+0x1a;g+0X1B 3' 'x;f+0x2b;g+0X1B 4' 'x;0x 2' \
	'x;h0xdeadBEEF 1' 'd;frac 2.5' 'd;frac 1.5' 'd;point 3.' 'd;zero 007' 'no count here' '' '   ' \
	"tab	sep	9" $'cr;line 4\r' 'big;one 123456789012345' ' 6' >e1.folded
printf 'last 1' >>e1.folded
printf '%s\n' 'a;b 30' 'a;d 9' 'x;f+0x99;g+0X1B 8' 'd;frac 0.25' 'big;one 98765432109876' \
	'only;new 11' >e2.folded
FOLDED_B=e1.folded FOLDED_N=e2.folded check_diff "corner cases" e1.folded e2.folded
VARIANTS="-n -s" FOLDED_B=e2.folded FOLDED_N=e1.folded check_diff "corner cases, swapped" e2.folded e1.folded
# equal totals (-n changes nothing), and the same file twice
printf '%s\n' 'm;a 3' 'm;b 1' >t1.folded
printf '%s\n' 'm;a 1' 'm;c 3' >t2.folded
VARIANTS=-n FOLDED_B=t1.folded FOLDED_N=t2.folded check_diff "equal totals" t1.folded t2.folded
VARIANTS="" FOLDED_B=e2.folded FOLDED_N=e2.folded check_diff "one file twice" e2.folded e2.folded
# sorted by stack, and the same bytes every time
pa folded --diff -n e1.folded e2.folded >order1 && pa folded --diff -n e1.folded e2.folded >order2
same "the same output twice" order1 order2
CHECKS=$((CHECKS + 1))
cut -d' ' -f1 order1 | LC_ALL=C sort -c 2>/dev/null || fail "lines not in stack order"

# ---- pa folded --diff on recordings ----
pa archive --unpack "$TESTDATA/le-file.data.tar.zst" --buildid-dir "$HOME/.debug" >unpack.out 2>&1 ||
	fail "unpacking testdata's archive failed: $(head -n 2 unpack.out)"
CHECKS=$((CHECKS + 1))
pa folded -i "$TESTDATA/le-file.data" | grep -q ';main;outer;leaf ' ||
	fail "le-file.data has no symbols from the unpacked archive"
# BASELINE NEW|folded options|-n and -s variants (few: each side is a
# recording read again, the test runs under qemu too)
cases=("le-file.data le-two-events.data||,-n -s" "le-group.data le-file.data|--pid -a|-n"
	"le-zstd.data le-file.data|--period -I|-s")
[ -e "$TESTDATA/be-file.data" ] && cases+=("be-file.data le-file.data||-n")
for c in "${cases[@]}"; do
	IFS='|' read -r pair opts variants <<<"$c"
	read -r b n <<<"$pair"
	{
		# shellcheck disable=SC2086 # opts: options on purpose
		pa folded $opts -i "$TESTDATA/$b" >b.folded 2>/dev/null &&
			pa folded $opts -i "$TESTDATA/$n" >n.folded 2>/dev/null || {
			fail "$pair $opts: pa folded failed"
			continue
		}
		# shellcheck disable=SC2086
		VARIANTS=$variants FOLDED_B=b.folded FOLDED_N=n.folded check_diff "$b vs $n $opts" \
			"$TESTDATA/$b" "$TESTDATA/$n" $opts
	}
done
# a recording and a folded file; a recording from a pipe
pa folded -i "$TESTDATA/le-two-events.data" >n.folded
pa folded -i "$TESTDATA/le-file.data" >b.folded
VARIANTS=-n FOLDED_B=b.folded FOLDED_N=n.folded check_diff "recording vs folded file" \
	"$TESTDATA/le-file.data" n.folded
python3 "$REF" b.folded n.folded | LC_ALL=C sort >pipe.exp
# shellcheck disable=SC2002 # a pipe on purpose: it cannot seek
cat "$TESTDATA/le-file.data" | pa folded --diff - "$TESTDATA/le-two-events.data" | LC_ALL=C sort >pipe.got
same "a recording from a pipe" pipe.exp pipe.got

# errors: status 1 for usage, 2 for what cannot be computed
# fstatus WANT WHAT ARGS...
fstatus() {
	local want=$1 what=$2 st
	shift 2
	pa folded "$@" >/dev/null 2>&1
	st=$?
	CHECKS=$((CHECKS + 1))
	[ "$st" = "$want" ] || fail "folded $what: status $st, want $want"
}
fstatus 1 "--diff with one input" --diff e1.folded
fstatus 1 "-n without --diff" -n -i "$TESTDATA/le-file.data"
fstatus 1 "--diff and -i" --diff -i e1.folded e1.folded e2.folded
fstatus 1 "--diff, missing input" --diff e1.folded no-such.folded
: >empty.folded
fstatus 2 "-n, empty baseline" --diff -n empty.folded e2.folded
fstatus 0 "no -n, empty baseline" --diff empty.folded e2.folded

# ---- pa flamegraph --diff ----
# baseline 100 samples, new 200: grow 10% -> 50% (+40 pp, the largest
# change: full red), shrink 40% -> 10% (-30 pp: blue at 3/4), steady
# 30% -> 30% (white), fresh only in new (+10 pp), gone only in baseline
cat >base.folded <<'EOF'
prog;main;grow 10
prog;main;shrink 40
prog;main;steady 30
prog;main;gone 20
EOF
cat >new.folded <<'EOF'
prog;main;grow 100
prog;main;shrink 20
prog;main;steady 60
prog;main;fresh 20
EOF
for kind in svg html; do
	pa flamegraph --diff base.folded new.folded -o "diff.$kind" 2>fg.err
	CHECKS=$((CHECKS + 1))
	[ -s "diff.$kind" ] || fail "flamegraph --diff -o diff.$kind: $(head -n 2 fg.err)"
done
# svgframe NAME FILL [TEXT]: the SVG frame NAME has that fill (and TEXT in its title)
svgframe() {
	CHECKS=$((CHECKS + 1))
	grep "<title>$1 (" "${SVG:-diff.svg}" | grep -qF "fill=\"$2\"" ||
		fail "svg: $1 not filled $2: $(grep "<title>$1 (" "${SVG:-diff.svg}" | head -c 400)"
	if [ -n "${3:-}" ]; then
		CHECKS=$((CHECKS + 1))
		grep "<title>$1 (" "${SVG:-diff.svg}" | grep -qF "$3" || fail "svg: $1's title lacks '$3'"
	fi
}
svgframe grow 'rgb(255,65,65)' 'grow (100 samples, 50.00%; baseline 10, 10.00%; self +40.00 pp, total +40.00 pp)'
svgframe shrink 'rgb(113,113,255)' 'self -30.00 pp, total -30.00 pp'
svgframe steady 'rgb(255,255,255)' 'self +0.00 pp, total +0.00 pp'
svgframe fresh 'rgb(255,208,208)' '; only in new'
svgframe main 'rgb(255,255,255)' '20 baseline samples in callees only in baseline'
CHECKS=$((CHECKS + 1))
grep -q 'class="new"' diff.svg && [ "$(grep -c 'class="new"/>' diff.svg)" = 1 ] ||
	fail "svg: one frame outlined as only in new"
CHECKS=$((CHECKS + 1))
grep -q '<title>gone' diff.svg && fail "svg: the baseline-only frame is drawn"
CHECKS=$((CHECKS + 1))
grep -q '<g id="legend">' diff.svg && grep -qF 'Frames only in the baseline: 1 (20 samples)' diff.svg &&
	grep -qF 'strongest +40.00 pp' diff.svg || fail "svg: legend"
CHECKS=$((CHECKS + 1))
grep -q '<div id="legend">' diff.html && grep -qF '"diff": {"base": 100, "raw": false}' diff.html ||
	fail "html: legend and diff data"
if command -v xmllint >/dev/null 2>&1; then
	CHECKS=$((CHECKS + 1))
	xmllint --noout diff.svg || fail "svg: not well-formed XML"
fi
# --diff-raw: self samples: grow +90 (the largest), steady +30 (1/3 red),
# shrink -20
pa flamegraph --diff --diff-raw base.folded new.folded -o raw.svg
SVG=raw.svg svgframe grow 'rgb(255,65,65)' 'self +90 samples, total +90 samples'
SVG=raw.svg svgframe steady 'rgb(255,192,192)' 'self +30 samples'
SVG=raw.svg svgframe shrink 'rgb(213,213,255)' 'self -20 samples'
# the same graph from the same data, in any line order; a plain graph is
# unchanged by all this (no legend, no diff data)
tac new.folded >new-rev.folded
pa flamegraph --diff base.folded new-rev.folded -o rev.svg --subtitle 'baseline base.folded, new new.folded'
same "svg: independent of line order" diff.svg rev.svg
pa flamegraph -i new.folded -o plain.html
CHECKS=$((CHECKS + 1))
grep -q 'id="legend"\|"diff":' plain.html && fail "plain graph has diff parts"
# recordings: the graph of their folded stacks (-a: kinds survive)
for pair in "le-zstd.data le-file.data"; do
	read -r b n <<<"$pair"
	pa folded -a -i "$TESTDATA/$b" >b.folded && pa folded -a -i "$TESTDATA/$n" >n.folded
	for kind in html svg; do
		if pa flamegraph --diff "$TESTDATA/$b" "$TESTDATA/$n" -o "rec.$kind" --subtitle s 2>rec.err &&
			pa flamegraph --diff b.folded n.folded -o "recf.$kind" --subtitle s; then
			same "$pair: $kind graph = the graph of its folded stacks" "recf.$kind" "rec.$kind"
		else
			fail "$pair: flamegraph --diff $kind: $(head -n 2 rec.err)"
		fi
	done
done
# gstatus WANT WHAT ARGS...
gstatus() {
	local want=$1 what=$2 st
	shift 2
	pa flamegraph "$@" >/dev/null 2>&1
	st=$?
	CHECKS=$((CHECKS + 1))
	[ "$st" = "$want" ] || fail "flamegraph $what: status $st, want $want"
}
gstatus 1 "--diff with one input" --diff base.folded -o x.svg
gstatus 1 "--diff-raw without --diff" --diff-raw -i base.folded -o x.svg
gstatus 1 "--diff and -i" --diff -i base.folded base.folded new.folded -o x.svg
gstatus 1 "--diff, standard input twice" --diff - - -o x.svg

# ---- in the browser ----
[ "$FAILS" -eq 0 ] || finish
CHROMIUM=${PA_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$CHROMIUM" ]; then
	[ -n "$PA_EMU" ] && { note "no chromium under $PA_EMU: browser checks left out"; finish; }
	skip "no chromium (Debian package chromium)"
fi
browser_check "flame diff" "$HERE/flamediff_cdp.py" "$CHROMIUM" "$WORK" diff.html diff.svg
finish
