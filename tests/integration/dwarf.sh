#!/usr/bin/env bash
# User call chains unwound from DWARF (perf record --call-graph dwarf): pa
# report and pa folded vs perf 6.1 on testdata/le-dwarf.data (and its
# big-endian twin), and on recordings made now of programs built without
# frame pointers: a few levels of calls, and one that spends its time in
# and under libc (qsort calling back, strlen, system calls with kernel
# frames above the user ones, threads, a signal handler).
#
# Inline frames: perf 6.1 replaces an unwound call-chain entry in inlined
# code by addr2line's inline frames ("foo (inlined)"; DWARF chains run
# through such code in libc, __libc_start_main_impl): compared with and
# without --no-inline (inline.sh compares a C++ program's at length).
#
# The workloads are recorded directly, without fork+exec or dlclose and
# dlopen inside: perf's libunwind unwinder (Debian's perf 6.1) takes a
# DSO's load address from the lowest map the process ever had of it, and
# perf keeps the maps of a process's previous image, so it then fails to
# unwind through libc where pa (and perf's libdw unwinder) does not.
#
# --max-stack: perf applies it to the kernel's part of a chain and to the
# unwound user part each; so does pa (report/stream.c), compared on every
# recording.
. "$(dirname "$0")/lib.sh"
need_perf
need_python

# pa unwinds x86_64 and i386 recordings only (report/report.h, "Limits"),
# and perf 6.1 unwinds a recording as this machine's: elsewhere, neither
# the recordings made here nor the x86_64 fixture can compare.
case $(uname -m) in
x86_64 | i?86) ;;
*) skip "DWARF unwinding is compared on x86 hosts only (this is $(uname -m))" ;;
esac
cd "$WORK" || exit 1
REF=$HERE/stackcollapse.py
command -v cc >/dev/null 2>&1 || skip "no C compiler"
# (-z now: no lazy binding, whose trampoline pa does not unwind through as
# perf does: report/report.h, "Limits")
CFLAGS="-O1 -g -fomit-frame-pointer -fno-inline-functions-called-once -Wl,-z,now"
cat >calls.c <<'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static unsigned long spin(unsigned long x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
__attribute__((noinline)) static unsigned long level3(unsigned long x) { return spin(x, 3000) + 1; }
__attribute__((noinline)) static unsigned long level2(unsigned long x) { return level3(x) ^ spin(x, 700); }
__attribute__((noinline)) static unsigned long level1(unsigned long x) { return level2(x) + level3(x); }
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	unsigned long x = 1;
	for (long i = 0; i < n; i++)
		x = level1(x);
	sink = x;
	return 0;
}
EOF
cat >libc.c <<'EOF'
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
static volatile unsigned long sink;
static double ms;
__attribute__((noinline)) static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}
__attribute__((noinline)) static unsigned long spin(unsigned long x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}
static int cmp(const void *a, const void *b)
{
	unsigned long x = spin(*(const unsigned long *)a, 30);
	unsigned long y = spin(*(const unsigned long *)b, 30);
	return (x > y) - (x < y);
}
__attribute__((noinline)) static unsigned long sorter(unsigned long x)
{
	unsigned long a[128];
	for (int i = 0; i < 128; i++)
		a[i] = x + (unsigned long)i * 7919u;
	qsort(a, 128, sizeof(a[0]), cmp);
	return a[5];
}
__attribute__((noinline)) static unsigned long strings(unsigned long x)
{
	char s[512];
	memset(s, 'a' + (int)(x % 26), sizeof(s) - 1);
	s[sizeof(s) - 1] = 0;
	for (int i = 0; i < 200; i++)
		x += strlen(s + (i & 63));
	return x;
}
__attribute__((noinline)) static unsigned long sys(unsigned long x)
{
	for (int i = 0; i < 40; i++)
		x += (unsigned long)getppid();
	return x;
}
static void on_alarm(int sig)
{
	sink += spin((unsigned long)sig, 20000);
}
static void *worker(void *arg)
{
	long k = (long)arg;
	unsigned long x = (unsigned long)k;
	double end = now_ms() + ms;
	while (now_ms() < end)
		x = k == 0 ? sorter(x) : k == 1 ? strings(x) : sys(x) ^ spin(x, 500);
	sink += x;
	return NULL;
}
int main(int argc, char **argv)
{
	ms = argc > 1 ? atof(argv[1]) : 100;
	signal(SIGALRM, on_alarm);
	struct itimerval it = {{0, 5000}, {0, 5000}};
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_t t[2];
	for (long k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, worker, (void *)k);
	worker((void *)2);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	return 0;
}
EOF
# shellcheck disable=SC2086
cc $CFLAGS -o calls calls.c || skip "cannot build calls.c"
# shellcheck disable=SC2086
cc $CFLAGS -pthread -o libc libc.c || skip "cannot build libc.c"
if ! perf record -q --call-graph dwarf -o probe.data -- ./calls 10 >/dev/null 2>probe.err; then
	skip "perf record --call-graph dwarf does not work here: $(head -n 2 probe.err | tr '\n' ' ')"
