/* input.c - inputs that are a recording or folded text (pa flamegraph,
 * pa folded --diff): told apart by their first bytes, what cannot seek
 * copied to a temporary file first. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What pa_file_open() reads: perf.data (file or pipe mode, either byte
 * order, old "PERFFILE") and sysprof captures (magic 0xFDCA975E, either
 * order). Anything else is taken for a folded text file. */
static bool is_recording(const unsigned char *b, size_t n)
{
	static const char *const magics[] = {"PERFILE2", "2ELIFREP", "PERFFILE", "ELIFFREP"};
	for (size_t i = 0; n >= 8 && i < PA_ARRAY_SIZE(magics); i++)
		if (!memcmp(b, magics[i], 8))
			return true;
	return n >= 4 && (!memcmp(b, "\x5e\x97\xca\xfd", 4) || !memcmp(b, "\xfd\xca\x97\x5e", 4));
}

/* An input that cannot seek (standard input, a pipe, bash's <(...)) is
 * copied to a temporary file, so that it can be told apart and then read
 * either way. Returns the copy's path (unlink and free it) or NULL after
 * printing why. */
static char *spool(int in_fd, const char *what)
{
	const char *dir = getenv("TMPDIR");
	char *path = pa_asprintf("%s/pa-input-XXXXXX", dir && *dir ? dir : "/tmp");
	if (!path)
		return NULL;
	int fd = mkstemp(path);
	if (fd < 0) {
		fprintf(stderr, "pa: '%s': %s\n", path, strerror(errno));
		free(path);
		return NULL;
	}
	char buf[1 << 16];
	int err = 0;
	for (;;) {
		ssize_t n = read(in_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n ? errno : 0;
			break;
		}
		err = -pa_write_all(fd, buf, (size_t)n);
		if (err)
			break;
	}
	if (close(fd) && !err)
		err = errno;
	if (err) {
		fprintf(stderr, "pa: copying '%s' to '%s': %s\n", what, path, strerror(err));
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

int pa_cli_input_open(struct pa_cli_input *ci, const char *path)
{
	bool is_stdin = !strcmp(path, "-");
	*ci = (struct pa_cli_input){.open_path = path};
	int status = 0;
	FILE *in = is_stdin ? stdin : fopen(path, "rb");
	if (!in) {
		fprintf(stderr, "pa: '%s': %s\n", path, strerror(errno));
		return PA_EXIT_USAGE;
	}
	if (lseek(fileno(in), 0, SEEK_CUR) < 0) {
		ci->spooled = spool(fileno(in), path);
		if (!is_stdin)
			fclose(in);
		in = ci->spooled ? fopen(ci->spooled, "rb") : NULL;
		if (!in) {
			if (ci->spooled)
				fprintf(stderr, "pa: '%s': %s\n", ci->spooled, strerror(errno));
			status = PA_EXIT_USAGE;
			goto out;
		}
		ci->open_path = ci->spooled;
	}
	unsigned char magic[8];
	size_t got = fread(magic, 1, sizeof(magic), in);
	if (fseeko(in, -(off_t)got, SEEK_CUR)) {
		fprintf(stderr, "pa: '%s': %s\n", path, strerror(errno));
		status = PA_EXIT_USAGE;
		goto out;
	}
	ci->recording = is_recording(magic, got);
	if (!ci->recording) {
		ci->in = in;
		in = NULL;
	}
out:
	/* a recording is opened again by name ("-": stdin, still unread) */
	if (in && in != stdin)
		fclose(in);
	if (status)
		pa_cli_input_close(ci);
	return status;
}

void pa_cli_input_close(struct pa_cli_input *ci)
{
	if (ci->in && ci->in != stdin)
		fclose(ci->in);
	if (ci->spooled)
		unlink(ci->spooled);
	free(ci->spooled);
	*ci = (struct pa_cli_input){0};
}
