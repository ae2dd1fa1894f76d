#!/usr/bin/env bash
# view.sh - pa view: the page's data checked against pa report (every row
# of the flat table: children and self per dso,sym) on the fixtures and on
# a call-graph recording made here with perf record -g when perf works;
# bad input (one line naming file and offset, status 2, no file); then in
# headless Chromium (view_cdp.py) the page's views, filters (comm, DSO,
# time range dragged on the timeline), filters given to pa view (--comms,
# --dsos, --symbols: the page's initial ones, total kept), search,
# selection and keyboard against pa report, screenshots kept in WORK
# (view-*.png, paths printed); then in headless Firefox (view_bidi.py,
# WebDriver BiDi) when firefox-esr or firefox is installed, else a note.
#
# The data checks run without a browser; the test exits 77 (skipped) only
# when the browser part cannot run, after they passed. Under an emulator
# (cross builds) or ASan: one fixture, no browser.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

need_python
cd "$WORK" || exit 1
CDP=$HERE/view_cdp.py
INLINE=$TESTDATA/inline/inline.data
SYMFS=$TESTDATA/inline/symfs
SHORT=
[ -n "$PA_EMU" ] && SHORT=emulator
[ -n "${ASAN_OPTIONS:-}" ] && SHORT=sanitizer

# view NAME FIXTURE [OPTIONS...]: pa view into NAME.html, its data checked
# against pa report --children / --no-children --sort dso,sym
view() {
	local name=$1 fixture=$2
	shift 2
	CHECKS=$((CHECKS + 1))
	if ! pa view -i "$fixture" -o "$name.html" "$@" 2>"$name.err"; then
		fail "$name: pa view $*: $(head -n 2 "$name.err")"
		return 1
	fi
	pa report -i "$fixture" "$@" --stdio -g none --sort dso,sym --children >"$name.ch" 2>/dev/null
	pa report -i "$fixture" "$@" --stdio -g none --sort dso,sym --no-children >"$name.se" 2>/dev/null
	pa report -i "$fixture" "$@" --stdio -g none -v >/dev/null 2>"$name.v"
	pa report -i "$fixture" "$@" --stdio -g none --sort dso,sym,srcline --no-children \
		>"$name.sl" 2>/dev/null
	CHECKS=$((CHECKS + 1))
	python3 "$CDP" data "$name.html" "$name.ch" "$name.se" "$name.v" "$name.sl" ||
		fail "$name: data against pa report"
}

# pa report --html FILE: pa view's page, with the report's filters
CHECKS=$((CHECKS + 1))
pa report -i "$TESTDATA/le-file.data" --comms burn --html report-html.html &&
	pa view -i "$TESTDATA/le-file.data" --comms burn -o view-html.html &&
	cmp -s report-html.html view-html.html || fail "pa report --html: not pa view's page"

if [ -n "$SHORT" ]; then
	view le-file "$TESTDATA/le-file.data"
	note "under $SHORT: one fixture, no browser"
	finish
fi

for f in le-file le-sysw le-dwarf be-file le-two-events; do
	view "$f" "$TESTDATA/$f.data"
done
# (with inline frames pa report --children splits a function into two
# rows, replaying perf's hist-entry tree, whose symbol comparison is not an
# order: the page replays it too; and without them)
view inline "$INLINE" --symfs "$SYMFS"
CHECKS=$((CHECKS + 1))
[ "$(grep -c '__introsort_loop<.*, long, .*>$' inline.ch)" = 2 ] ||
	fail "inline: pa report --children no longer splits __introsort_loop (the case tested)"
view inline-noinl "$INLINE" --symfs "$SYMFS" --no-inline

# a call-graph recording of a small program, when perf can record here
# (perf record writes build-ids into $HOME/.debug: a private one)
private_home
PERF_OK=
if command -v perf >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
	cat >prog.c <<'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf_a(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		sink += i * i;
		sink ^= i >> 2;
	}
}
__attribute__((noinline)) static void leaf_b(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i + (sink >> 3);
}
/* a name that would end the page's script if it were not escaped */
__attribute__((noinline)) void evil(unsigned long n) __asm__("\"evil</script><b>&'x\"");
__attribute__((noinline)) void evil(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink -= i; }
__attribute__((noinline)) static void mid(unsigned long n) { leaf_a(n); leaf_b(n / 2); evil(n / 2); }
/* a flame graph taller than the window, as deep stacks make it */
__attribute__((noinline)) static unsigned long deep(int d, unsigned long n) { if (d == 0) { leaf_b(n); return sink; } return deep(d - 1, n) + 1; }
int main(int argc, char **argv) { unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 30000000; for (int k = 0; k < 4; k++) { mid(n / 4); leaf_b(n / 8); sink += deep(64, n / 16); } return 0; }
EOF
	if cc -O1 -g -fno-omit-frame-pointer -o prog prog.c 2>cc.err &&
		perf record -q -g -F 2000 -o rec.data -- ./prog >perf.out 2>&1 && [ -s rec.data ]; then
		PERF_OK=1
		view rec rec.data
		CHECKS=$((CHECKS + 1))
		grep -q 'evil</script' rec.html && fail "rec: a symbol name ends the page's script"
		CHECKS=$((CHECKS + 1))
		grep -qF "[.] evil</script><b>&'x" rec.se || note "rec: evil</script> not sampled"
	else
		note "perf record -g did not work here: $(tail -n 1 perf.out 2>/dev/null)"
	fi
