/* pa.c - command table and dispatch (git.c's shape). */
#include "cli.h"

#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

struct cmd {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *help;
};

static const struct cmd commands[] = {
    {"annotate", cmd_annotate, "where in each function the samples fell, like perf annotate"},
    {"archive", cmd_archive, "pack the symbols a perf.data needs, or --unpack them elsewhere"},
    {"buildid-cache", cmd_buildid_cache, "manage the build-id cache (~/.debug), like perf's"},
    {"buildid-list", cmd_buildid_list, "list the build-ids in a perf.data file"},
    {"diff", cmd_diff, "compare recordings like perf diff (from any machines)"},
    {"dump", cmd_dump, "print every record of a perf.data file, one per line"},
    {"export", cmd_export, "write pprof's profile.proto or speedscope's JSON, symbols inside"},
    {"folded", cmd_folded, "one line per unique stack (FlameGraph's folded format)"},
    {"flamegraph", cmd_flamegraph, "write an SVG or HTML flame graph (perf.data or folded stacks)"},
    {"header", cmd_header, "print the perf.data header (like perf report --header-only)"},
    {"report", cmd_report, "summarize samples like perf report"},
    {"script", cmd_script, "print every sample (and chosen records) like perf script"},
    {"view", cmd_view,
     "write one HTML page to explore the recording: trees, flame graph, timeline"},
};

static void print_help(FILE *out)
{
	fprintf(out, "usage: pa [--version] [--help] [--no-pager|-p] COMMAND [ARGS]\n\n"
		     "pa reads perf.data files written on any machine.\n\n"
		     "commands:\n");
	for (size_t i = 0; i < PA_ARRAY_SIZE(commands); i++)
		fprintf(out, "   %-14s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\nSee 'pa help COMMAND' for a command's options.\n");
}

static const struct cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < PA_ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int pa_cli_size_opt(const char *name, const char *s, uint64_t *out)
{
	if (!s)
		return 0;
	if (pa_parse_size(s, out) < 0 || !*out) {
		fprintf(stderr, "pa: option '--%s' expects a size (like 512M or 4G), not '%s'\n",
		        name, s);
		return -1;
	}
	return 0;
}

bool pa_cli_no_threads(void)
{
	return getenv("PA_NO_THREADS") != NULL;
}

int pa_cli_error(const char *path, const struct pa_err *err)
{
	if (err->has_offset)
		fprintf(stderr, "pa: '%s': %s at offset %llu\n", path, err->msg,
			(unsigned long long)err->offset);
	else
		fprintf(stderr, "pa: '%s': %s\n", path, err->msg[0] ? err->msg : pa_strerror(err->code));
	return err->code == -ENOENT || err->code == -EACCES ? PA_EXIT_USAGE : PA_EXIT_BADINPUT;
}

/* The reader's warnings (a damaged feature section: ignored), one line each. */
static void print_warning(void *ctx, const char *path, uint64_t offset, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "pa: '%s': warning: %s at offset %llu: ignored\n", path, msg,
		(unsigned long long)offset);
}

struct pa_file_opts pa_cli_file_opts(void)
{
	return (struct pa_file_opts){.sz = sizeof(struct pa_file_opts),
	                             .warn = print_warning,
	                             .no_threads = pa_cli_no_threads()};
}

int pa_cli_fail(const char *cmd, const char *path, const struct pa_err *err)
{
	if (err->code != -PA_ERR_USAGE && err->code != PA_ERR_USAGE)
		return pa_cli_error(path, err);
	fprintf(stderr, "pa: %s: %s\n", cmd, err->msg);
	return PA_EXIT_USAGE;
}

void pa_cli_stream_heap(void)
{
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	mallopt(M_ARENA_MAX, 1);
}

struct pa_file *pa_cli_open(const char *path, int *status)
{
	struct pa_err err = {0};
	struct pa_file_opts fo = pa_cli_file_opts();
	struct pa_file *f = pa_file_open(path ? path : "perf.data", &fo, &err);
	if (!f)
		*status = pa_cli_error(path ? path : "perf.data", &err);
	return f;
}

/* stdout is checked after every command, like git: a full disk or a
 * closed pipe must not look like success. */
static int finish_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "pa: write error on standard output: %s\n", strerror(errno));
		return status ? status : PA_EXIT_USAGE;
	}
	return status;
}

int main(int argc, const char **argv)
{
	if (argc < 2) {
		print_help(stderr);
		return PA_EXIT_USAGE;
	}
	/* perf's global pager options: --no-pager (for every command, through
	 * PA_PAGER, pager.c), -p/--paginate (any command's text, through the
	 * pager started here; a command then sees no terminal to page) */
	bool paginate = false;
	while (argc > 2 && (!strcmp(argv[1], "--no-pager") || !strcmp(argv[1], "-p") ||
	                    !strcmp(argv[1], "--paginate"))) {
		if (!strcmp(argv[1], "--no-pager"))
			setenv("PA_PAGER", "cat", 1);
		else
			paginate = true;
		argv++;
		argc--;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("pa version %s\n", PA_VERSION);
		return finish_stdout(0);
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		print_help(stdout);
		return finish_stdout(0);
	}
	if (!strcmp(name, "help")) {
		if (argc < 3) {
			print_help(stdout);
			return finish_stdout(0);
		}
		const struct cmd *c = find_cmd(argv[2]);
		if (!c) {
			fprintf(stderr, "pa: '%s' is not a pa command\n", argv[2]);
			return PA_EXIT_USAGE;
		}
		const char *hargv[] = {c->name, "--help", NULL};
		return finish_stdout(c->fn(2, hargv) == -2 ? 0 : 0);
	}
	const struct cmd *c = find_cmd(name);
	if (!c) {
		fprintf(stderr, "pa: '%s' is not a pa command. See 'pa --help'.\n", name);
		return PA_EXIT_USAGE;
	}
	struct pa_pager pager;
	pa_pager_start(&pager, !paginate);
	int status = c->fn(argc - 1, argv + 1);
	status = finish_stdout(status < 0 ? (status == -2 ? 0 : PA_EXIT_USAGE) : status);
	return pa_pager_finish(&pager, status);
}
