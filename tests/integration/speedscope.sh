#!/usr/bin/env bash
# speedscope.sh - pa export --format speedscope: the JSON checked against pa
# report's numbers per thread (process) and event, speedscope's schema and
# perf's own folded stacks (the inline fixture's golden files); determinism,
# the big-endian twin, bad input; then speedscope itself opens the files in
# headless Chromium (speedscope_cdp.py: profile names, totals, the flame
# chart drawn, the Sandwich view's weights) and leaves screenshots in WORK
# (speedscope-*.png, their paths printed).
#
# speedscope comes from npm, installed by scripts/deps into
# $PA_SPEEDSCOPE_DIR (default ~/.cache/pa/speedscope): nothing is downloaded
# here. Without it or without Chromium the JSON checks still run, then the
# test exits 77 (skipped) with a message; it fails (1) when a JSON check did.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

need_python
cd "$WORK" || exit 1
CDP=$HERE/speedscope_cdp.py
SS_DIR=${PA_SPEEDSCOPE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pa/speedscope}
RELEASE=$SS_DIR/node_modules/speedscope/dist/release
SCHEMA=()
[ -f "$RELEASE/file-format-schema.json" ] && SCHEMA=(--schema "$RELEASE/file-format-schema.json")
version=$(pa --version | sed -n 's/^pa version //p')
INLINE=$TESTDATA/inline/inline.data
SYMFS=$TESTDATA/inline/symfs
GOLD=$TESTDATA/golden/inline

# export NAME FIXTURE [ARGS...]: pa export into NAME.speedscope.json
export_to() {
	local name=$1 fixture=$2
	shift 2
	CHECKS=$((CHECKS + 1))
	if ! pa export -i "$fixture" -o "$name.speedscope.json" "$@" 2>"$name.err"; then
		fail "$name: pa export $*: $(head -n 2 "$name.err")"
		return 1
	fi
	[ ! -s "$name.err" ] || note "$name: pa export said: $(head -n 1 "$name.err")"
	return 0
}
# json NAME SORT [CHECK OPTIONS...]: the JSON against pa report --sort SORT
json() {
	local name=$1 sort=$2 fixture=$3 ropts=()
	shift 3
	[ "$fixture" = "$INLINE" ] && ropts=(--symfs "$SYMFS")
	pa report -i "$fixture" "${ropts[@]}" --stdio --sort "$sort" -n --show-total-period -g none \
		--no-children >"$name.report" 2>/dev/null
	CHECKS=$((CHECKS + 1))
	python3 "$CDP" json "$name.speedscope.json" "$name.report" "${SCHEMA[@]}" \
		--exporter "pa $version" "$@" || fail "$name: JSON checks"
}

# ---- the JSON: per thread, per event, per process, inline frames ----
for f in le-file le-two-events le-dwarf be-file le-sysw; do
	export_to "$f" "$TESTDATA/$f.data" && json "$f" tid "$TESTDATA/$f.data"
done
# a sysprof capture: one sample, one unit of weight (no clock period)
export_to syscap "$TESTDATA/le-burn.syscap" && json syscap tid "$TESTDATA/le-burn.syscap" --unit none
export_to sysw-pid "$TESTDATA/le-sysw.data" --per-process &&
	json sysw-pid pid "$TESTDATA/le-sysw.data" --per-process
# the inline fixture: C++ names, inline frames, source lines; its stacks
# are perf's (perf script | stackcollapse-perf.pl, golden files)
if export_to inline "$INLINE" --symfs "$SYMFS"; then
	json inline tid "$INLINE" --folded "$GOLD/folded.txt"
	CHECKS=$((CHECKS + 1))
	python3 - inline.speedscope.json <<'EOF' || fail "inline: frames with source lines"
import json, sys
fr = json.load(open(sys.argv[1]))["shared"]["frames"]
def has(**kw):
    return any(all(f.get(k) == v for k, v in kw.items()) for f in fr)
