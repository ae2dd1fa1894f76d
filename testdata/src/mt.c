/* mt.c - a multi-threaded workload for the integration tests (folded,
 * script): two threads in recursive calls and a spin loop, the main one
 * in system calls (getppid), for MS milliseconds (argv[1], default 100). */
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
	return d ? rec(x + 1, d - 1) ^ spin(x, 300) : spin(x, 2000);
}
__attribute__((noinline)) static unsigned long sys_loop(unsigned long x)
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
	while (now_ms() < end)
		x = k == 2 ? sys_loop(x) : rec(x, (int)k + 2);
	sink += x;
	return NULL;
}
int main(int argc, char **argv)
{
	ms = argc > 1 ? atof(argv[1]) : 100;
	pthread_t t[2];
	for (long k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, worker, (void *)k);
	worker((void *)2);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	return 0;
}
