/* cmd-report.c - `pa report`. */
#include "cli.h"

int cmd_report(int argc, const char **argv)
{
	const char *input = NULL;
	bool header_only = false, stdio_ = false;
	const struct pa_option opts[] = {
		OPT_STRING('i', "input", &input, "file", "input file name (default perf.data, - for stdin)"),
		OPT_BOOL(0, "header-only", &header_only, "print the header and stop"),
		OPT_BOOL(0, "stdio", &stdio_, "use the stdio interface (the only one)"),
		OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts, "pa report [options]");
	if (n < 0)
		return n;
	if (!header_only) {
		fprintf(stderr, "pa: report: only --header-only is implemented so far\n");
		return PA_EXIT_USAGE;
	}
	const char *hargv[] = {"header", "-i", input ? input : "perf.data", NULL};
	return cmd_header(3, hargv);
}
