#!/usr/bin/env bash
# The round trip, for real: record a program and its libc with perf here
# (x86_64), pack the symbols with `pa archive` (and with perf's own `perf
# archive`), then on s390x (big-endian, 64-bit) and i386 (32-bit) - pa
# cross-built by scripts/cross-build and run under qemu-user - with this
# host's libraries, its /usr/lib/debug, the program, /proc/kallsyms and the
# kernel's build-id notes hidden (a private mount namespace, empty
# directories and files bound over them), `pa archive --unpack` into an empty
# cache and `pa report` must print exactly what perf report printed here,
# kernel symbols included; also for the big-endian twin of the recording
# (scripts/s390x-perf inject -b). Without the archive the foreign pa must not
# name anything, and a recording whose kernel build-id is not the running
# kernel's gets addresses, never the local kallsyms (perf uses them anyway).
#
# Cross pa binaries: scripts/cross-build TARGET (cached after the first
# build), or PA_ROUNDTRIP_S390X / PA_ROUNDTRIP_I386 when set. Skips (77)
# without perf record, without mount namespaces, or with PA_SKIP_CROSS=1.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/archive-common.sh"
need_perf
need_python
[ -z "$PA_EMU" ] || skip "the round trip starts on the recording host: run it natively"
[ "${PA_SKIP_CROSS:-0}" != 1 ] || skip "PA_SKIP_CROSS=1"
unshare -m true 2>/dev/null || skip "no mount namespaces here (unshare -m needs root or user namespaces)"
TOP=$(cd "$HERE/../.." && pwd)

cd "$WORK" || exit 1
make_workload "$WORK/prog"
record_workload "$WORK/prog" "$WORK/perf-cache" "$WORK/rec.data" 400
expect_reports "$WORK/rec.data" "$WORK/perf-cache" "$WORK/exp"
CHECKS=$((CHECKS + 1))
grep -q '\[k\] ' exp/view1 || fail "perf's report has no kernel rows: the kernel is not tested"
kernel_id=$(perf buildid-list -i rec.data | awk '$2 == "[kernel.kallsyms]" {print $1; exit}')
[ -n "$kernel_id" ] || fail "no kernel build-id in the recording"

# ---- on the recording host ----------------------------------------------------------
pa archive -i rec.data -o rec.tar.zst --buildid-dir "$WORK/pack-cache" >pack.out 2>pack.err
st=$?
CHECKS=$((CHECKS + 1))
pack_complaints pack.err >pack.err.other
[ $st -eq 0 ] && [ ! -s pack.err.other ] || fail "pa archive: exit $st: $(cat pack.err)"
perf --buildid-dir "$WORK/perf-cache" archive rec.data >/dev/null 2>perf-archive.err
CHECKS=$((CHECKS + 1))
[ -s rec.data.tar.bz2 ] || fail "perf archive made no tarball: $(cat perf-archive.err)"
# the big-endian twin (perf inject -b by Debian's s390x perf under qemu)
"$TOP/scripts/s390x-perf" inject -b -i rec.data -o rec.be.data >inject.out 2>&1
CHECKS=$((CHECKS + 1))
[ "$(head -c 8 rec.be.data 2>/dev/null)" = 2ELIFREP ] || fail "no big-endian twin: $(tail -n 3 inject.out)"
# a recording of "another kernel": the kernel's build-id changed
python3 - "$kernel_id" <<'EOF' || fail "cannot make the foreign-kernel recording"
import sys
old = bytes.fromhex(sys.argv[1])
data = open('rec.data', 'rb').read()
assert data.count(old) >= 1
open('rec.foreign.data', 'wb').write(data.replace(old, bytes(reversed(old))))
EOF

# perf, given the foreign-kernel file, silently uses the local kallsyms; pa
# must print addresses (and say why with -v)
pa report -i rec.foreign.data "${REPORT_FLAGS[@]}" --sort comm,dso,sym --buildid-dir "$WORK/empty-native" \
	-v >foreign.out 2>foreign.err
CHECKS=$((CHECKS + 1))
grep -Eq '^ +[0-9.]+% +spin +\[kernel\.kallsyms\] +\[k\] 0x[0-9a-f]+$' foreign.out ||
	fail "foreign kernel: no address rows: $(grep '\[k\]' foreign.out | head -n 3)"
# (the whole name, not a regex: "finish_task_switch.isra.0" is a name, and
# a name may be the end of another)
for name in $(awk '$4 == "[k]" {print $5}' exp/view1 | sort -u); do
	CHECKS=$((CHECKS + 1))
	awk -v n="$name" 'NF >= 2 && $(NF - 1) == "[k]" && $NF == n {f = 1} END {exit !f}' foreign.out &&
		fail "foreign kernel: pa named $name from the local kallsyms"
done
CHECKS=$((CHECKS + 1))
grep -q "kernel.kallsyms.*foreign kernel" foreign.err || fail "foreign kernel: -v gave no reason: $(cat foreign.err)"
perf --buildid-dir "$WORK/empty-perf" report -i rec.foreign.data "${REPORT_FLAGS[@]}" --sort sym 2>/dev/null |
	grep -q '\[k\] [a-z_]' && note "perf names kernel symbols of a foreign kernel from the local kallsyms (pa does not)"