ok = has(name="main", file="inline.cpp") and has(name="work_sort (inlined)", file="inline.cpp")
ok = ok and any(f["name"].endswith(" (inlined)") and f.get("file") == "stl_algo.h" for f in fr)
ok = ok and any(f["name"].startswith("[unknown] (") and "file" not in f for f in fr)
sys.exit(0 if ok else 1)
EOF
fi
export_to inline-noinline "$INLINE" --symfs "$SYMFS" --no-inline &&
	json inline-noinline tid "$INLINE" --folded "$GOLD/folded-noinline.txt"

# ---- same bytes: twice, to standard output, the big-endian twin ----
if export_to again "$TESTDATA/le-two-events.data"; then
	same "same output twice" le-two-events.speedscope.json again.speedscope.json
fi
pa export -i "$TESTDATA/le-two-events.data" --format speedscope -o - >stdout.json 2>/dev/null
same "to standard output" le-two-events.speedscope.json stdout.json
CHECKS=$((CHECKS + 1))
python3 - le-file.speedscope.json be-file.speedscope.json <<'EOF' || fail "be-file: not le-file's profiles"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
sys.exit(0 if a.pop("name") == "le-file.data" and b.pop("name") == "be-file.data" and a == b else 1)
EOF

# ---- bad input: one line naming the file and the offset, status 2,
# no output (an existing file kept), no temporary file ----
size=$(wc -c <"$TESTDATA/le-file.data")
head -c 3000 "$TESTDATA/le-file.data" >cut-header.data
head -c $((size / 2)) "$TESTDATA/le-file.data" >cut-half.data
# (pipe mode: the records themselves are cut, not the header's sizes)
size=$(wc -c <"$TESTDATA/le-pipe.data")
head -c $((size / 2)) "$TESTDATA/le-pipe.data" >cut-pipe.data
echo keep >kept.speedscope.json
for bad in cut-header cut-half cut-pipe; do
	for out in "$bad.speedscope.json" kept.speedscope.json; do
		pa export -i "$bad.data" -o "$out" 2>err.txt
		st=$?
		CHECKS=$((CHECKS + 1))
		[ $st = 2 ] && [ "$(wc -l <err.txt)" = 1 ] &&
			grep -q "^pa: '$bad.data': .* at offset [0-9][0-9]*$" err.txt ||
			fail "$bad: status $st, message: $(cat err.txt)"
	done
	CHECKS=$((CHECKS + 1))
	[ ! -e "$bad.speedscope.json" ] || fail "$bad: output written"
done
# shellcheck disable=SC2002 # a pipe on purpose
cat cut-pipe.data | pa export -i - -o stdin.speedscope.json 2>err.txt
st=$?
CHECKS=$((CHECKS + 1))
[ $st = 2 ] && grep -q "^pa: '-': .* at offset [0-9][0-9]*$" err.txt && [ ! -e stdin.speedscope.json ] ||
	fail "cut pipe on standard input: status $st, message: $(cat err.txt)"
CHECKS=$((CHECKS + 1))
[ "$(cat kept.speedscope.json)" = keep ] || fail "bad input: existing output changed"
CHECKS=$((CHECKS + 1))
ls ./*.tmp-* >/dev/null 2>&1 && fail "temporary file left behind"

# ---- in speedscope ----
[ "$FAILS" -eq 0 ] || finish
CHROMIUM=${PA_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || skip "JSON checks passed ($CHECKS); no chromium (Debian package chromium) for the browser part"
[ -f "$RELEASE/index.html" ] ||
	skip "JSON checks passed ($CHECKS); speedscope not installed in $SS_DIR (scripts/deps installs it with npm)"
# A private home: the browser writes nothing outside WORK.
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/.config XDG_CACHE_HOME=$WORK/home/.cache
mkdir -p "$HOME"
python3 "$CDP" browser "$CHROMIUM" "$RELEASE" "$WORK" le-two-events.speedscope.json \
	sysw-pid.speedscope.json inline.speedscope.json le-file.speedscope.json
st=$?
CHECKS=$((CHECKS + 1))
case $st in
0) ;;
77) skip "JSON checks passed; chromium cannot be driven over the DevTools protocol" ;;
*) fail "speedscope in the browser" ;;
esac
finish
