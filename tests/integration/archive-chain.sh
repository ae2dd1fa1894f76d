#!/usr/bin/env bash
# DSOs that only call chains name: the vdso of a kernel-only recording.
#
# A program calls clock_gettime for a clock the vdso cannot read itself,
# so the vdso makes the system call; recorded with -e cpu-clock:k -g, no
# sample's ip is in user space, yet every user call chain passes through
# the vdso, which perf gives a build-id. Checked:
#   - buildid-list --with-hits leaves the vdso out, as perf's does;
#   - pa archive packs it all the same (perf archive would not), and after
#     unpacking pa script names the vdso frames as perf script does on the
#     recording host;
#   - with the vdso in no cache at all, pa leaves its frames unnamed, as
#     perf does (it does not take the running vdso for a recorded build-id
#     its cache lacks).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/archive-common.sh"
need_perf
private_home
command -v cc >/dev/null 2>&1 || skip "no C compiler"
cd "$WORK" || exit 1

cat >vk.c <<'EOF'
#include <time.h>
int main(void)
{
	struct timespec t;
	for (long i = 0; i < 400000; i++)
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return 0;
}
EOF
cc -O1 -o vk vk.c || skip "cannot build vk.c"
PERF=(perf --buildid-dir "$WORK/perf-cache")
"${PERF[@]}" record -q -e cpu-clock:k -g -F 1999 -o vk.data -- ./vk 2>record.err ||
	skip "perf record -e cpu-clock:k does not work here: $(head -n 2 record.err | tr '\n' ' ')"
vdso_id=$(perf buildid-list -i vk.data 2>/dev/null | awk '$2 == "[vdso]" {print $1}')
"${PERF[@]}" script -i vk.data 2>/dev/null | norm_vdso >perf.script
[ -n "$vdso_id" ] && grep -q '__vdso_.*(\[vdso\])$' perf.script ||
	skip "no vdso frame with a build-id in this recording (perf names none)"

perf buildid-list -i vk.data --with-hits >perf.hits 2>/dev/null
pa buildid-list -i vk.data --with-hits >pa.hits 2>&1
same "buildid-list --with-hits (the vdso has no sample)" perf.hits pa.hits
CHECKS=$((CHECKS + 1))
grep -q '\[vdso\]' pa.hits && fail "the vdso is listed as hit: $(cat pa.hits)"

# packed, from a fresh cache (here: the running vdso; under an emulator:
# the recording host's cached copy, seeded)
seed_vdso_under_emu "$WORK/perf-cache" "$WORK/fresh"
pa archive -i vk.data -o vk.tar.zst --buildid-dir "$WORK/fresh" >pack.out 2>pack.err ||
	fail "pa archive: $(head -n 3 pack.err)"
tar -tf vk.tar.zst >members 2>/dev/null
CHECKS=$((CHECKS + 1))
grep -qxF "[vdso]/$vdso_id/vdso" members ||
	fail "the vdso that call chains name is not packed: $(tr '\n' ' ' <members)"

pa archive --unpack vk.tar.zst --buildid-dir "$WORK/unpacked" >unpack.out 2>unpack.err ||
	fail "pa archive --unpack: $(head -n 3 unpack.err)"
pa script -i vk.data --buildid-dir "$WORK/unpacked" >got.script 2>got.err
same "after unpack: pa script names the vdso frames as perf script" perf.script got.script

# no copy in any cache: unnamed, as perf leaves them
mkdir -p empty
perf --buildid-dir "$WORK/empty" script -i vk.data 2>/dev/null | norm_vdso >perf.empty
pa script -i vk.data --buildid-dir "$WORK/empty" >got.empty 2>got.empty.err
same "no cached vdso: its frames unnamed, as perf's" perf.empty got.empty
CHECKS=$((CHECKS + 1))
grep -q '\[unknown\] (\[vdso\])$' got.empty || fail "no unnamed vdso frame without a cached copy"
finish
