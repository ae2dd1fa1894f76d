/* test_buildid_tiny.c - a tiny program built three times by tests/CMakeLists.txt
 * (VARIANT 1 and 2 with a build-id, 3 with -Wl,--build-id=none) as fixtures for
 * test_buildid: same program, different code, different identities. */
#ifndef VARIANT
#define VARIANT 0
#endif

static volatile int variant = VARIANT;

int main(void)
{
	return variant == VARIANT ? 0 : 1;
}
