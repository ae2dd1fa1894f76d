#!/usr/bin/env bash
# pa report's call graphs vs perf report --stdio, on recordings made now:
# perf's defaults (--children, Children and Self columns, caller graphs),
# --no-children with every -g print type (graph, flat, folded, fractal),
# caller/callee order, thresholds, print limits, count/period values,
# --percent-limit (which also sets the graph threshold), --max-stack,
# --ignore-callees, --parent and the parent sort key, sort keys and
# filters. The whole output must be byte-identical, except perf's random
# "Tip" line and the " (inlined)" perf 6.1 sometimes appends to the "[...]"
# line of fractal graphs (it reads an uninitialized bit there).
. "$(dirname "$0")/lib.sh"
need_perf

cd "$WORK" || exit 1
command -v cc >/dev/null 2>&1 || skip "no C compiler"
cc -O1 -g -fno-omit-frame-pointer -o burn "$TESTDATA/src/burn.c" ||
	skip "cannot build burn.c"
# Threads, recursion (children counted once per sample), system calls.
cat >mt.c <<'EOF'
#include <pthread.h>
#include <stdlib.h>
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

__attribute__((noinline)) static unsigned long rec(unsigned long x, int d)
{
	if (d == 0)
		return spin(x, 2000);
	return rec(x + 1, d - 1) ^ spin(x, 300);
}

__attribute__((noinline)) static unsigned long alpha(unsigned long x) { return rec(x, 3); }
__attribute__((noinline)) static unsigned long beta(unsigned long x) { return rec(x, 6) + spin(x, 3000); }
__attribute__((noinline)) static unsigned long gamma_(unsigned long x) { return alpha(x) ^ beta(x); }

__attribute__((noinline)) static unsigned long sys(unsigned long x)
{
	for (int i = 0; i < 50; i++)
		x += (unsigned long)getppid();
	return x;
}

static void *worker(void *arg)
{
	long k = (long)arg;
	unsigned long x = (unsigned long)k;
	double end = now_ms() + ms;
	while (now_ms() < end) {
		switch (k) {
		case 0: x = alpha(x); break;
		case 1: x = beta(x); break;
		case 2: x = gamma_(x); break;
		default: x = sys(x) ^ alpha(x); break;
		}
	}
	sink += x;
	return NULL;
}

int main(int argc, char **argv)
{
	ms = argc > 1 ? atof(argv[1]) : 100;
	pthread_t t[3];
	for (long k = 0; k < 3; k++)
		pthread_create(&t[k], NULL, worker, (void *)k);
	worker((void *)3);
	for (int k = 0; k < 3; k++)
		pthread_join(t[k], NULL);
	return 0;
}
EOF
cc -O1 -g -fno-omit-frame-pointer -pthread -o mt mt.c || skip "cannot build mt.c"
# Two programs called "twin" (the same short DSO name) whose first
# functions start at the same address with different sizes: perf keeps
# them apart (sym compares start, then end), as in a system-wide recording
# of two builds of one program.
mkdir -p ta tb
for v in a b; do
	n=1000 tail=
	[ $v = b ] && n=7 tail=' ^ (x >> 7) ^ (x >> 13) ^ (x >> 17)'
	cat >"t$v/twin.c" <<EOF
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) static unsigned long f_$v(unsigned long x)
{
	for (int i = 0; i < $n; i++)
		x = x * 6364136223846793005ul + 1;
	return x$tail;
}
__attribute__((noinline)) static unsigned long g_$v(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ul + 5;
	return x;
}
int main(int argc, char **argv)
{
	unsigned long x = 1;
	clock_t end = clock() + (clock_t)(atof(argv[1]) * CLOCKS_PER_SEC / 1000);
	while (clock() < end)
		x = f_$v(x) + g_$v(x);
	return (int)(x & 1);
}
EOF
	cc -O1 -g -fno-omit-frame-pointer -o "t$v/twin" "t$v/twin.c" || skip "cannot build twin.c"
done
printf '#!/bin/sh\n./ta/twin "$1" & ./tb/twin "$1"\nwait\n' >twins.sh
chmod +x twins.sh
fa=$(nm ta/twin | awk '$3 == "f_a" {print $1}')
fb=$(nm tb/twin | awk '$3 == "f_b" {print $1}')
[ -n "$fa" ] && [ "$fa" = "$fb" ] || note "twins: f_a at $fa, f_b at $fb: not the same start"
if ! perf record -q -g -o probe.data -- ./burn 5 >/dev/null 2>probe.err; then
	skip "perf record -g does not work here: $(head -n 2 probe.err | tr '\n' ' ')"
fi

