/* fuzz_cli_stubs.c - what cli/pa.c provides to the command files, for the
 * harnesses that link cli/cmd-header.c (pa.c holds main()). */
#include "cli/cli.h"

int pa_cli_error(const char *path, const struct pa_err *err)
{
	(void)path;
	(void)err;
	return PA_EXIT_BADINPUT;
}

struct pa_file *pa_cli_open(const char *path, int *status)
{
	struct pa_err err = {0};
	struct pa_file *f = pa_file_open(path ? path : "perf.data", NULL, &err);
	if (!f)
		*status = pa_cli_error(path, &err);
	return f;
}
