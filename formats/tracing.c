/* tracing.c - the TRACING_DATA feature section: the tracepoint format
 * files perf record copied from tracefs, which say how to print each
 * tracepoint's raw payload (perf's trace-event-read.c reads the same
 * layout). Its integers are in its own byte order (a byte of it says
 * which), not necessarily the file's. Every piece is copied into the
 * file's arena, NUL-terminated, for the printer (libtraceevent). */
#include "formats/internal.h"

#include <errno.h>
#include <string.h>

static const uint8_t tracing_magic[10] = {0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'};

/* n bytes at the cursor, copied with a NUL after them. */
static const char *take_text(struct pa_cur *c, uint64_t n, struct pa_arena *a, size_t *len)
{
	if (n > cur_left(c)) {
		c->bad = true;
		return NULL;
	}
	const uint8_t *p = cur_take(c, (size_t)n);
	char *s = pa_arena_alloc(a, (size_t)n + 1);
	if (!p || !s)
		return NULL;
	memcpy(s, p, (size_t)n);
	s[n] = 0;
	*len = (size_t)n;
	return s;
}

/* A NUL-terminated name at the cursor. */
static const char *take_name(struct pa_cur *c, struct pa_arena *a)
{
	size_t left = cur_left(c), n = strnlen((const char *)c->p, left);
	if (n == left) {
		c->bad = true;
		return NULL;
	}
	size_t len;
	const char *s = take_text(c, n, a, &len);
	cur_take(c, 1);
	return s;
}

/* nr files of a u64 size each (a system's events, or ftrace's own). */
static int take_files(struct pa_cur *c, struct pa_arena *a, const char *sys, uint32_t nr,
                      struct pa_tracing_file *out)
{
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t size = cur_u64(c);
		out[i].system = sys;
		if (!(out[i].text = take_text(c, size, a, &out[i].len)))
			return c->bad ? -1 : -ENOMEM;
	}
	return 0;
}

/* "header_page" or "header_event": its name, u64 size, text. */
static const char *take_header(struct pa_cur *c, const char *name, struct pa_arena *a,
                               size_t *len)
{
	size_t n = strlen(name) + 1;
	const uint8_t *p = cur_take(c, n);
	if (!p || memcmp(p, name, n)) {
		c->bad = true;
		return NULL;
	}
	return take_text(c, cur_u64(c), a, len);
}

static int take_events(struct pa_cur *c, struct pa_arena *a, struct pa_tracing_data *t)
{
	uint32_t nr_sys = cur_u32(c);
	if (c->bad || nr_sys > cur_left(c))
		return -1;
	for (uint32_t s = 0; s < nr_sys; s++) {
		const char *sys = take_name(c, a);
		uint32_t nr = cur_u32(c);
		if (!sys || c->bad || nr > cur_left(c) / 8)
			return -1;
		struct pa_tracing_file *v = pa_arena_alloc(a, (t->nr_events + nr + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		if (t->nr_events)
			memcpy(v, t->events, t->nr_events * sizeof(*v));
		int r = take_files(c, a, sys, nr, v + t->nr_events);
		if (r)
			return r;
		t->events = v;
		t->nr_events += nr;
	}
	return 0;
}

int pa_tracing_parse(struct pa_file *f, const uint8_t *p, size_t n)
{
	struct pa_arena *a = pa_file_arena(f);
	struct pa_tracing_data *t = pa_arena_alloc(a, sizeof(*t));
	struct pa_cur c;
	if (!t)
		return -ENOMEM;
	memset(t, 0, sizeof(*t));
	cur_init(&c, p, n, false);
	const uint8_t *m = cur_take(&c, sizeof(tracing_magic));
	if (!m || memcmp(m, tracing_magic, sizeof(tracing_magic)))
		return -1;
	const char *version = take_name(&c, a);
	t->big_endian = cur_u8(&c) != 0;
	t->long_size = cur_u8(&c);
	if (!version || c.bad || (t->long_size != 4 && t->long_size != 8))
		return -1;
	c.swap = t->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	t->page_size = cur_u32(&c);
	t->header_page = take_header(&c, "header_page", a, &t->header_page_len);
	t->header_event = take_header(&c, "header_event", a, &t->header_event_len);
	if (!t->header_page || !t->header_event)
		return c.bad ? -1 : -ENOMEM;
	uint32_t nr_ftrace = cur_u32(&c);
	if (c.bad || nr_ftrace > cur_left(&c) / 8)
		return -1;
	struct pa_tracing_file *ft = pa_arena_alloc(a, (nr_ftrace + 1) * sizeof(*ft));
	if (!ft)
		return -ENOMEM;
	int r = take_files(&c, a, "ftrace", nr_ftrace, ft);
	if (!r)
		r = take_events(&c, a, t);
	if (r)
		return r;
	t->ftrace = ft;
	t->nr_ftrace = nr_ftrace;
	/* kallsyms and printk formats: u32 sizes; then, from 0.6, the saved
	 * cmdlines (not needed to print) */
	size_t len;
	t->kallsyms = take_text(&c, cur_u32(&c), a, &len);
	t->kallsyms_len = len;
	t->printk = take_text(&c, cur_u32(&c), a, &len);
	t->printk_len = len;
	if (!t->kallsyms || !t->printk)
		return c.bad ? -1 : -ENOMEM;
	pa_file_header_mut(f)->tracing = t;
	return 0;
}
