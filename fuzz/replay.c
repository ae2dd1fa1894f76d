/* replay.c - main() for the fuzz harnesses without libFuzzer: runs
 * LLVMFuzzerTestOneInput once per file named on the command line (a
 * directory: every regular file in it, in name order). This is what the
 * fuzz-regress ctests run, with any compiler and in the cross builds.
 * Exit status 0 when every input ran; a finding aborts (or a sanitizer
 * stops the process).
 */
#include "fuzz_common.h"
#include "util/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* In a sanitizer build, an allocation of more than 1 GiB is a finding, as
 * with libFuzzer's -malloc_limit_mb (ASAN_OPTIONS still override). */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "max_allocation_size_mb=1024";
}

static int run_file(const char *path, unsigned *count)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		fprintf(stderr, "replay: '%s': %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, fp)) > 0) {
		len += n;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(fp);
	if (!buf) {
		fprintf(stderr, "replay: '%s': out of memory\n", path);
		return -1;
	}
	if (getenv("PA_REPLAY_VERBOSE"))
		fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	/* libFuzzer hands over a buffer of exactly the input's size. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	(*count)++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, unsigned *count)
{
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "replay: '%s': %s\n", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t nr = 0, cap = 0;
	struct dirent *de;
	int ret = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (PA_GROW(names, cap, nr + 1, 64)) {
			ret = -1;
			break;
		}
		size_t l = strlen(dir) + strlen(de->d_name) + 2;
		if (!(names[nr] = malloc(l))) {
			ret = -1;
			break;
		}
		snprintf(names[nr++], l, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (nr)
		qsort(names, nr, sizeof(*names), cmp_names);
	for (size_t i = 0; i < nr; i++) {
		struct stat st;
		if (!ret && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			ret = run_file(names[i], count);
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: '%s': %s\n", argv[i], strerror(errno));
			return 1;
		}
		if ((S_ISDIR(st.st_mode) ? run_dir(argv[i], &count) : run_file(argv[i], &count)))
			return 1;
	}
	printf("replay: %u inputs, no finding\n", count);
	return 0;
}
