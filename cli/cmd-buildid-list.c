/* cmd-buildid-list.c - `pa buildid-list`: perf buildid-list's lines. */
#include "cli.h"
#include "buildid/buildid.h"
#include "session/session.h"

#include <stdio.h>
#include <string.h>

/* perf buildid-list on an ELF file prints that file's build-id. */
static bool is_elf(const char *path)
{
	char magic[4];
	FILE *fp = strcmp(path, "-") ? fopen(path, "rb") : NULL;
	bool elf = fp && fread(magic, 1, 4, fp) == 4 && !memcmp(magic, "\177ELF", 4);
	if (fp)
		fclose(fp);
	return elf;
}

static int print_elf_build_id(const char *path)
{
	struct pa_buildid id;
	struct pa_err err = {0};
	if (pa_buildid_read_elf(path, &id, &err))
		return pa_cli_error(path, &err);
	char hex[41];
	pa_buildid_to_hex(&id, hex);
	printf("%s\n", hex);
	return 0;
}

/* perf takes all DSOs from the BUILD_ID feature, unless asked for hits or
 * the file has no such feature; pipe files only have the record stream. */
static bool needs_events(struct pa_file *f, bool *with_hits)
{
	const struct pa_header_info *h = pa_file_header(f);
	bool pipe = pa_file_mode(f) == PA_FILE_MODE_PIPE;
	if (!pipe && pa_header_has_feat(h, PA_FEAT_AUXTRACE))
		*with_hits = false;
	if (!pa_header_has_feat(h, PA_FEAT_BUILD_ID))
		*with_hits = true;
	return *with_hits || pipe;
}

static void print_dsos(struct pa_session *s, bool with_hits)
{
	for (unsigned i = 0; i < pa_session_nr_machines(s); i++) {
		struct pa_machine *m = pa_session_machine(s, i);
		for (unsigned k = 0; k < pa_machine_nr_dsos(m); k++) {
			const struct pa_dso *d = pa_machine_dso(m, k);
			char hex[41] = "";
			if (with_hits && !d->hit)
				continue;
			pa_hex(hex, d->build_id, d->build_id_size);
			printf("%-40s %s\n", hex, d->long_name);
		}
	}
}

int cmd_buildid_list(int argc, const char **argv)
{
	const char *input = NULL;
	bool with_hits = false, force = false;
	const struct pa_option opts[] = {
		OPT_STRING('i', "input", &input, "file", "input file name (default perf.data, - for stdin)"),
		OPT_BOOL('H', "with-hits", &with_hits, "only list DSOs that had samples"),
		OPT_BOOL('f', "force", &force, "accepted for perf compatibility"),
		OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts, "pa buildid-list [-i FILE] [--with-hits]");
	if (n < 0)
		return n;
	const char *path = input ? input : "perf.data";
	if (is_elf(path))
		return print_elf_build_id(path);
	int status = 0;
	struct pa_file *f = pa_cli_open(input, &status);
	if (!f)
		return status;
	struct pa_err err = {0};
	struct pa_session_opts so = {.sz = sizeof(so), .no_callchains = true};
	struct pa_progress prog;
	pa_progress_init(&prog, "Processing events", false, true);
	pa_progress_session(&prog, f, &so);
	struct pa_session *s = pa_session_new(f, &so, &err);
	int rp = s && needs_events(f, &with_hits) ? pa_session_process(s, NULL, NULL, &err) : 0;
	pa_progress_end(&prog);
	if (!s || rp < 0)
		status = pa_cli_error(path, &err);
	else
		print_dsos(s, with_hits);
	pa_session_free(s);
	pa_file_close(f);
	return status;
}
