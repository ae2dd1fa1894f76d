#!/usr/bin/env bash
# make-objsym-golden.sh - perf report's outputs on the recording that
# tests/integration/objsym_gen.py writes over the inline program (data
# objects in call chains), kept so that tests/integration/objsym.sh checks
# pa where perf is absent. Needs perf 6.1 (the oracle); the option sets
# are objsym.sh's, in its order.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LC_ALL=C PAGER=cat PERF_PAGER=cat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$here/inline/symfs/tmp/pa-inline/prog" "$tmp/prog"
python3 "$here/../tests/integration/objsym_gen.py" "$tmp/objsym.data" "$tmp/prog"
out=$here/golden/objsym
mkdir -p "$out"
optsets=("" "--no-children" "--sort sym -g caller" "-g none --sort dso,sym"
	"-g none --sort sym,dso -F overhead,sym,dso" "-n -g folded" "--ignore-callees ^DW"
	"--no-children --ignore-callees ^DW -g caller")
j=0
for o in "${optsets[@]}"; do
	j=$((j + 1))
	# shellcheck disable=SC2086
	HOME=$tmp perf report -i "$tmp/objsym.data" --stdio $o </dev/null 2>/dev/null |
		grep -v '^# (Tip' >"$out/report-$j.txt"
done
