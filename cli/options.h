/* options.h - declarative option tables for the pa commands (git's
 * parse-options, reduced): one table gives parsing and --help. */
#ifndef PA_CLI_OPTIONS_H
#define PA_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

enum pa_opt_type { PA_OPT_END, PA_OPT_BOOL, PA_OPT_STRING, PA_OPT_INT, PA_OPT_DOUBLE, PA_OPT_COUNT };

struct pa_option {
	enum pa_opt_type type;
	char short_name;
	const char *long_name;
	void *value;
	const char *argh; /* name of the argument in help, NULL for flags */
	const char *help;
	/* for STRING options: optional argument ("-g" alone, "-g graph") */
	const char *default_arg;
};

#define OPT_BOOL(s, l, v, h) {PA_OPT_BOOL, (s), (l), (v), NULL, (h), NULL}
#define OPT_COUNT(s, l, v, h) {PA_OPT_COUNT, (s), (l), (v), NULL, (h), NULL}
#define OPT_STRING(s, l, v, a, h) {PA_OPT_STRING, (s), (l), (v), (a), (h), NULL}
#define OPT_STRING_OPTARG(s, l, v, a, h, d) {PA_OPT_STRING, (s), (l), (v), (a), (h), (d)}
#define OPT_INT(s, l, v, a, h) {PA_OPT_INT, (s), (l), (v), (a), (h), NULL}
#define OPT_DOUBLE(s, l, v, a, h) {PA_OPT_DOUBLE, (s), (l), (v), (a), (h), NULL}
#define OPT_END() {PA_OPT_END, 0, NULL, NULL, NULL, NULL, NULL}

/* Parse argv (argv[0] is the command). Returns the number of positional
 * arguments left in argv[0..n), or -1 after printing an error, or -2 when
 * --help was asked and printed. */
int pa_parse_options(int argc, const char **argv, const struct pa_option *opts,
		     const char *usage);
void pa_usage(FILE *out, const struct pa_option *opts, const char *usage);

#endif
