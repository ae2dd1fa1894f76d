/* burn.c - the workload recorded into the testdata fixtures.
 *
 * Spins for the number of milliseconds given as argv[1] (default 40) in a
 * small, fixed call tree (main -> outer -> middle -> leaf), so that samples
 * land in a few named functions with short, predictable call chains. Built
 * by make-fixtures.sh with frame pointers, so -g gives full chains.
 */
#include <stdlib.h>
#include <time.h>

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

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 40;
	double end = now_ms() + ms;
	unsigned long x = 1;
	while (now_ms() < end)
		x = outer(x);
	sink = x;
	return 0;
}
