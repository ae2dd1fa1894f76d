# shellcheck shell=bash
# archive-common.sh - sourced by archive*.sh, roundtrip.sh and debuginfod.sh
# (after lib.sh): a workload whose samples land in the program, in libc (in
# functions only libc's separate debug file names) and in the kernel, and a
# recording of it made with its own perf build-id cache.

# What gets packed or named must not depend on a debuginfod server this
# machine's environment may name (debuginfod.sh sets its own).
unset DEBUGINFOD_URLS

# seed_vdso_under_emu FROM TO: under an emulator pa is on "another machine"
# and has no vdso to take a recorded [vdso] from; the recording host's pa
# would. Seed the cache TO with perf record's copy in FROM, as that host has.
# Whether a recording has a vdso sample at all is chance, so every pack from a
# fresh cache that is then compared with perf needs this.
# The cache finds an object by its .build-id link: copy the links too.
seed_vdso_under_emu() {
	[ -n "$PA_EMU" ] && [ -d "$1/[vdso]" ] || return 0
	mkdir -p "$2" && cp -a "$1/[vdso]" "$2/"
	local d id
	for d in "$1/[vdso]"/*/; do
		id=$(basename "$d")
		[ -L "$1/.build-id/${id:0:2}/${id:2}" ] || continue
		mkdir -p "$2/.build-id/${id:0:2}"
		cp -a "$1/.build-id/${id:0:2}/${id:2}" "$2/.build-id/${id:0:2}/"
	done
}

# make_workload DIR: build DIR/spin (skips when there is no C compiler).
make_workload() {
	local dir=$1
	mkdir -p "$dir"
	cat >"$dir/spin.c" <<'EOF'
/* spin.c - time in the program, in libc (printf's float formatting, qsort)
 * and in the kernel (reads of /dev/zero): each a few tens of percent. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static char buf[1 << 16];

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

__attribute__((noinline)) static void user_work(void)
{
	unsigned long x = sink;
	for (int i = 0; i < 60000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void libc_work(void)
{
	char s[64];
	int v[512];
	for (int i = 0; i < 400; i++)
		snprintf(s, sizeof(s), "%.17g", (double)i / 7.0), sink += (unsigned char)s[3];
	for (int i = 0; i < 512; i++)
		v[i] = (int)((i * 2654435761u) >> 7);
	qsort(v, 512, sizeof(int), cmp);
	sink += (unsigned long)v[17];
}

__attribute__((noinline)) static void kernel_work(int fd)
{
	for (int i = 0; i < 24; i++)
		if (read(fd, buf, sizeof(buf)) > 0)
			sink += (unsigned char)buf[100];
}

int main(int argc, char **argv)
{
	double end = now_ms() + (argc > 1 ? atof(argv[1]) : 300);
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	while (now_ms() < end) {
		user_work();
		libc_work();
		kernel_work(fd);
	}
	return 0;
}
EOF
	command -v cc >/dev/null 2>&1 || skip "no C compiler"
	cc -O1 -g -fno-omit-frame-pointer -o "$dir/spin" "$dir/spin.c" || skip "cannot build spin.c"
}

# record_workload DIR PERF_CACHE OUT [MS]: perf record DIR/spin into OUT with
# its build-id cache in PERF_CACHE (never ~/.debug); skips when perf record
# cannot run here.  The recording must have samples in spin, libc.so.6 and
# the kernel: it is retried a few times, then the test is skipped. A
# recording with samples in a kernel module (an interrupt that came while
# spin ran, on a machine with modules) is retried too: which module, if any,
# is luck, and kernel modules are modules.sh's subject; the last try is kept
# anyway, with a note.
record_workload() {
	local dir=$1 cache=$2 out=$3 ms=${4:-300} try rep mods
	need_perf
	for try in 1 2 3; do
		rm -f "$out"
		if ! perf --buildid-dir "$cache" record -q -F 999 -g -o "$out" -- "$dir/spin" "$ms" \
			>/dev/null 2>"$out.err"; then
			skip "perf record does not work here: $(head -n 2 "$out.err" | tr '\n' ' ')"
		fi
		rep=$(perf --buildid-dir "$cache" report -i "$out" --stdio -q --no-children -g none \
			--sort dso 2>/dev/null)
		# whole DSO names (the last column), not substrings
		if ! awk '$NF == "libc.so.6" {l = 1} $NF == "[kernel.kallsyms]" {k = 1} $NF == "spin" {s = 1}
			END {exit !(l && k && s)}' <<<"$rep"; then
			note "recording $try lacks libc, kernel or program samples: $(tr '\n' ' ' <<<"$rep")"
			continue
		fi
		# kernel modules: "[name]" DSOs but the kernel's own, the vdso's and "[unknown]"
		mods=$(awk '$NF ~ /^\[.*\]$/ && $NF != "[kernel.kallsyms]" && $NF != "[vdso]" &&
			$NF != "[vsyscall]" && $NF != "[unknown]" {print $NF}' <<<"$rep" | tr '\n' ' ')
		[ -z "$mods" ] && return 0
		if [ $try = 3 ]; then
			note "every recording has samples in kernel modules ($mods): kept the last"
			return 0
		fi
		note "recording $try has samples in kernel modules ($mods): recording again"
	done
	skip "could not record samples in spin, libc and the kernel"
}

# pack_complaints PACK_ERR: the lines of pa archive's stderr that are not
# about a kernel module whose file was not found (a module is in a recording
# by luck, see record_workload; pa report names its symbols from kallsyms);
# those are noted.
pack_complaints() {
	local re="^pa: '[^']*' \(build-id [0-9a-f]+\): not packed: module file not found"
	grep -Ev "$re" "$1"
	grep -Eq "$re" "$1" && note "kernel modules not packed: $(grep -E "$re" "$1" | cut -d"'" -f2 | tr '\n' ' ')"
	return 0
}

# perf's answers for the two report views the round trip compares.
REPORT_VIEWS=("--dsos libc.so.6 --sort comm,sym" "--sort comm,dso,sym")
REPORT_FLAGS=(--stdio -q --no-children -g none)

# expect_reports DATA PERF_CACHE OUTDIR: OUTDIR/view0, view1 from perf.
expect_reports() {
	local data=$1 cache=$2 out=$3 i
	mkdir -p "$out"
	for i in "${!REPORT_VIEWS[@]}"; do
		# shellcheck disable=SC2086 # the view is a list of options
		perf --buildid-dir "$cache" report -i "$data" "${REPORT_FLAGS[@]}" ${REPORT_VIEWS[$i]} \
			>"$out/view$i" 2>/dev/null || fail "perf report ${REPORT_VIEWS[$i]} failed"
	done
}

# Runners for same_reports: RUNNER CACHE report ARGS...
pa_cached() {
	local c=$1
	shift
	pa "$@" --buildid-dir "$c"
}
perf_cached() {
	local c=$1
	shift
	perf --buildid-dir "$c" "$@"
}

# same_reports WHAT DATA CACHE EXPDIR [RUNNER [ARGS...]]: the runner (default
# pa_cached: the pa under test) called as RUNNER ARGS... CACHE report ... must
# print exactly what perf printed.
same_reports() {
	local what=$1 data=$2 cache=$3 exp=$4 i
	shift 4
	[ $# -gt 0 ] || set -- pa_cached
	for i in "${!REPORT_VIEWS[@]}"; do
		# shellcheck disable=SC2086
		"$@" "$cache" report -i "$data" "${REPORT_FLAGS[@]}" ${REPORT_VIEWS[$i]} \
			>"$exp/got$i" 2>"$exp/got$i.err"
		same "$what: report ${REPORT_VIEWS[$i]}" "$exp/view$i" "$exp/got$i" ||
			sed 's/^/    stderr: /' "$exp/got$i.err" | head -n 5
	done
}
