#!/usr/bin/env bash
# pa annotate on another machine: the cross-built pa (s390x: big-endian,
# 64-bit; i386: 32-bit; run under qemu-user by scripts/cross-test, $PA_EMU)
# annotates an x86_64 recording made here of annotate.sh's -O2 -g C
# program, from its `pa archive` alone: the archive is unpacked into an
# empty build-id cache, then, in a private mount namespace where the
# program, this host's libraries, /usr/lib/debug and perf's build-id cache
# are hidden (empty directories bound over them, as in roundtrip.sh), pa
# annotate runs. Its capstone listing must have the addresses and numbers
# of perf annotate --stdio (native perf with the host's objdump, run before
# hiding), for the whole file, -n, --show-total-period, each of the ten
# hottest symbols, and -l's per-line summaries; its whole text must be the
# native pa's ($PA_NATIVE_BIN, given the same archive and nothing else);
# the same pa without the archive must annotate nothing.
#
# Natively there is no other machine: skips (77) without $PA_EMU, perf,
# objdump, gcc or mount namespaces.
# shellcheck disable=SC2034 # read by annotate.sh, sourced below
PA_ANNOTATE_HELPERS_ONLY=1
# shellcheck source=annotate.sh
. "$(dirname "$0")/annotate.sh"
[ -n "$PA_EMU" ] || skip "not a cross build (no emulator): scripts/cross-test s390x|i386 runs this under qemu"
need_perf
command -v objdump >/dev/null 2>&1 || skip "no objdump (perf annotate needs it)"
command -v gcc >/dev/null 2>&1 || skip "no gcc to build the workload"
unshare -m true 2>/dev/null || skip "no mount namespaces here (unshare -m needs root or user namespaces)"

mkdir -p prog
(cd prog && write_hot_c && gcc -O2 -g -o hot hot.c) || skip "cannot build the workload"
perf record -q -F 4999 -o hot.data -- ./prog/hot 60 >/dev/null 2>rec.err ||
	skip "perf record does not work here: $(head -n 2 rec.err | tr '\n' ' ')"
[ -s hot.data ] || skip "perf record wrote nothing"
hottest_syms hot.data 10 >hottest
CHECKS=$((CHECKS + 1))
grep -qx lcg hottest || fail "perf report does not rank lcg among the hottest: $(tr '\n' ' ' <hottest)"

# perf's answers, on the recording host
opts=("" "-n" "--show-total-period")
for i in "${!opts[@]}"; do
	# shellcheck disable=SC2086
	perf annotate -i hot.data --stdio ${opts[$i]} >"exp-$i" 2>/dev/null
done
n=0
while IFS= read -r sym; do
	perf annotate -i hot.data --stdio -n "$sym" >"exp-sym-$n" 2>/dev/null
	n=$((n + 1))
done <hottest
perf annotate -i hot.data --stdio -l >exp-l 2>/dev/null

# the archive, packed by the pa under test
pa archive -i hot.data -o hot.tar.zst >pack.out 2>pack.err
st=$?
CHECKS=$((CHECKS + 1))
if [ $st -ne 0 ] || [ ! -s hot.tar.zst ]; then
	fail "pa archive: exit $st: $(head -n 3 pack.err)"
fi

