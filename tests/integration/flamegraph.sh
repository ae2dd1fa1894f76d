#!/usr/bin/env bash
# flamegraph.sh - pa flamegraph: folded stacks in, SVG and HTML out, checked
# as files (frames, escaping, kinds, determinism, atomic output, stdin) and
# in headless Chromium (--dump-dom: the script drew the expected frames;
# --screenshot; the DevTools protocol through flamegraph_cdp.py: a click
# zooms, the search paints matches, hovering shows details).
# Leaves WORK/flamegraph-html.png, flamegraph-svg.png (as loaded) and
# WORK/fg-html-zoomed.png, fg-svg-zoomed.png (after the click and search).
# Exit 77 only when every other check passed and Chromium cannot run.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

cd "$WORK" || exit 1

# Known stacks: 110 samples; kernel, JIT and inlined frames; C++ names that
# need escaping; compute and parse_input are siblings under main.
cat >stacks.folded <<'EOF'
myprog;_start;__libc_start_main;main;compute;std::vector<int>::push_back 30
myprog;_start;__libc_start_main;main;compute;operator<<(std::ostream&, char const*) 20
myprog;_start;__libc_start_main;main;parse_input;read_kernel_[k] 5
myprog;_start;__libc_start_main;main;parse_input;read;entry_SYSCALL_64_[k];do_syscall_64_[k];ksys_read_[k];vfs_read_[k] 25
myprog;_start;__libc_start_main;main;idle_loop 10
java;Interpreter;LFoo::bar_[j];inlined_thing_[i] 15
java;Interpreter;LFoo::bar_[j] 5
EOF
FRAMES=(all myprog _start __libc_start_main main compute parse_input idle_loop read read_kernel
	entry_SYSCALL_64 do_syscall_64 ksys_read vfs_read java Interpreter LFoo::bar inlined_thing
	'std::vector<int>::push_back' 'operator<<(std::ostream&, char const*)')
# the same names as XML/HTML text
xml() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }

# ---- files ----
if pa flamegraph -i stacks.folded -o fg.html && pa flamegraph -i stacks.folded -o fg.svg; then
	pass
else
	fail "pa flamegraph exits non-zero"
fi
[ -s fg.html ] && [ -s fg.svg ] && pass || fail "outputs missing"

for f in "${FRAMES[@]}"; do
	t=$(printf '%s' "$f" | xml)
	CHECKS=$((CHECKS + 1))
	grep -qF "<title>$t (" fg.svg || fail "svg: no frame '$f'"
done
CHECKS=$((CHECKS + 1))
grep -qF '<title>vfs_read (25 samples, 22.73%, kernel)</title>' fg.svg || fail "svg: vfs_read title"
CHECKS=$((CHECKS + 1))
grep -qF '<title>std::vector&lt;int&gt;::push_back (30 samples, 27.27%)</title>' fg.svg ||
	fail "svg: escaped C++ title"
CHECKS=$((CHECKS + 1))
[ "$(grep -c ', kernel)</title>' fg.svg)" = 5 ] && [ "$(grep -c ', JIT)</title>' fg.svg)" = 1 ] &&
	[ "$(grep -c ', inlined)</title>' fg.svg)" = 1 ] || fail "svg: frame kinds from _[k] _[j] _[i]"
CHECKS=$((CHECKS + 1))
grep -qF '"std::vector\u003cint\u003e::push_back"' fg.html || fail "html: escaped name in the data"
CHECKS=$((CHECKS + 1))
if grep -q 'std::vector<int>' fg.html fg.svg; then fail "unescaped '<' in output"; fi
if command -v xmllint >/dev/null 2>&1; then
	CHECKS=$((CHECKS + 1))
	xmllint --noout fg.svg || fail "svg: not well-formed XML"
fi

# Determinism: same bytes twice, and from the lines in another order.
pa flamegraph -i stacks.folded -o again.svg && pa flamegraph -i stacks.folded -o again.html
same "svg: same output twice" fg.svg again.svg
same "html: same output twice" fg.html again.html
tac stacks.folded >reversed.folded
pa flamegraph -i reversed.folded -o reversed.svg && pa flamegraph -i reversed.folded -o reversed.html
same "svg: independent of input order" fg.svg reversed.svg
same "html: independent of input order" fg.html reversed.html

# Standard input (a pipe) and standard output.
# shellcheck disable=SC2002 # a pipe on purpose: it cannot seek
cat stacks.folded | pa flamegraph -i - -o stdin.html
same "html: from a pipe" fg.html stdin.html
pa flamegraph -i stacks.folded -o - --format svg >stdout.svg
same "svg: to standard output" fg.svg stdout.svg

