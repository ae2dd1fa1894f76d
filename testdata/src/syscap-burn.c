/* syscap-burn.c - the workload recorded for the sysprof capture fixtures
 * (testdata/make-syscap.sh): x86-64 Linux only, no libc.
 *
 * Built static with -nostdlib, so that every user-space frame of the
 * recording is in this one small binary (testdata ships it, and the test
 * reads its symbols through --symfs), and none in a libc whose symbols
 * would differ from machine to machine.
 *
 * It forks. The child names itself "burn-child" and spins in
 * child_spin -> outer -> middle -> leaf. The parent copies jit_body() into
 * an anonymous executable mapping (a small JIT), announces it in
 * /tmp/perf-PID.map as "jit_loop", and spins through it:
 * main -> [JIT] jit_loop -> outer -> middle -> leaf. Both read the clock
 * through the clock_gettime system call, which gives the recording kernel
 * frames too. argv[1]: milliseconds to spin (default 60).
 */
#include <stddef.h>
#include <stdint.h>

#define SYS_write 1
#define SYS_open 2
#define SYS_close 3
#define SYS_mmap 9
#define SYS_getpid 39
#define SYS_fork 57
#define SYS_wait4 61
#define SYS_prctl 157
#define SYS_clock_gettime 228
#define SYS_exit_group 231

__attribute__((noinline)) static long sys6(long n, long a, long b, long c, long d, long e,
					   long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf(unsigned long x)
{
	for (int i = 0; i < 1000; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

__attribute__((noinline)) static unsigned long middle(unsigned long x)
{
	return leaf(x) ^ leaf(x + 1);
}

__attribute__((noinline)) static unsigned long outer(unsigned long x)
{
	return middle(x) + middle(x + 2);
}

/* Copied byte for byte into the JIT mapping: it must not refer to anything
 * by a PC-relative address, so it only calls through its argument. */
__attribute__((noinline, used, section("jit_text"))) static unsigned long
jit_body(unsigned long x, unsigned long (*fn)(unsigned long))
{
	for (int i = 0; i < 4; i++)
		x = fn(x + (unsigned long)i);
	return x;
}
extern const char __start_jit_text[], __stop_jit_text[];

__attribute__((noinline)) static long now_ms(void)
{
	long ts[2];
	sys6(SYS_clock_gettime, 1 /* CLOCK_MONOTONIC */, (long)ts, 0, 0, 0, 0);
	return ts[0] * 1000 + ts[1] / 1000000;
}

static size_t put_hex(char *out, unsigned long v)
{
	char tmp[16];
	size_t n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

static size_t put_dec(char *out, unsigned long v)
{
	char tmp[20];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

static size_t put_str(char *out, const char *s)
{
	size_t n = 0;
	while (s[n]) {
		out[n] = s[n];
		n++;
	}
	return n;
}

/* /tmp/perf-PID.map: "START SIZE NAME" in hex, as perf reads it. */
static void announce_jit(unsigned long start, unsigned long size)
{
	char path[64], line[96];
	size_t n = put_str(path, "/tmp/perf-");
	n += put_dec(path + n, (unsigned long)sys6(SYS_getpid, 0, 0, 0, 0, 0, 0));
	n += put_str(path + n, ".map");
	path[n] = 0;
	long fd = sys6(SYS_open, (long)path, 01 | 0100 | 01000 /* O_WRONLY|O_CREAT|O_TRUNC */, 0644,
		       0, 0, 0);
	if (fd < 0)
		return;
	n = put_hex(line, start);
	line[n++] = ' ';
	n += put_hex(line + n, size);
	n += put_str(line + n, " jit_loop\n");
	sys6(SYS_write, fd, (long)line, (long)n, 0, 0, 0);
	sys6(SYS_close, fd, 0, 0, 0, 0, 0);
}

__attribute__((noinline)) static void child_spin(long ms)
{
	long end = now_ms() + ms;
	unsigned long x = 1;
	while (now_ms() < end)
		x = outer(x);
	sink = x;
}

__attribute__((noinline)) int main(int argc, char **argv)
{
	long ms = 0;
	if (argc > 1)
		for (const char *s = argv[1]; *s >= '0' && *s <= '9'; s++)
			ms = ms * 10 + (*s - '0');
	if (ms <= 0)
		ms = 60;

	size_t size = (size_t)(__stop_jit_text - __start_jit_text);
	char *code = (char *)sys6(SYS_mmap, 0, 4096, 7 /* PROT_READ|WRITE|EXEC */,
				  0x22 /* MAP_PRIVATE|MAP_ANONYMOUS */, -1, 0);
	if ((unsigned long)code > -4096ul || size > 4096)
		return 1;
	for (size_t i = 0; i < size; i++)
		code[i] = __start_jit_text[i];
	unsigned long (*jit_loop)(unsigned long, unsigned long (*)(unsigned long)) =
		(unsigned long (*)(unsigned long, unsigned long (*)(unsigned long)))(void *)code;
	announce_jit((unsigned long)code, size);

	long pid = sys6(SYS_fork, 0, 0, 0, 0, 0, 0);
	if (pid == 0) {
		sys6(SYS_prctl, 15 /* PR_SET_NAME */, (long)"burn-child", 0, 0, 0, 0);
		child_spin(ms);
		return 0;
	}
	long end = now_ms() + ms;
	unsigned long x = 1;
	while (now_ms() < end)
		x = jit_loop(x, outer);
	sink = x;
	if (pid > 0)
		sys6(SYS_wait4, pid, 0, 0, 0, 0, 0);
	return 0;
}

/* The process entry: argc and argv from the stack, a zero frame pointer to
 * end the frame chain, and exit_group(main's status). */
__asm__(".text\n"
	".global _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov (%rsp), %rdi\n"
	"	lea 8(%rsp), %rsi\n"
	"	and $-16, %rsp\n"
	"	call main\n"
	"	mov %eax, %edi\n"
	"	mov $231, %eax\n"
	"	syscall\n"
	"	hlt\n");