# ---- the other machine: this host's files hidden --------------------------------
: >empty-file
mkdir -p empty-dir cache none
hide=(/usr/lib/debug "$WORK/prog" "$HOME/.debug")
[ /lib -ef /usr/lib ] || hide+=(/lib/x86_64-linux-gnu)
hide+=(/usr/lib/x86_64-linux-gnu) # last: mount itself needs it
{
	echo 'set -u'
	for d in "${hide[@]}"; do
		[ -d "$d" ] && echo "mount --bind '$WORK/empty-dir' '$d' || exit 3"
	done
	# from here on only builtins and the static qemu: no host library is left
	echo "[ -e /usr/lib/x86_64-linux-gnu/libc.so.6 ] && exit 4"
	echo "[ -e '$WORK/prog/hot' ] && exit 4"
	echo "cd '$WORK' || exit 3"
	echo "$PA_EMU $PA_BIN archive --unpack hot.tar.zst --buildid-dir cache >unpack.out 2>unpack.err"
	echo "echo \$? >unpack.status"
	for i in "${!opts[@]}"; do
		echo "$PA_EMU $PA_BIN annotate -i hot.data --stdio --buildid-dir cache ${opts[$i]} >got-$i 2>got-$i.err"
	done
	n=0
	while IFS= read -r sym; do
		# (the name quoted for the shell: C++ names have spaces, none has ')
		echo "$PA_EMU $PA_BIN annotate -i hot.data --stdio --buildid-dir cache -n -s '$sym' >got-sym-$n 2>got-sym-$n.err"
		n=$((n + 1))
	done <hottest
	echo "$PA_EMU $PA_BIN annotate -i hot.data --stdio --buildid-dir cache -l >got-l 2>got-l.err"
	echo "$PA_EMU $PA_BIN annotate -i hot.data --stdio --buildid-dir none >got-none 2>got-none.err"
	echo "exit 0"
} >foreign.sh
start=$SECONDS
unshare -m bash foreign.sh
st=$?
note "the other machine took $((SECONDS - start)) s"
CHECKS=$((CHECKS + 1))
case $st in
0) ;;
3) fail "could not hide the recording host's files (mount --bind failed)" ;;
4) fail "the recording host's files are still visible in the namespace" ;;
*) fail "the other machine's script failed: exit $st" ;;
esac
CHECKS=$((CHECKS + 1))
[ "$(cat unpack.status 2>/dev/null)" = 0 ] || fail "pa archive --unpack: $(head -n 3 unpack.err 2>/dev/null)"

for i in "${!opts[@]}"; do
	check_numbers "whole file '${opts[$i]}': capstone listing's numbers vs perf's" "exp-$i" "got-$i"
done
n=0
while IFS= read -r sym; do
	check_numbers "$sym -n: capstone listing's numbers vs perf's" "exp-sym-$n" "got-sym-$n"
	n=$((n + 1))
done <hottest
summaries exp-l >exp-l.sum
summaries got-l >got-l.sum
CHECKS=$((CHECKS + 1))
[ -s exp-l.sum ] || fail "-l: perf printed no summary"
same "-l: capstone listing's source line summaries vs perf's" exp-l.sum got-l.sum

# the same text as this host's own pa given only the archive: binaries
# out of its reach under an empty --symfs, the program's directory (its
# source) and the debug directories hidden as above (the host's libraries
# stay: the native pa needs them): the cross build's capstone decodes
# x86_64 code as the native one does
if [ -x "${PA_NATIVE_BIN:-}" ]; then
	{
		echo 'set -u'
		for d in /usr/lib/debug "$WORK/prog" "$HOME/.debug"; do
			[ -d "$d" ] && echo "mount --bind '$WORK/empty-dir' '$d' || exit 3"
		done
		echo "cd '$WORK' || exit 3"
		run="'$PA_NATIVE_BIN' annotate -i hot.data --stdio --buildid-dir cache --symfs empty-dir"
		for i in "${!opts[@]}"; do
			echo "$run ${opts[$i]} >native-$i 2>native-$i.err"
		done
		echo "$run -l >native-l 2>native-l.err"
	} >native.sh
	unshare -m bash native.sh || fail "the native pa's run failed: exit $?"
	for i in "${!opts[@]}"; do
		same "whole file '${opts[$i]}': the cross build's text vs the native pa's" "native-$i" "got-$i"
	done
	same "-l: the cross build's text vs the native pa's" native-l got-l
else
	note "no native pa (PA_NATIVE_BIN): the cross build's text not compared with it"
fi

# without the archive: no binary, so no listing
CHECKS=$((CHECKS + 1))
if grep -q 'Source code & Disassembly' got-none; then
	fail "without the archive: a listing: $(grep 'Source code' got-none | head -n 2)"
fi
finish