fi

# name|perf record options|workload
cases=(
	"calls|--call-graph dwarf -F 1999|./calls 3000"
	"libc|--call-graph dwarf -F 999|./libc 400"
	"user|--call-graph dwarf,4096 -F 1999 -e cpu-clock:u|./libc 200"
	"pipe.pipe|--call-graph dwarf -F 1999|./calls 2000"
)
record_cases "${cases[@]}"
files+=("$TESTDATA/le-dwarf.data")

norm() { grep -v '^# (Tip'; }
# (check_report: lib.sh; siblings of equal percentage may come in another
# order, perf's heap addresses)
FIELDS=comm,pid,tid,time,event,ip,sym,dso
# check_folded WHAT FILE "perf script and pa folded options"
check_folded() {
	local what=$1 f=$2 o=$3
	# shellcheck disable=SC2086
	# (pa folded's default: stackcollapse-perf.pl's period weights)
	perf script -i "$f" -F $FIELDS,period $o 2>/dev/null >script.txt
	python3 "$REF" script.txt >exp 2>ref.err
	# shellcheck disable=SC2086
	if ! pa folded -i "$f" $o >got 2>got.err; then
		fail "$what folded '$o': pa failed: $(head -n 2 got.err)"
		return
	fi
	[ -s exp ] || note "$what folded '$o': nothing to compare"
	same "$what folded '$o'" exp got
}

# check_slow WHAT FILE: pa's fast path (resolver/unwind.c) against
# libdwfl stepping every frame (PA_SLOW_UNWIND): every chain the same
check_slow() {
	local what=$1 f=$2
	if ! pa script -i "$f" >fast.txt 2>fast.err ||
		! PA_SLOW_UNWIND=1 pa script -i "$f" >slow.txt 2>slow.err; then
		fail "$what: pa script failed: $(head -n 2 fast.err slow.err)"
		return
	fi
	same "$what: pa script, the fast path vs libdwfl alone" slow.txt fast.txt
}

