/* output.c - an output file that appears whole or not at all: written to a
 * temporary file beside it, renamed over it once complete. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int status_of(const struct pa_err *err)
{
	return err->code == -PA_ERR_USAGE || err->code == PA_ERR_USAGE ? PA_EXIT_USAGE
	                                                               : PA_EXIT_BADINPUT;
}

int pa_cli_write_output(const char *out, pa_cli_writer_fn write, void *ctx)
{
	struct pa_err err = {0};
	if (!strcmp(out, "-")) {
		/* (a write error of stdout is main's to report) */
		if (write(ctx, stdout, &err) && !ferror(stdout)) {
			fprintf(stderr, "pa: %s\n", err.msg);
			return status_of(&err);
		}
		return ferror(stdout) ? PA_EXIT_USAGE : 0;
	}
	char *tmp = pa_asprintf("%s.tmp-XXXXXX", out);
	if (!tmp)
		return PA_EXIT_USAGE;
	int status = 0, fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "pa: '%s': cannot create: %s\n", out, strerror(errno));
		free(tmp);
		return PA_EXIT_USAGE;
	}
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask))
		fprintf(stderr, "pa: '%s': warning: cannot set mode: %s\n", tmp, strerror(errno));
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		fprintf(stderr, "pa: '%s': %s\n", tmp, strerror(errno));
		status = PA_EXIT_USAGE;
	} else if (write(ctx, f, &err)) {
		/* a write error (a full disk) is the environment's, not the input's */
		bool werr = ferror(f);
		fclose(f);
		fprintf(stderr, "pa: '%s': %s\n", out, werr ? "write error" : err.msg);
		status = werr ? PA_EXIT_USAGE : status_of(&err);
	} else if (fclose(f)) {
		fprintf(stderr, "pa: '%s': write error: %s\n", out, strerror(errno));
		status = PA_EXIT_USAGE;
	} else if (rename(tmp, out)) {
		fprintf(stderr, "pa: '%s': cannot rename '%s' to it: %s\n", out, tmp,
		        strerror(errno));
		status = PA_EXIT_USAGE;
	}
	if (status)
		unlink(tmp);
	free(tmp);
	return status;
}