# The tolerance for perf's heap-address order of equal siblings
# (same_graphs): a swap of two equal siblings, the last one among them,
# must pass; a changed percentage or name must not.
if command -v python3 >/dev/null 2>&1; then
	gn="$HERE/graphnorm.py"
	mk() {
		printf '    40.00%%  a  a  [.] f\n            |\n            ---f\n'
		printf '               |          \n               |--%s--%s\n' "$1" "$2"
		printf '               |          h\n               |          \n'
		printf '                --%s--%s\n                          h\n\n' "$3" "$4"
	}
	mk 20.00% g 20.00% k >g.a
	mk 20.00% k 20.00% g >g.b
	mk 20.00% k 20.01% g >g.c
	mk 20.00% k 20.00% x >g.d
	# the same with counts (-g ...,count) instead of percentages
	mk 57 g 57 k >g.e
	mk 57 k 57 g >g.f
	mk 57 k 58 g >g.g
	CHECKS=$((CHECKS + 1))
	cmp -s <(python3 "$gn" <g.a) <(python3 "$gn" <g.b) || fail "graphnorm: equal siblings swapped"
	CHECKS=$((CHECKS + 1))
	cmp -s <(python3 "$gn" <g.e) <(python3 "$gn" <g.f) || fail "graphnorm: siblings of equal count swapped"
	for x in g.c g.d; do
		CHECKS=$((CHECKS + 1))
		! cmp -s <(python3 "$gn" <g.a) <(python3 "$gn" <$x) || fail "graphnorm: $x passed"
	done
	CHECKS=$((CHECKS + 1))
	! cmp -s <(python3 "$gn" <g.e) <(python3 "$gn" <g.g) || fail "graphnorm: g.g passed"
fi

cases=(
	"burn|-g -F 1999|./burn 300"
	"pipe.pipe|-g -F 1999|./burn 200"
	"mt|-g -F 2999|./mt 400"
	"two|-g -F 1999 -e cpu-clock,task-clock|./mt 200"
	"group|-g -F 999 -e {cpu-clock,task-clock}|./burn 200"
	"sysw|-g -F 499 -a|./mt 600"
	"twins|-g -F 1999|./twins.sh 300"
)
record_cases "${cases[@]}"

optsets=(
	""
	"--no-children"
	"--no-children -g graph"
	"--no-children -g flat"
	"--no-children -g folded"
	"--no-children -g fractal"
	"-g flat"
	"-g folded"
	"-g fractal"
	"-g caller"
	"-g callee"
	"--no-children -g caller"
	"--no-children -g callee,0.1"
	"-g graph,0.1"
	"-g graph,2"
	"-g fractal,1"
	"-g fractal,0.5,callee"
	"--no-children -g flat,0"
	"--no-children -g folded,0,caller"
	"-g graph,0.5,2"
	"-g graph,0.5,caller,function,count"
	"--no-children -g graph,0.5,callee,function,period"
	"-g fractal,0.5,caller,function,count"
	"--percent-limit 2"
	"--percent-limit 2 -g graph,0.1"
	"-g graph,0.1 --percent-limit 3"
	"--max-stack 3"
	"--no-children --max-stack 2"
	"--ignore-callees rec"
	"--no-children --ignore-callees ^(outer|beta)$"
	"--parent ^(alpha|beta|middle)$"
	"--no-children --sort parent"
	"--sort dso,sym"
	"--sort sym"
	"--no-children --sort sym"
	"--sort pid"
	"--sort comm"
	"--sort comm,dso"
	"-g callee --sort dso"
	"--comms burn,mt"
	"--comms mt"
	"--comms mt -g callee"
	"--dsos libc.so.6"
	"--percentage relative --dsos libc.so.6"
	"--dsos burn,mt,twin"
	"--percentage relative --no-children --comms burn,mt"
	"-g none"
	"--no-children -g folded,0 --percent-limit 1"
	"-n"
	"-n --show-total-period --no-children"
	"--show-total-period -g caller"
	"-n --no-children -g none --sort dso,sym"
)
# (-g address is compared in inline.sh: on this test's system-wide
# recording perf 6.1 dies of SIGPIPE when an addr2line it started for a
# DSO missing here exits)
# perf prints "[...] (inlined)" when a bit it never set happens to be 1
norm() { grep -v '^# (Tip' | sed 's/--\[\.\.\.\] (inlined)$/--[...]/'; }
# (under a sanitizer or an emulator: a diagonal subset, in_subset in lib.sh;
# every option set still runs on at least two recordings, every recording
# with a third of the option sets)
k=0
for f in "${files[@]}"; do
	base=$(basename "$f")
	j=0
	for o in "${optsets[@]}"; do
		i=$((j + k)) j=$((j + 1))
		# system-wide: only the rows of our own processes and the idle
		# task (the other processes are whatever else runs here)
		extra=()
		if [[ $base == sysw.data ]]; then
			[[ $o != *--comms* ]] && extra=(--comms "mt,swapper")
		fi
		# perf's sym comparator without the dso key is not an order
		# when DSOs mix resolved and unresolved addresses, as other
		# processes' and the shell's may (see "Limits" in report.h)
		if [[ $base == sysw.data || $base == twins.data ]] && [[ $o == *"--sort sym"* ]]; then
			continue
		fi
		in_subset $i || continue
		# shellcheck disable=SC2086
		perf report -i "$f" --stdio $o "${extra[@]}" 2>/dev/null | norm >exp
		pst=${PIPESTATUS[0]}
		# shellcheck disable=SC2086
		pa report -i "$f" --stdio $o "${extra[@]}" >got 2>got.err
		gst=$?
		if [ "$pst" -ne 0 ]; then
			CHECKS=$((CHECKS + 1))
			[ $gst -ne 0 ] || fail "$base $o: perf refused (status $pst), pa did not"
			continue
		fi
		[ $gst -eq 0 ] || { fail "$base '$o': pa exit $gst: $(head -n 2 got.err)"; continue; }
		# (a filter may leave no row: libc need not have a sample of its own)
		[[ $o == *--dsos* ]] && ! grep -q '^ *[0-9][0-9.]*%' exp && note "$base '$o': perf printed no row"
		same_graphs "$base report '$o'" exp got
	done
	k=$((k + 1))
done
finish
