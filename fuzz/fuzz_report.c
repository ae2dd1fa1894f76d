/* fuzz_report.c - perf.data through `pa report --stdio` aggregation and
 * printing (report/), with symbol lookups confined to an empty symfs and
 * build-id cache, no debuginfod and a kallsyms file that does not exist:
 * the harness must not depend on this machine's binaries.
 */
#include "fuzz_common.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	unsetenv("DEBUGINFOD_URLS");
	setenv("TZ", "UTC0", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file ff;
	if (fuzz_file_open(&ff, data, size))
		return 0;
	struct pa_err err = {0};
	struct pa_file *f = pa_file_open(ff.path, NULL, &err);
	if (!f)
		goto out;
	/* as pa report makes it: the report resolves sample ips itself */
	struct pa_session_opts so = {.sz = sizeof(so),
	                             .no_callchains = true,
	                             .lazy_sample_loc = size % 3 != 0,
	                             .keys_ahead = size % 2 != 0};
	struct pa_session *s = pa_session_new(f, &so, &err);
	const char *dir = fuzz_empty_dir();
	struct pa_report_opts ro = {.sz = sizeof(ro), .symfs = dir, .buildid_dir = dir,
				    .kallsyms = "/nonexistent/pa-fuzz-kallsyms"};
	/* Vary the keys with the input so that a corpus covers them. */
	switch (size % 4) {
	case 1:
		ro.sort = "pid,tid,cpu,dso,sym";
		ro.percent_limit = 0.5;
		break;
	case 2:
		ro.fields = "overhead,sample,period,comm,dso,sym";
		ro.relative = true;
		ro.comms = "burn,perf";
		break;
	case 3:
		ro.sort = "sym";
		ro.quiet = true;
		ro.cpus = "0-3";
		break;
	default:
		break;
	}
	struct pa_report *r = s ? pa_report_new(s, &ro, &err) : NULL;
	if (r && pa_report_run(r, &err) == 0)
		pa_report_print(r, fuzz_devnull(), &err);
	pa_report_free(r);
	pa_session_free(s);
	pa_file_close(f);
out:
	fuzz_file_close(&ff);
	return 0;
}
