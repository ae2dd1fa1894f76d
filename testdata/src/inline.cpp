/* inline.cpp - a C++ workload whose time goes through inlined code
 * (std::sort, std::map, std::regex, a recursive template) for the inline
 * frames of perf's DWARF call chains: tests/integration/inline.sh builds
 * it with -O2 -g, testdata/make-inline.sh makes the golden fixture from it
 * (without std::regex, whose debug info is most of the binary). */
#include <algorithm>
#include <map>
#ifndef PA_NO_REGEX
#include <regex>
#endif
#include <string>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

template <typename T> static T fib(T n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static unsigned long work_sort(unsigned seed) {
	std::vector<unsigned> v(200000);
	for (auto &x : v) { seed = seed * 1103515245u + 12345u; x = seed; }
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

static unsigned long work_map(unsigned seed) {
	std::map<unsigned, unsigned> m;
	for (int i = 0; i < 100000; i++) { seed = seed * 1103515245u + 12345u; m[seed % 50000] += i; }
	unsigned long s = 0;
	for (auto &kv : m) s += kv.second;
	return s;
}

#ifndef PA_NO_REGEX
static unsigned long work_regex(void) {
	std::regex re("([a-z]+)([0-9]+)");
	std::string text;
	for (int i = 0; i < 200; i++) text += "abc" + std::to_string(i) + " ";
	unsigned long n = 0;
	for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) n++;
	return n;
}
#endif

int main(int argc, char **argv) {
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	unsigned long acc = 0;
	for (int r = 0; r < rounds; r++) {
		acc += work_sort(r);
		acc += work_map(r);
#ifndef PA_NO_REGEX
		acc += work_regex();
#endif
		acc += fib<long>(24);
	}
	printf("%lu\n", acc);
	/* without the exit handlers: a sample there tests the unwinder's
	 * emulation of perf's through code without CFI, not inline frames
	 * (report/report.h, "Limits") */
	fflush(stdout);
	_exit(0);
}
