/* hint.c - a filter name that matches nothing in the recording says so,
 * with the closest names the samples had (the report stays perf's: an
 * empty one, on stdout; the hint is on stderr). */
#include "cli.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#define NR_BEST 3

struct near {
	const char *want;
	size_t want_len, max;
	bool found;
	const char *best[NR_BEST];
	size_t score[NR_BEST];
};

/* Closer first: fewer edits; a name that starts with the one wanted (or
 * that it starts with) counts as close however long the rest. */
static int consider(void *ctx, const char *name)
{
	struct near *n = ctx;
	if (!strcmp(name, n->want)) {
		n->found = true;
		return 1;
	}
	size_t len = strlen(name), d;
	if (!strncmp(name, n->want, len < n->want_len ? len : n->want_len))
		d = len > n->want_len ? len - n->want_len : n->want_len - len;
	else
		d = pa_edit_distance(n->want, name, n->max);
	if (d > n->max && strncmp(name, n->want, n->want_len))
		return 0;
	for (unsigned i = 0; i < NR_BEST; i++)
		if (n->best[i] && !strcmp(n->best[i], name))
			return 0;
	unsigned at = NR_BEST;
	while (at > 0 && (!n->best[at - 1] || n->score[at - 1] > d ||
	                  (n->score[at - 1] == d && strcmp(n->best[at - 1], name) > 0)))
		at--;
	if (at == NR_BEST)
		return 0;
	memmove(&n->best[at + 1], &n->best[at], (NR_BEST - 1 - at) * sizeof(n->best[0]));
	memmove(&n->score[at + 1], &n->score[at], (NR_BEST - 1 - at) * sizeof(n->score[0]));
	n->best[at] = name;
	n->score[at] = d;
	return 0;
}

static void hint_list(const char *cmd, struct pa_report *const *r, unsigned nr,
                      enum pa_report_name kind, const char *opt, const char *what, const char *list)
{
	while (list && *list) {
		size_t len = strcspn(list, ",");
		char *want = len ? pa_asprintf("%.*s", (int)len, list) : NULL;
		list += len + (list[len] == ',');
		if (!want)
			continue;
		/* at most a third of the name mistyped, and at least 2 edits */
		struct near n = {.want = want, .want_len = len, .max = len / 3 > 2 ? len / 3 : 2};
		for (unsigned i = 0; i < nr && !n.found; i++)
			if (r[i])
				pa_report_foreach_name(r[i], kind, consider, &n);
		if (!n.found) {
			fprintf(stderr, "pa: %s: %s '%s' matches no %s", cmd, opt, want, what);
			for (unsigned i = 0; i < NR_BEST && n.best[i]; i++)
				fprintf(stderr, "%s'%s'",
				        !i                                 ? "; did you mean "
				        : i + 1 < NR_BEST && n.best[i + 1] ? ", "
				                                           : " or ",
				        n.best[i]);
			fprintf(stderr, "%s\n", n.best[0] ? "?" : "");
		}
		free(want);
	}
}

void pa_cli_filter_hints(const char *cmd, struct pa_report *const *r, unsigned nr,
                         const struct pa_report_opts *ro)
{
	/* after the text that went before it, also through a pager */
	fflush(stdout);
	hint_list(cmd, r, nr, PA_REPORT_NAME_DSO, "--dsos", "sampled DSO", ro->dsos);
	hint_list(cmd, r, nr, PA_REPORT_NAME_COMM, "--comms", "sampled comm", ro->comms);
	hint_list(cmd, r, nr, PA_REPORT_NAME_SYM, "--symbols", "sampled symbol", ro->symbols);
}