# Options reach the output.
pa flamegraph -i stacks.folded -o opts.svg --title 'T <&> "q"' --subtitle sub --width 800 --inverted \
	--colors mem --countname cycles --minwidth 10
CHECKS=$((CHECKS + 1))
grep -qF '<svg version="1.1" width="800"' opts.svg && grep -qF '>T &lt;&amp;&gt; &quot;q&quot;</text>' opts.svg &&
	grep -qF '>sub</text>' opts.svg && grep -qF '(30 cycles, 27.27%)' opts.svg || fail "svg: options"
CHECKS=$((CHECKS + 1))
grep -qF '<title>idle_loop' opts.svg && fail "svg: --minwidth 10 keeps a 9% frame"

# Errors: a status, one message, no output and no temporary file left.
echo "keep" >kept.svg
printf 'a;b 1\na;c x\n' >bad.folded
pa flamegraph -i bad.folded -o kept.svg 2>err.txt
st=$?
CHECKS=$((CHECKS + 1))
[ $st = 2 ] && grep -q "^pa: 'bad.folded': line 2: .* at offset 6$" err.txt || {
	fail "bad input: status $st, message: $(cat err.txt)"
}
CHECKS=$((CHECKS + 1))
[ "$(cat kept.svg)" = keep ] || fail "bad input: existing output changed"
CHECKS=$((CHECKS + 1))
ls ./*.tmp-* >/dev/null 2>&1 && fail "temporary file left behind"
# status WANT WHAT ARGS...: pa flamegraph ARGS exits with WANT
status() {
	local want=$1 what=$2 st
	shift 2
	pa flamegraph "$@" 2>/dev/null
	st=$?
	CHECKS=$((CHECKS + 1))
	[ "$st" = "$want" ] || fail "$what: status $st, want $want"
}
status 1 "unknown output suffix" -i stacks.folded -o out.png
status 1 "no -o" -i stacks.folded
status 1 "unwritable output" -i stacks.folded -o no/such/dir/x.svg
status 1 "missing input" -i no-such.folded -o x.svg
status 1 "unknown palette" -i stacks.folded -o x.svg --colors rainbow
status 1 "positional argument" stacks.folded -o x.svg
CHECKS=$((CHECKS + 1))
[ ! -e x.svg ] || fail "x.svg written by a failing run"

# Recordings go through the report layer's stacks: for every fixture, the
# same graph, byte for byte, as from the folded stacks `pa folded -a` prints
# for it (-a: _[k]/_[j] marks, so that the kinds survive the text), with
# and without options that change the stacks.
caps=()
for c in "$TESTDATA"/*.syscap; do
	[ -e "$c" ] && caps+=("$(basename "$c")")
done
# (under a sanitizer or an emulator: a diagonal subset of fixture x
# options, in_subset in lib.sh)
k=0
for fixture in $(le_fixtures) $(be_fixtures) "${caps[@]}"; do
	k=$((k + 1)) j=0
	for opts in "" "--pid -d -I"; do
		in_subset $((k + j++)) || continue
		# shellcheck disable=SC2086 # opts: several options on purpose
		pa flamegraph -i "$TESTDATA/$fixture" -o perf.html $opts 2>perf-err.txt
		st=$?
		CHECKS=$((CHECKS + 1))
		if [ $st != 0 ] || ! grep -q '^"frames": \[$' perf.html; then
			fail "$fixture $opts: status $st, no frames: $(cat perf-err.txt)"
			continue
		fi
		# shellcheck disable=SC2086
		if pa folded -a -i "$TESTDATA/$fixture" $opts >perf.folded &&
			pa flamegraph -i perf.folded -o perf-folded.html; then
			same "$fixture $opts: the graph of its folded stacks" perf-folded.html perf.html
		else
			fail "$fixture $opts: pa folded -a, then pa flamegraph of it"
		fi
	done
done
fixture=$(le_fixtures | head -n 1)
pa flamegraph -i "$TESTDATA/$fixture" -o perf.svg
CHECKS=$((CHECKS + 1))
grep -q '<g data-x="0" data-w="[1-9][0-9]*" data-d="1">' perf.svg || fail "$fixture: svg has no frames"
# and from a pipe, which pa copies to a temporary file to tell what it is
# shellcheck disable=SC2002 # a pipe on purpose
cat "$TESTDATA/$fixture" | pa flamegraph -i - -o perf-stdin.svg
same "perf.data from a pipe" perf.svg perf-stdin.svg

# ---- in the browser ----
[ "$FAILS" -eq 0 ] || finish
CHROMIUM=${PA_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || skip "no chromium (Debian package chromium)"
need_python
# A private home: the browser writes nothing outside WORK.
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/.config XDG_CACHE_HOME=$WORK/home/.cache
mkdir -p "$HOME"
# ... and its singleton socket directory (which it puts in TMPDIR) not in
# the system's /tmp either: a short path of its own, as a socket's is limited
CHROMIUM_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pa-chromium-XXXXXX")
trap 'rm -rf "$CHROMIUM_TMP"' EXIT
profiles=0
chromium() {
	profiles=$((profiles + 1))
	TMPDIR=$CHROMIUM_TMP timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$WORK/profile-$profiles" --window-size=1200,600 --hide-scrollbars "$@" \
		2>>chromium.log
}
chromium --dump-dom about:blank >/dev/null || skip "chromium cannot run (see $WORK/chromium.log)"

for kind in html svg; do
	chromium --dump-dom "file://$WORK/fg.$kind" >"dom.$kind" || fail "$kind: --dump-dom failed"
	for f in "${FRAMES[@]}"; do
		t=$(printf '%s' "$f" | xml)
		CHECKS=$((CHECKS + 1))
		grep -qF ">$t<" "dom.$kind" || grep -qF "<title>$t (" "dom.$kind" || fail "$kind: DOM lacks '$f'"
	done
	chromium --screenshot="$WORK/flamegraph-$kind.png" "file://$WORK/fg.$kind" >/dev/null
	CHECKS=$((CHECKS + 1))
	[ "$(head -c 8 "flamegraph-$kind.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		fail "$kind: no screenshot"
done
# the frames in the DOM are the script's work: it gives each a data-i
for kind in html svg; do
	CHECKS=$((CHECKS + 1))
	[ "$(grep -o ' data-i="' "dom.$kind" | wc -l)" = 20 ] || fail "$kind: the script did not mark 20 frames"
done

for kind in html svg; do
	browser_check "$kind" "$HERE/flamegraph_cdp.py" "$CHROMIUM" "fg.$kind" "$WORK"
done

# The first view is the graph, however deep the deepest stack: 300 frames
# too narrow to draw do not make the page 5000 px tall (narrow), and a
# drawn deep stack opens scrolled to its root (wide; an icicle opens on
# its root at the top).
deep=$(seq 0 299 | sed 's/^/d/' | paste -sd';')
printf 'app;main;work;compute 1000000\napp;main;%s 1\n' "$deep" >deep-narrow.folded
printf 'app;main;work;compute 600\napp;main;%s 400\n' "$deep" >deep-wide.folded
pa flamegraph -i deep-narrow.folded -o deep-narrow.html &&
	pa flamegraph -i deep-wide.folded -o deep-wide.html &&
	pa flamegraph -i deep-wide.folded --inverted -o deep-icicle.html || fail "deep graphs"
# And a real one: a C++ program recorded now (-g, frame pointers), stacks
# 20 to 127 frames deep through std::regex and std::map, thousands of them.
DEEP=()
if command -v perf >/dev/null && command -v g++ >/dev/null; then
	if ! g++ -O2 -g -fno-omit-frame-pointer -o deep-cpp "$TESTDATA/src/deep.cpp" 2>deep-cpp.log; then
		fail "cannot build testdata/src/deep.cpp (see $WORK/deep-cpp.log)"
	elif perf record -q -g -F 2999 -o deep-cpp.data -- ./deep-cpp 1 >/dev/null 2>&1 &&
		[ -s deep-cpp.data ]; then
		CHECKS=$((CHECKS + 1))
		if pa flamegraph -i deep-cpp.data -o deep-cpp.html; then
			depth=$(pa folded -i deep-cpp.data | awk '{n = split($1, a, ";"); if (n > m) m = n} END {print m + 0}')
			CHECKS=$((CHECKS + 1))
			[ "$depth" -ge 100 ] || fail "deep-cpp: the deepest stack has $depth frames, not 100 or more"
			DEEP=(deep-cpp.html)
		else
			fail "deep-cpp: pa flamegraph"
		fi
	else
		note "perf record refused here: no deep C++ recording"
	fi
else
	note "no perf or g++: no deep C++ recording"
fi
browser_check "first views" "$HERE/firstview_cdp.py" "$CHROMIUM" "$WORK" deep-narrow.html deep-wide.html \
	deep-icicle.html "${DEEP[@]}"
finish
