// deep.cpp - a C++ workload whose stacks are deep and many: recursion through
// three mutually recursive functions chosen by a pseudo-random walk, 20 to
// 180 levels down, ending in std::regex and std::map work. The flame graph
// test records it (-g, frame pointers) and checks that the HTML graph's
// first view in a browser window shows frames, however deep the deepest
// stack is.
//
//   g++ -O2 -g -fno-omit-frame-pointer deep.cpp -o deep && ./deep SECONDS
#include <chrono>
#include <cstdlib>
#include <map>
#include <regex>
#include <string>

namespace work {

struct ctx {
	std::regex re{"([a-z]+)-([0-9]+)"};
	std::map<std::string, unsigned long> seen;
	std::string text;
	unsigned long sum = 0;
};

static unsigned next(unsigned &s)
{
	s = s * 1103515245u + 12345u;
	return s >> 16;
}

__attribute__((noinline)) static void leaf_regex(ctx &c, unsigned s)
{
	c.text = "item-" + std::to_string(s % 1000) + " key-" + std::to_string(s % 77);
	std::smatch m;
	if (std::regex_search(c.text, m, c.re))
		c.sum += m[2].length();
}

__attribute__((noinline)) static void leaf_map(ctx &c, unsigned s)
{
	c.seen["k" + std::to_string(s % 500)] += s;
	c.sum += c.seen.size();
}

template <int K> __attribute__((noinline)) void step(ctx &c, unsigned s, int left);

template <int K> __attribute__((noinline)) void branch(ctx &c, unsigned s, int left)
{
	if (left <= 0) {
		if (next(s) & 1)
			leaf_regex(c, s);
		else
			leaf_map(c, s);
		return;
	}
	step<K>(c, s, left - 1);
	asm volatile("" ::: "memory"); // keep the call from becoming a tail call
}

template <int K> __attribute__((noinline)) void step(ctx &c, unsigned s, int left)
{
	switch (next(s) % 3) {
	case 0:
		branch<(K + 1) % 3>(c, s, left);
		break;
	case 1:
		branch<(K + 2) % 3>(c, s, left);
		break;
	default:
		branch<K>(c, s, left);
		break;
	}
	asm volatile("" ::: "memory");
}

} // namespace work

int main(int argc, char **argv)
{
	double secs = argc > 1 ? std::atof(argv[1]) : 1.0;
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
	work::ctx c;
	unsigned s = 1;
	while (std::chrono::steady_clock::now() < end) {
		for (int i = 0; i < 50; i++) {
			int depth = 20 + (int)(work::next(s) % 160);
			work::step<0>(c, work::next(s), depth);
		}
	}
	return c.sum == 42 ? 1 : 0;
}