fi

# ---- bad input: one line naming the file and the offset, status 2, no
# output (an existing file kept), no temporary file ----
size=$(wc -c <"$TESTDATA/le-file.data")
head -c $((size / 2)) "$TESTDATA/le-file.data" >cut-half.data
echo keep >kept.html
for out in cut-half.html kept.html; do
	pa view -i cut-half.data -o "$out" 2>err.txt
	st=$?
	CHECKS=$((CHECKS + 1))
	[ $st = 2 ] && [ "$(wc -l <err.txt)" = 1 ] &&
		grep -q "^pa: 'cut-half.data': .* at offset [0-9][0-9]*$" err.txt ||
		fail "cut-half: status $st, message: $(cat err.txt)"
done
CHECKS=$((CHECKS + 1))
[ ! -e cut-half.html ] && [ "$(cat kept.html)" = keep ] || fail "bad input: output written or changed"
CHECKS=$((CHECKS + 1))
ls ./*.tmp-* >/dev/null 2>&1 && fail "temporary file left behind"
# self-contained: no network reference, no early end of the script
CHECKS=$((CHECKS + 1))
grep -Eqi '(src|href)="?(https?:)?//' le-file.html && fail "page refers to the network"
CHECKS=$((CHECKS + 1))
[ "$(grep -ci '</script' le-file.html)" = 2 ] || fail "page: unexpected </script"

# ---- in the browser ----
[ "$FAILS" -eq 0 ] || finish
# A private home: the browsers write nothing outside WORK.
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/.config XDG_CACHE_HOME=$WORK/home/.cache
mkdir -p "$HOME"
CHROMIUM=${PA_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
NOBROWSER=
if [ -z "$CHROMIUM" ]; then
	NOBROWSER="no chromium (Debian package chromium) for the browser part"
else
	pages=(le-file.html "$TESTDATA/le-file.data" le-sysw.html "$TESTDATA/le-sysw.data"
		inline.html "$INLINE" --symfs "$SYMFS")
	[ -n "$PERF_OK" ] && pages+=(rec.html rec.data)
	python3 "$CDP" browser "$CHROMIUM" "$PA_BIN" "$WORK" "${pages[@]}"
	st=$?
	CHECKS=$((CHECKS + 1))
	case $st in
	0) ;;
	77) NOBROWSER="chromium cannot be driven over the DevTools protocol" ;;
	*) fail "pa view in the browser" ;;
	esac
fi

# Firefox (view_bidi.py, WebDriver BiDi): the page loads without a
# JavaScript error, flat table, flame graph drawn (view-firefox.png), comm
# and DSO filters, a time range dragged, search typed, a frame clicked;
# on the fresh recording's page when there is one, and le-file's.
FIREFOX=${PA_FIREFOX:-$(command -v firefox-esr || command -v firefox || true)}
if [ -z "$FIREFOX" ]; then
	note "no firefox-esr or firefox (Debian package firefox-esr): the Firefox part did not run"
else
	pages=(le-file.html "$TESTDATA/le-file.data")
	[ -n "$PERF_OK" ] && pages=(rec.html rec.data "${pages[@]}")
	python3 "$HERE/view_bidi.py" "$FIREFOX" "$PA_BIN" "$WORK" "${pages[@]}"
	st=$?
	case $st in
	0) CHECKS=$((CHECKS + 1)) ;;
	77) NOBROWSER="${NOBROWSER:+$NOBROWSER; }firefox cannot be driven over WebDriver BiDi" ;;
	*)
		CHECKS=$((CHECKS + 1))
		fail "pa view in Firefox"
		;;
	esac
fi
[ "$FAILS" -eq 0 ] && [ -n "$NOBROWSER" ] && skip "data checks passed ($CHECKS); $NOBROWSER"
finish
