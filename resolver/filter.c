/* filter.c - the sample filters perf report and perf script share
 * (--dsos --comms --symbols --pid --tid --cpu --time --event), parsed once. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Split a comma list into arena strings (empty items dropped). */
static int split_list(struct pa_arena *a, const char *s, char ***out, size_t *nr)
{
	*out = NULL;
	*nr = 0;
	if (!s)
		return 0;
	size_t cap = 1;
	for (const char *p = s; *p; p++)
		cap += *p == ',';
	*out = pa_arena_alloc(a, cap * sizeof(char *));
	if (!*out)
		return -ENOMEM;
	while (*s) {
		size_t n = strcspn(s, ",");
		if (n && !((*out)[(*nr)++] = pa_arena_strndup(a, s, n)))
			return -ENOMEM;
		s += n + (s[n] == ',');
	}
	return 0;
}

static int parse_numbers(struct pa_arena *a, const char *s, long **out, size_t *nr,
                         struct pa_err *err, const char *what)
{
	char **items;
	size_t n;
	if (split_list(a, s, &items, &n))
		return -ENOMEM;
	*out = pa_arena_alloc(a, (n + 1) * sizeof(long));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char *end;
		(*out)[i] = strtol(items[i], &end, 10);
		if (*end)
			return pa_err_set(err, PA_ERR_USAGE, "bad %s '%s'", what, items[i]);
	}
	*nr = n;
	return 0;
}

static int parse_cpus(struct pa_filter *f, const char *s, struct pa_err *err)
{
	if (!s)
		return 0;
	f->has_cpus = true;
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s)
			return pa_err_set(err, PA_ERR_USAGE, "bad cpu list '%s'", s);
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		if (a < 0 || b >= 4096 || b < a)
			return pa_err_set(err, PA_ERR_USAGE, "bad cpu range in '%s'", s);
		for (long c = a; c <= b; c++)
			f->cpus[c / 8] |= (uint8_t)(1u << (c % 8));
		s = end + (*end == ',');
		if (*end && *end != ',')
			return pa_err_set(err, PA_ERR_USAGE, "bad cpu list");
	}
	return 0;
}

/* perf's seconds with up to 9 digits of fraction (parse_nsec_time). */
static int parse_nsec(const char *s, uint64_t *ns)
{
	char *end;
	uint64_t sec = strtoull(s, &end, 10), frac = 0;
	if (*end != '.' && *end != '\0')
		return -1;
	if (*end == '.') {
		size_t n = strlen(end + 1);
		char buf[10];
		if (n > 9)
			return -1;
		memcpy(buf, end + 1, n);
		memset(buf + n, '0', 9 - n);
		buf[9] = '\0';
		frac = strtoull(buf, &end, 10);
		if (*end)
			return -1;
	}
	*ns = sec * 1000000000ull + frac;
	return 0;
}

/* "start,stop" (either side empty: open) into *r. */
static int parse_range(char *s, struct pa_time_range *r)
{
	char *stop = strchr(s, ',');
	if (stop)
		*stop++ = '\0';
	*r = (struct pa_time_range){0};
	if ((*s && parse_nsec(s, &r->start)) || (stop && *stop && parse_nsec(stop, &r->end)))
		return -1;
	return r->end && r->end < r->start ? -1 : 0;
}

/* perf's ranges of absolute times: "a,b", or several apart by spaces
 * ("a,b c,d"), in order and not overlapping; how many, or -1. */
static int parse_ranges(char *s, struct pa_time_range *r, size_t nr_commas)
{
	if (!nr_commas)
		return -1;
	size_t i = 0;
	for (; i + 1 < nr_commas; i++) {
		char *arg = s;
		s = strchr(s, ',') + 1;
		while (*s == ' ' || *s == '\t')
			s++;
		for (; *s && *s != ' ' && *s != '\t'; s++)
			if (*s == ',')
				return -1;
		if (*s)
			*s++ = '\0';
		if (parse_range(arg, &r[i]))
			return -1;
	}
	if (parse_range(s, &r[i]))
		return -1;
	for (size_t k = 0; k < i; k++)
		if (r[k].end >= r[k + 1].start)
			return -1;
	return (int)i + 1;
}