optsets=(
	""
	"--no-children"
	"-g caller"
	"--no-children -g caller"
	"-g callee"
	"--sort dso,sym"
	"--no-inline"
	"--no-children --no-inline"
)
# (under a sanitizer or an emulator: a diagonal subset of recording x
# check, case_run in lib.sh)
k=0
for f in "${files[@]}"; do
	base=$(basename "$f")
	CASE=$k k=$((k + 1))
	# what is compared: call graphs (perf unwound the user stacks)
	perf report -i "$f" --stdio --no-children --no-inline >graph.txt 2>/dev/null
	grep -q -e '---' graph.txt || note "$base: perf shows no call graph"
	for o in "${optsets[@]}"; do
		case_run check_report "$base" "$f" "$o"
	done
	case_run check_folded "$base" "$f" ""
	case_run check_folded "$base" "$f" "--no-inline"
	case_run check_report "$base" "$f" "--max-stack 3"
	case_run check_report "$base" "$f" "--no-children --max-stack 2"
	case_run check_folded "$base" "$f" "--max-stack 3"
	# perf script's own text: unwound chains with inline frames
	case_run check_script "$base" "$f"
	case_run check_slow "$base" "$f"
	# (srclines of recordings made now: perf dies of SIGPIPE on the
	# fixture's, whose binary is gone)
	[[ $f == "$TESTDATA"/* ]] ||
		case_run check_script "$base" "$f" --no-inline -F comm,tid,time,ip,sym,symoff,dso,srcline
done

# The signal trampoline entered at its system call: a program that raises
# signals in a loop has many samples inside rt_sigreturn, whose user ip is
# just after the trampoline's syscall instruction (__restore_rt+0x9);
# rewriting that ip to the instruction itself (+0x7, what a sample taken in
# user mode there has, rarely) gives a recording where every such sample
# must unwind through the trampoline into the frame the signal interrupted,
# exactly (perf's libunwind: __pthread_kill_implementation+0x10c, not
# +0x10b as if +0x7 were a return address).
cat >sig.c <<'EOF2'
#include <signal.h>
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
static void on_usr1(int sig) { sink += (unsigned long)sig; }
__attribute__((noinline)) static void loop(double ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 100; i++)
			raise(SIGUSR1);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6 < ms);
}
int main(int argc, char **argv)
{
	signal(SIGUSR1, on_usr1);
	loop(argc > 1 ? atof(argv[1]) : 100);
	return 0;
}
EOF2
# shellcheck disable=SC2086
if cc $CFLAGS -o sig sig.c && perf record -q --call-graph dwarf -F 4999 -o sig.data -- ./sig 600 >/dev/null 2>&1; then
	# (signal frames and the trampoline: libdwfl's, the fast path's around)
	check_slow "sig.data" "$WORK/sig.data"
	# the absolute user ip of a sample whose first user frame is
	# __restore_rt+0x9 (perf script prints the ip's registers after its
	# chain), then every copy of it in the file moved back two bytes
	perf script -i sig.data -F ip,sym,symoff,uregs 2>/dev/null | python3 -c '
import re, struct, sys
chain, ip = [], None
for line in sys.stdin:
    if line.lstrip().startswith("ABI:"):
        user = [l.split() for l in chain if not l.split()[0].startswith("ffffffff")]
        if ip is None and user and len(user[0]) > 1 and user[0][1] == "__restore_rt+0x9":
            ip = int(re.search(r"\bIP:0x([0-9a-f]+)", line).group(1), 16)
        chain = []
    elif line.strip():
        chain.append(line)
if ip is None:
    sys.exit(1)
d = open("sig.data", "rb").read()
a, b = struct.pack("<Q", ip), struct.pack("<Q", ip - 2)
open("sig7.data", "wb").write(d.replace(a, b))
' || note "sig.data: no sample inside rt_sigreturn (or no __restore_rt symbol); the trampoline case is not compared"
	if [ -f sig7.data ]; then
		perf script -i sig7.data 2>/dev/null >sig7.txt
		CHECKS=$((CHECKS + 1))
		grep -A1 '__restore_rt+0x7 ' sig7.txt >sig7.after
		grep -q ' __pthread_kill_implementation+0x' sig7.after ||
			fail "sig7.data: perf did not unwind through __restore_rt+0x7"
		check_script "sig7.data" "$WORK/sig7.data"
		check_slow "sig7.data" "$WORK/sig7.data"
		check_report "sig7.data" "$WORK/sig7.data" "--no-children -g caller"
	fi
else
	note "cannot build or record sig.c; the trampoline case is not compared"
fi

# The big-endian twin (perf inject on s390x, which swapped the stack copies
# as u64 arrays): pa must read it as perf reads the little-endian one, the
# fixture's program found (le-file.data's archive holds it) so that both
# unwind its stacks.
if [ -f "$TESTDATA/be-dwarf.data" ] && [ -f "$TESTDATA/le-dwarf.inj.data" ]; then
	mkdir -p behome
	HOME=$PWD/behome pa archive --unpack "$TESTDATA/le-file.data.tar.zst" >/dev/null 2>&1 ||
		fail "pa archive --unpack le-file.data.tar.zst failed"
	for o in "" "--no-children" "-g caller" "--no-inline"; do
		# shellcheck disable=SC2086
		HOME=$PWD/behome perf report -i "$TESTDATA/le-dwarf.inj.data" --stdio $o 2>/dev/null |
			norm >exp
		# shellcheck disable=SC2086
		HOME=$PWD/behome pa report -i "$TESTDATA/be-dwarf.data" --stdio $o 2>got.err | norm >got
		CHECKS=$((CHECKS + 1))
		grep -q "outer" exp || fail "be-dwarf.data '$o': perf did not unwind le-dwarf.inj.data"
		same_graphs "be-dwarf.data report '$o' (perf: le-dwarf.inj.data)" exp got
	done
	# Stack copies the kernel could not fill (dyn_size 0 and 24, in turn,
	# testdata/README.md): perf unwinds nothing from the first, not even
	# the ip, and what three words give from the second. Either order, and
	# pa script's samples decoded from the file as much as queued copies.
	for f in le-dwarf-dyn.data be-dwarf-dyn.data; do
		HOME=$PWD/behome perf script -i "$TESTDATA/le-dwarf-dyn.inj.data" 2>/dev/null >exp
		HOME=$PWD/behome pa script -i "$TESTDATA/$f" >got 2>got.err
		CHECKS=$((CHECKS + 1))
		grep -q ' middle+' exp || fail "le-dwarf-dyn.inj.data: perf did not unwind"
		same "$f: pa script (perf: le-dwarf-dyn.inj.data)" exp got
		HOME=$PWD/behome perf report -i "$TESTDATA/le-dwarf-dyn.inj.data" --stdio \
			--no-children 2>/dev/null | norm >exp
		HOME=$PWD/behome pa report -i "$TESTDATA/$f" --stdio --no-children 2>got.err |
			norm >got
		same_graphs "$f: report --no-children (perf: le-dwarf-dyn.inj.data)" exp got
	done
fi

# A recording from an arch pa does not unwind (the fixture, its ARCH
# feature renamed): the chain stays as the kernel recorded it (none: no
# caller gets a Children row), and -v says why, once. (perf 6.1 would
# unwind it as this machine's.)
python3 - "$TESTDATA/le-dwarf.data" other.data <<'EOF'
import sys
d = open(sys.argv[1], 'rb').read()
assert d.count(b'x86_64\x00') == 1
open(sys.argv[2], 'wb').write(d.replace(b'x86_64\x00', b'mips64\x00'))
EOF
if pa report -i other.data --stdio -g none -v >got 2>got.err; then
	CHECKS=$((CHECKS + 1))
	grep -q '\] main$' got && fail "other arch: the user stack was unwound"
	CHECKS=$((CHECKS + 1))
	[ "$(grep -c "arch is 'mips64'" got.err)" = 1 ] ||
		fail "other arch: -v does not say why once: $(head -n 3 got.err)"
else
	fail "other arch: pa failed: $(head -n 2 got.err)"
fi
finish