# ---- the cross-built pa binaries ------------------------------------------------------
declare -A CROSS SYSROOT
for t in s390x i386; do
	var=PA_ROUNDTRIP_$(tr a-z A-Z <<<"$t")
	if [ -n "${!var:-}" ]; then
		CROSS[$t]=${!var}
	else
		note "building pa for $t (scripts/cross-build $t; cached after the first time)"
		CROSS[$t]=$("$TOP/scripts/cross-build" "$t" 2>"cross-$t.log" | tail -n 1)
	fi
	SYSROOT[$t]=$("$TOP/scripts/sysroot" "$t" 2>>"cross-$t.log")
	if [ ! -x "${CROSS[$t]}" ] || [ ! -d "${SYSROOT[$t]}" ]; then
		fail "no pa for $t: $(tail -n 5 "cross-$t.log")"
		finish
	fi
	command -v "qemu-$t-static" >/dev/null || { fail "no qemu-$t-static"; finish; }
done

# ---- the foreign machine: a mount namespace without this host's files ------------------
: >empty-file
mkdir -p empty-dir
hide=(/usr/lib/debug "$WORK/prog")
[ /lib -ef /usr/lib ] || hide+=(/lib/x86_64-linux-gnu)
hide+=(/usr/lib/x86_64-linux-gnu) # last: mount itself needs it
runs=()
for t in s390x i386; do
	runs+=("$t pa rec.data rec.tar.zst" "$t perf rec.data rec.data.tar.bz2" "$t twin rec.be.data rec.tar.zst")
done
{
	echo 'set -u'
	for f in /proc/kallsyms /sys/kernel/notes; do
		[ -e "$f" ] && echo "mount --bind '$WORK/empty-file' '$f' || exit 3"
	done
	for d in "${hide[@]}"; do
		echo "mount --bind '$WORK/empty-dir' '$d' || exit 3"
	done
	# from here on only builtins and the static qemu: no host library is left
	echo "[ -e /usr/lib/x86_64-linux-gnu/libc.so.6 ] && exit 4"
	echo "[ -e '$WORK/prog/spin' ] && exit 4"
	echo "[ -s /proc/kallsyms ] && { read -r l </proc/kallsyms; [ -n \"\$l\" ] && exit 4; }"
	echo "cd '$WORK' || exit 3"
	for r in "${runs[@]}"; do
		read -r t src data arc <<<"$r"
		q="qemu-$t-static -L ${SYSROOT[$t]} ${CROSS[$t]}"
		c=$WORK/cache-$t-$src
		echo "$q archive --unpack $arc --buildid-dir $c >unpack-$t-$src.out 2>unpack-$t-$src.err"
		echo "echo \$? >unpack-$t-$src.status"
		for i in "${!REPORT_VIEWS[@]}"; do
			echo "$q report -i $data ${REPORT_FLAGS[*]} ${REPORT_VIEWS[$i]} --buildid-dir $c >got-$t-$src-$i 2>got-$t-$src-$i.err"
		done
	done
	# without the archive: nothing named
	for t in s390x i386; do
		echo "qemu-$t-static -L ${SYSROOT[$t]} ${CROSS[$t]} report -i rec.data ${REPORT_FLAGS[*]} --sort comm,dso,sym --buildid-dir $WORK/none-$t >none-$t.out 2>&1"
	done
	echo "exit 0"
} >foreign.sh
start=$SECONDS
unshare -m bash foreign.sh
st=$?
note "the foreign machine took $((SECONDS - start)) s"
CHECKS=$((CHECKS + 1))
case $st in
0) ;;
3) fail "could not hide the recording host's files (mount --bind failed)" ;;
4) fail "the recording host's files are still visible in the namespace" ;;
*) fail "the foreign machine script failed: exit $st" ;;
esac

for r in "${runs[@]}"; do
	read -r t src data arc <<<"$r"
	CHECKS=$((CHECKS + 1))
	[ "$(cat "unpack-$t-$src.status" 2>/dev/null)" = 0 ] ||
		fail "$t: unpack of $arc: $(cat "unpack-$t-$src.err" 2>/dev/null)"
	for i in "${!REPORT_VIEWS[@]}"; do
		same "$t, $src archive, $data: report ${REPORT_VIEWS[$i]}" "exp/view$i" "got-$t-$src-$i" ||
			sed 's/^/    stderr: /' "got-$t-$src-$i.err" | head -n 5
	done
done
for t in s390x i386; do
	CHECKS=$((CHECKS + 1))
	grep -Eq 'user_work|hack_digit|read_zero' "none-$t.out" &&
		fail "$t without the archive named symbols: the host's files leaked into the namespace"
	CHECKS=$((CHECKS + 1))
	grep -Eq '\[\.\] 0x[0-9a-f]+$' "none-$t.out" || fail "$t without the archive: $(head -n 3 "none-$t.out")"
done
finish