/* "12.5%" into a fraction; -1 unless s is a number and a '%'. */
static int parse_pcnt(char *s, double *v)
{
	char *pc = strchr(s, '%'), *end;
	if (!pc)
		return -1;
	*pc = '\0';
	*v = strtod(s, &end) / 100.0;
	return end == pc ? 0 : -1; /* (what follows the '%' is not read, as perf) */
}

/* perf's range of the fractions [a, b] of the recording's time: the end
 * a nanosecond short unless it is the last sample's. */
static int pcnt_range(double a, double b, uint64_t first, uint64_t last, struct pa_time_range *r)
{
	if (a < 0.0 || a > 1.0 || b < 0.0 || b > 1.0)
		return -1;
	double total = (double)(last - first);
	r->start = first + (uint64_t)(a * total + 0.5);
	r->end = first + (uint64_t)(b * total + 0.5);
	if (r->end > r->start && r->end != last)
		r->end--;
	return 0;
}

/* One percentage range: "p%/n" (the nth slice of p%), "a%-b%", or (alone)
 * "p%" for "p%/1". */
static int parse_pcnt_one(char *s, char kind, uint64_t first, uint64_t last,
                          struct pa_time_range *r)
{
	double a, b;
	if (kind == '-') {
		char *sep = strchr(s, '-');
		if (!sep)
			return -1;
		*sep = '\0';
		if (parse_pcnt(s, &a) || parse_pcnt(sep + 1, &b))
			return -1;
		return pcnt_range(a, b, first, last, r);
	}
	long n = 1;
	if (kind == '/') {
		char *end, *sep = strchr(s, '/');
		if (!sep)
			return -1;
		*sep = '\0';
		n = strtol(sep + 1, &end, 10);
		if (*end)
			return -1;
	}
	if (parse_pcnt(s, &a) || a <= 0.0)
		return -1;
	return pcnt_range(a * (double)(n - 1), a * (double)n, first, last, r);
}

