/* options.c - parse argv against a struct pa_option table. */
#include "options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pa_usage(FILE *out, const struct pa_option *o, const char *usage)
{
	fprintf(out, "\n usage: %s\n\n", usage);
	for (; o->type != PA_OPT_END; o++) {
		char buf[64];
		int n = 0;
		if (o->short_name)
			n += snprintf(buf + n, sizeof(buf) - n, "-%c", o->short_name);
		if (o->short_name && o->long_name)
			n += snprintf(buf + n, sizeof(buf) - n, ", ");
		if (o->long_name)
			n += snprintf(buf + n, sizeof(buf) - n, "--%s", o->long_name);
		if (o->argh)
			snprintf(buf + n, sizeof(buf) - n, o->default_arg ? "[=<%s>]" : " <%s>",
				 o->argh);
		fprintf(out, "    %-26s %s\n", buf, o->help);
	}
	fputc('\n', out);
}

static int set_value(const struct pa_option *o, const char *arg, const char *shown)
{
	char *end;
	switch (o->type) {
	case PA_OPT_BOOL:
		*(bool *)o->value = true;
		return 0;
	case PA_OPT_COUNT:
		(*(int *)o->value)++;
		return 0;
	case PA_OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case PA_OPT_INT:
		errno = 0;
		*(long *)o->value = strtol(arg, &end, 0);
		if (errno || *end || end == arg)
			break;
		return 0;
	case PA_OPT_DOUBLE:
		errno = 0;
		*(double *)o->value = strtod(arg, &end);
		if (errno || (*end && strcmp(end, "%") != 0) || end == arg)
			break;
		return 0;
	default:
		break;
	}
	fprintf(stderr, "pa: option '%s' expects a number, not '%s'\n", shown, arg);
	return -1;
}

/* As perf's parser: a prefix of one long name only stands for it (--comm
 * for --comms), --no- and a prefix of a bool's name for its negation
 * (--no-chil). NULL when none; *ambiguous (another one it could be) when
 * more than one. */
static const struct pa_option *find_prefix(const struct pa_option *o, const char *name, size_t n,
                                           bool *negated, const struct pa_option **ambiguous)
{
	const struct pa_option *hit = NULL;
	for (const struct pa_option *p = o; p->type != PA_OPT_END; p++) {
		if (!p->long_name)
			continue;
		bool neg = p->type == PA_OPT_BOOL && n > 3 && !strncmp(name, "no-", 3) &&
		           strncmp(p->long_name, "no-", 3) &&
		           !strncmp(p->long_name, name + 3, n - 3);
		if (!neg && strncmp(p->long_name, name, n))
			continue;
		if (hit && hit != p) {
			*ambiguous = p;
			return hit;
		}
		hit = p;
		*negated = neg;
	}
	return hit;
}

static const struct pa_option *find_long(const struct pa_option *o, const char *name, size_t n,
                                         bool *negated, const struct pa_option **ambiguous)
{
	*negated = false;
	*ambiguous = NULL;
	for (const struct pa_option *p = o; p->type != PA_OPT_END; p++)
		if (p->long_name && strlen(p->long_name) == n && !strncmp(p->long_name, name, n))
			return p;
	/* a bool's negation: --no-X of an option X, and as perf's parser,
	 * --X of an option named no-X */
	for (const struct pa_option *p = o; p->type != PA_OPT_END; p++) {
		if (!p->long_name || p->type != PA_OPT_BOOL)
			continue;
		size_t l = strlen(p->long_name);
		if ((n > 3 && !strncmp(name, "no-", 3) && l == n - 3 &&
		     !strncmp(p->long_name, name + 3, n - 3)) ||
		    (l == n + 3 && !strncmp(p->long_name, "no-", 3) &&
		     !strncmp(p->long_name + 3, name, n))) {
			*negated = true;
			return p;
		}
	}
	return n ? find_prefix(o, name, n, negated, ambiguous) : NULL;
}

int pa_parse_options(int argc, const char **argv, const struct pa_option *opts, const char *usage)
{
	int npos = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			while (++i < argc)
				argv[npos++] = argv[i];
			break;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			pa_usage(stdout, opts, usage);
			return -2;
		}
		if (a[0] != '-' || a[1] == 0) {
			argv[npos++] = a;
			continue;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t n = eq ? (size_t)(eq - name) : strlen(name);
			bool neg;
			const struct pa_option *other;
			const struct pa_option *o = find_long(opts, name, n, &neg, &other);
			if (other) {
				fprintf(stderr, "pa: ambiguous option '--%.*s' (--%s or --%s)\n",
				        (int)n, name, o->long_name, other->long_name);
				return -1;
			}
			if (!o) {
				fprintf(stderr, "pa: unknown option '%s'\n", a);
				pa_usage(stderr, opts, usage);
				return -1;
			}
			if (neg) {
				*(bool *)o->value = false;
				continue;
			}
			if (!o->argh) {
				if (eq) {
					fprintf(stderr, "pa: option '--%s' takes no value\n", o->long_name);
					return -1;
				}
				set_value(o, NULL, a);
				continue;
			}
			const char *arg = eq ? eq + 1 : NULL;
			if (!arg && o->default_arg)
				arg = (i + 1 < argc && argv[i + 1][0] != '-') ? argv[++i] : o->default_arg;
			if (!arg) {
				if (i + 1 >= argc) {
					fprintf(stderr, "pa: option '--%s' requires a value\n", o->long_name);
					return -1;
				}
				arg = argv[++i];
			}
			if (set_value(o, arg, a))
				return -1;
			continue;
		}
		/* a cluster of short options: -qv, -i file, -ifile */
		for (const char *c = a + 1; *c; c++) {
			const struct pa_option *o = opts;
			while (o->type != PA_OPT_END && o->short_name != *c)
				o++;
			if (o->type == PA_OPT_END) {
				fprintf(stderr, "pa: unknown switch '%c'\n", *c);
				pa_usage(stderr, opts, usage);
				return -1;
			}
			if (!o->argh) {
				set_value(o, NULL, a);
				continue;
			}
			const char *arg = c[1] ? c + 1 : NULL;
			if (!arg && o->default_arg)
				arg = (i + 1 < argc && argv[i + 1][0] != '-') ? argv[++i] : o->default_arg;
			if (!arg) {
				if (i + 1 >= argc) {
					fprintf(stderr, "pa: switch '%c' requires a value\n", *c);
					return -1;
				}
				arg = argv[++i];
			}
			if (set_value(o, arg, a))
				return -1;
			break;
		}
	}
	return npos;
}
