#!/usr/bin/env bash
# Filters that match nothing say so: pa report (pa diff, pa folded, pa
# flamegraph) with a --dsos,
# --comms or --symbols name that no sample had print perf's report on stdout
# unchanged (perf 6.1's, when perf is here) and one stderr line per such
# name, naming the closest names the samples had; a name that matches
# gives no line.
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1
F=$TESTDATA/le-file.data
pa archive --unpack "$TESTDATA/le-file.data.tar.zst" --buildid-dir "$WORK/cache" >/dev/null 2>&1 ||
	fail "pa archive --unpack of the fixture's archive"
have_perf=0
command -v perf >/dev/null 2>&1 && have_perf=1

# hint WANT_RE FILTER...: pa report with FILTER; stdout is perf's; stderr
# matches WANT_RE line by line (one line per pattern, "" for none)
n=0
hint() {
	local want=$1
	shift
	n=$((n + 1))
	pa report --stdio -i "$F" --buildid-dir "$WORK/cache" "$@" >"pa.$n" 2>"err.$n" ||
		fail "pa report $* failed: $(cat "err.$n")"
	if [ $have_perf = 1 ]; then
		perf --buildid-dir "$WORK/cache" report --stdio -i "$F" "$@" 2>/dev/null |
			grep -v '^# (Tip' >"perf.$n"
		same "pa report $*: stdout is perf's" "perf.$n" "pa.$n"
	fi
	CHECKS=$((CHECKS + 1))
	if [ -z "$want" ]; then
		[ -s "err.$n" ] && fail "pa report $*: a hint for a filter that matches: $(cat "err.$n")"
	elif [ "$(wc -l <"err.$n")" != "$(printf '%s\n' "$want" | wc -l)" ] ||
		! paste -d '\n' <(printf '%s\n' "$want") "err.$n" |
		while IFS= read -r re && IFS= read -r line; do
			[[ $line =~ $re ]] || exit 1
		done; then
		fail "pa report $*: stderr is not /$want/:"
		sed 's/^/    /' "err.$n"
	fi
}

hint "^pa: report: --dsos 'libc.so' matches no sampled DSO; did you mean 'libc.so.6'\?$" --dsos libc.so
hint "^pa: report: --dsos 'libc.so' matches no sampled DSO; did you mean 'libc.so.6'\?$" --dsos libc.so,burn
hint "^pa: report: --comms 'bur' matches no sampled comm; did you mean 'burn'\?$" --comms bur
hint "^pa: report: --symbols 'lef' matches no sampled symbol; did you mean 'leaf'\?$" --symbols lef
hint "^pa: report: --symbols 'mai' matches no sampled symbol; did you mean 'main'\?$" -g none -S mai
hint "^pa: report: --comms 'zzzzzzzz' matches no sampled comm$" --comms zzzzzzzz
hint "^pa: report: --dsos 'bur' matches no sampled DSO; did you mean 'burn'\?$
^pa: report: --comms 'brn' matches no sampled comm; did you mean 'burn'\?$" --dsos bur --comms brn
# names that match: no line
hint "" --dsos libc.so.6
hint "" --dsos libc.so.6,burn --comms burn
hint "" --symbols leaf,main
hint "" --no-children -S leaf

# pa diff: the same line, once for all its recordings (its samples' own
# DSOs: perf diff has no call chains, where libc.so.6 is)
pa diff "$F" "$F" --buildid-dir "$WORK/cache" --dsos bur >diff.out 2>diff.err ||
	fail "pa diff --dsos bur failed"
CHECKS=$((CHECKS + 1))
[ "$(cat diff.err)" = "pa: diff: --dsos 'bur' matches no sampled DSO; did you mean 'burn'?" ] ||
	fail "pa diff --dsos bur: stderr: $(cat diff.err)"
if [ $have_perf = 1 ]; then
	perf --buildid-dir "$WORK/cache" diff "$F" "$F" --dsos bur >diff.perf 2>/dev/null
	same "pa diff --dsos bur: stdout is perf's" diff.perf diff.out
fi
pa diff "$F" "$F" --buildid-dir "$WORK/cache" --dsos burn >diff.out 2>diff.err
CHECKS=$((CHECKS + 1))
[ -s diff.err ] && fail "pa diff --dsos burn gave a hint: $(cat diff.err)"

# pa folded and pa flamegraph share the report's filters, and the hints
pa folded -i "$F" --buildid-dir "$WORK/cache" --dsos bur >folded.out 2>folded.err ||
	fail "pa folded --dsos bur failed"
CHECKS=$((CHECKS + 1))
[ "$(cat folded.err)" = "pa: folded: --dsos 'bur' matches no sampled DSO; did you mean 'burn'?" ] ||
	fail "pa folded --dsos bur: stderr: $(cat folded.err)"
pa flamegraph -i "$F" --buildid-dir "$WORK/cache" --comms bur -o fg.svg >/dev/null 2>fg.err ||
	fail "pa flamegraph --comms bur failed"
CHECKS=$((CHECKS + 1))
# (and its own warning that there is nothing to draw)
grep -Fqx "pa: flamegraph: --comms 'bur' matches no sampled comm; did you mean 'burn'?" fg.err ||
	fail "pa flamegraph --comms bur: stderr: $(cat fg.err)"
pa folded -i "$F" --buildid-dir "$WORK/cache" --dsos burn --comms burn >folded.out 2>folded.err
CHECKS=$((CHECKS + 1))
[ -s folded.err ] && fail "pa folded --dsos burn --comms burn gave a hint: $(cat folded.err)"
[ $have_perf = 1 ] || note "no perf here: stdout not compared with perf report's"
finish