/* perf's percentages: "10%/2,10%/3", "0%-10%,30%-40%" or "50%". */
static int parse_pcnt_ranges(char *s, uint64_t first, uint64_t last, struct pa_time_range *r,
                             size_t size)
{
	char kind = strchr(s, '/') ? '/' : strchr(s, '-') ? '-' : '%';
	if (kind == '%') /* (its one '%' the last character) */
		return strchr(s, '%')[1] || parse_pcnt_one(s, kind, first, last, r) ? -1 : 1;
	size_t n = 0;
	for (char *p = s; *p;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (n >= size || parse_pcnt_one(p, kind, first, last, &r[n]))
			return -1;
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	return (int)n;
}

/* --time, as perf reads it. */
static int parse_time(struct pa_filter *f, const struct pa_filter_spec *spec, struct pa_err *err)
{
	const char *s = spec->time;
	if (!s)
		return 0;
	size_t commas = 0;
	for (const char *c = s; *c; c++)
		commas += *c == ',';
	/* (the parsers cut their copy into pieces) */
	char *copy = pa_arena_strdup(f->arena, s);
	f->times = pa_arena_alloc(f->arena, (commas + 1) * sizeof(*f->times));
	if (!copy || !f->times)
		return -ENOMEM;
	int n;
	if (strchr(s, '%')) {
		if (!spec->first_time && !spec->last_time)
			return pa_err_set(err, PA_ERR_USAGE,
			                  "--time '%s': the recording has no first and last sample "
			                  "times to take percentages of",
			                  s);
		n = parse_pcnt_ranges(copy, spec->first_time, spec->last_time, f->times,
		                      commas + 1);
	} else {
		n = parse_ranges(copy, f->times, commas);
	}
	if (n <= 0)
		return pa_err_set(err, PA_ERR_USAGE, "bad --time '%s'", s);
	f->nr_times = (size_t)n;
	return 0;
}

int pa_filter_parse(struct pa_filter *f, struct pa_arena *a, const struct pa_filter_spec *spec,
                    struct pa_err *err)
{
	*f = (struct pa_filter){.arena = a};
	int ret = split_list(a, spec->dsos, &f->dsos, &f->nr_dsos);
	if (!ret)
		ret = split_list(a, spec->comms, &f->comms, &f->nr_comms);
	if (!ret)
		ret = split_list(a, spec->symbols, &f->syms, &f->nr_syms);
	if (!ret)
		ret = split_list(a, spec->events, &f->events, &f->nr_events);
	if (!ret)
		ret = parse_numbers(a, spec->pids, &f->pids, &f->nr_pids, err, "pid");
	if (!ret)
		ret = parse_numbers(a, spec->tids, &f->tids, &f->nr_tids, err, "tid");
	if (!ret)
		ret = parse_cpus(f, spec->cpus, err);
	if (!ret)
		ret = parse_time(f, spec, err);
	if (ret == -ENOMEM)
		pa_err_set(err, ret, "out of memory");
	return ret;
}

static bool in_list(const long *v, size_t n, long x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static bool name_in(char **list, size_t n, const char *a, const char *b)
{
	for (size_t i = 0; i < n; i++)
		if ((a && !strcmp(list[i], a)) || (b && !strcmp(list[i], b)))
			return true;
	return false;
}

/* perf's test of a sample's time against --time's ranges (an open start
 * is 0, so t >= start holds for it): a sample without a time (0) is kept. */
static bool time_kept(const struct pa_filter *f, uint64_t t)
{
	if (!f->nr_times || !t)
		return true;
	for (size_t i = 0; i < f->nr_times; i++)
		if (t >= f->times[i].start && (t <= f->times[i].end || !f->times[i].end))
			return true;
	return false;
}

bool pa_filter_cpu_time(const struct pa_filter *f, uint32_t cpu, uint64_t time)
{
	if (f->has_cpus && (cpu >= 4096 || !((f->cpus[cpu / 8] >> (cpu % 8)) & 1)))
		return false;
	return time_kept(f, time);
}

bool pa_filter_thread(const struct pa_filter *f, const struct pa_thread *t, const char *comm)
{
	if (f->nr_pids && !in_list(f->pids, f->nr_pids, pa_thread_pid(t)))
		return false;
	if (f->nr_tids && !in_list(f->tids, f->nr_tids, pa_thread_tid(t)))
		return false;
	return !f->nr_comms || name_in(f->comms, f->nr_comms, comm, NULL);
}

bool pa_filter_dso(const struct pa_filter *f, const struct pa_dso *d)
{
	return !f->nr_dsos || (d && name_in(f->dsos, f->nr_dsos, d->short_name, d->long_name));
}

bool pa_filter_sym(const struct pa_filter *f, const char *name)
{
	return !f->nr_syms || (name && name_in(f->syms, f->nr_syms, name, NULL));
}

bool pa_filter_event(const struct pa_filter *f, const char *name)
{
	for (size_t i = 0; i < f->nr_events; i++) {
		const char *want = f->events[i];
		size_t n = strlen(want);
		/* the full name, or the name without its modifiers (cycles:u) */
		if (!strcmp(name, want) || (!strncmp(name, want, n) && name[n] == ':'))
			return true;
	}
	return !f->nr_events;
}

bool pa_filter_sample_counted(struct pa_filter *f, const struct pa_event *ev)
{
	uint32_t cpu = (ev->sample.type & PA_SAMPLE_CPU) ? ev->sample.cpu : UINT32_MAX;
	return pa_filter_evsel(f, ev->evsel, ev->evsel ? ev->evsel->idx : 0) &&
	       pa_filter_cpu_time(f, cpu, ev->sample.time);
}

bool pa_filter_evsel(struct pa_filter *f, const struct pa_evsel *e, unsigned idx)
{
	if (!f->nr_events)
		return true;
	if (idx < f->nr_event_ok && f->event_ok[idx])
		return f->event_ok[idx] == 1;
	char buf[128];
	bool ok = pa_filter_event(f, e ? pa_evsel_name(e, buf, sizeof(buf)) : "");
	if (idx >= f->nr_event_ok) {
		/* (a few events: the arena keeps the outgrown copies) */
		size_t n = 2 * (size_t)idx + 8;
		uint8_t *p = pa_arena_alloc(f->arena, n);
		if (!p)
			return ok; /* asked again next time */
		if (f->nr_event_ok)
			memcpy(p, f->event_ok, f->nr_event_ok);
		f->event_ok = p;
		f->nr_event_ok = n;
	}
	f->event_ok[idx] = ok ? 1 : 2;
	return ok;
}
