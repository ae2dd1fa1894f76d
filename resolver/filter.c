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

/* --time start,stop in seconds (either side may be empty). */
static int parse_time(struct pa_filter *f, const char *s, struct pa_err *err)
{
	f->time_end = UINT64_MAX;
	if (!s)
		return 0;
	const char *comma = strchr(s, ',');
	if (!comma)
		return pa_err_set(err, PA_ERR_USAGE, "bad --time '%s' (want start,stop)", s);
	char *end;
	if (comma != s) {
		double v = strtod(s, &end);
		if (end != comma)
			return pa_err_set(err, PA_ERR_USAGE, "bad --time '%s'", s);
		f->time_start = (uint64_t)(v * 1e9 + 0.5);
	}
	if (comma[1]) {
		double v = strtod(comma + 1, &end);
		if (*end)
			return pa_err_set(err, PA_ERR_USAGE, "bad --time '%s'", s);
		f->time_end = (uint64_t)(v * 1e9 + 0.5);
	}
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
		ret = parse_time(f, spec->time, err);
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

bool pa_filter_cpu_time(const struct pa_filter *f, uint32_t cpu, uint64_t time)
{
	if (f->has_cpus && (cpu >= 4096 || !((f->cpus[cpu / 8] >> (cpu % 8)) & 1)))
		return false;
	return time >= f->time_start && time <= f->time_end;
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
