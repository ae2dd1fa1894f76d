#!/usr/bin/env bash
# make-tracepoint.sh - testdata/tracepoint.data: a shell's tracepoints
# (sched switches, wakeups, exec and exit, system call entries, a signal)
# as perf record writes them, without call chains (so that printing them
# needs no symbols), and golden/tracepoint/N.txt: perf script's output for
# the N-th line of golden/tracepoint/optsets. Needs perf and root (the
# tracepoints); integration/tracepoint compares pa script with them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export LC_ALL=C PAGER=cat PERF_PAGER=cat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# (in the temporary directory: the command line the header keeps names
# no path of this machine)
(cd "$tmp" && perf record -q -o tracepoint.data -e sched:sched_switch -e sched:sched_wakeup \
	-e sched:sched_process_exec -e sched:sched_process_exit -e raw_syscalls:sys_enter \
	-e signal:signal_generate -- sh -c 'ls /usr >/dev/null; sleep 0.01; kill -0 $$')
cp "$tmp/tracepoint.data" "$here/tracepoint.data"
out=$here/golden/tracepoint
k=0
while IFS= read -r o; do
	k=$((k + 1))
	# shellcheck disable=SC2086
	HOME=$tmp perf script -i "$here/tracepoint.data" $o </dev/null 2>/dev/null >"$out/$k.txt"
done <"$out/optsets"
