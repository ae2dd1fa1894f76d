#!/usr/bin/env bash
# make-inline.sh: the inline-frames fixture and perf 6.1's answers on it.
#
#   testdata/make-inline.sh        (needs perf, g++, python3)
#
# Builds src/inline.cpp (without std::regex, debug sections compressed: a
# small binary) as /tmp/pa-inline/prog, records it with --call-graph dwarf
# (user space only, compressed records) into inline/inline.data, keeps the binary
# under inline/symfs/ at the path the recording names, and writes perf's
# output for each option set of golden/inline/optsets with
# --symfs inline/symfs (so that nothing of this machine's, libc or the
# kernel, enters it) into golden/inline/report-N.txt, and
# `perf script | stackcollapse` into golden/inline/folded*.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dir=/tmp/pa-inline
gold=$here/golden/inline
sc=$here/../tests/integration/stackcollapse.py

rm -rf "$dir"
mkdir -p "$dir" "$here/inline"
g++ -O2 -g -gz -DPA_NO_REGEX -o "$dir/prog" "$here/src/inline.cpp"
perf record -q -z -e cpu-clock:u --call-graph dwarf,4096 -F 999 -o "$here/inline/inline.data" \
	-- "$dir/prog" 20 >/dev/null
rm -rf "$here/inline/symfs"
mkdir -p "$here/inline/symfs$dir"
cp "$dir/prog" "$here/inline/symfs$dir/prog"
rm -rf "$dir"

rm -f "$gold"/report-*.txt "$gold"/folded*.txt
i=0
while IFS= read -r o; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	perf report -i "$here/inline/inline.data" --symfs "$here/inline/symfs" --stdio $o 2>/dev/null |
		grep -v '^# (Tip' >"$gold/report-$i.txt"
done <"$gold/optsets"
for o in "" --no-inline; do
	# shellcheck disable=SC2086
	perf script -i "$here/inline/inline.data" --symfs "$here/inline/symfs" $o 2>/dev/null |
		python3 "$sc" >"$gold/folded${o:+-noinline}.txt"
done
ls -l "$here/inline/inline.data" "$here/inline/symfs$dir/prog" "$gold"
