/* speedscope.c - speedscope's JSON file format: one "sampled" profile per
 * thread (or process) and event, every stack root first, frames shared.
 *
 * Facts of the format (speedscope's file-format-spec.ts and the schema it
 * ships): a file has "$schema", "shared": {"frames": [{name, file?, line?,
 * col?}]}, "profiles", and optionally "name", "exporter" and
 * "activeProfileIndex"; a sampled profile has "type": "sampled", "name",
 * "unit" (none, nanoseconds, ...), "startValue", "endValue", "samples"
 * (arrays of frame indices, root first) and "weights" of the same length.
 * speedscope takes endValue - startValue as the profile's total weight
 * (at least the sum of the weights) and skips samples of weight 0.
 *
 * What pa writes:
 * - Profiles ordered by event, then pid, then tid: "comm (tid)", or
 *   "comm (pid)" with per_process, the event's name after it when more
 *   than one event has samples. The comm is the thread's last one (for a
 *   process: its main thread's, else its last thread's), so that a thread
 *   that ran exec is named after the program it became.
 * - A sample's weight is its period: nanoseconds for cpu-clock and
 *   task-clock (unit "nanoseconds"; not for a sysprof capture, whose
 *   period is 1 per sample), a count for other events ("none").
 *   startValue 0, endValue the profile's total. Every sample is an entry
 *   of its own, in time order (speedscope's "Time Order" view), so that
 *   a profile's samples are perf's sample count for its thread. (Merging
 *   consecutive equal stacks, which speedscope allows, would make files
 *   smaller but lose that count.)
 * - A frame is a function: its name as pa report shows symbols (demangled
 *   unless the trace was asked not to, " (inlined)" after an inline
 *   frame's; without a symbol "[unknown]", with the DSO's short name in
 *   parentheses after it when a map covered the address, as perf script
 *   says it). When perf's srcline of its locations is "file:line"
 *   (addr2line's answer, the file's base name as perf shows it), the
 *   frame has that file and the smallest line seen (the line nearest the
 *   function's start that samples hit: speedscope's frames stand for
 *   functions, one per name and file, not for lines). Frames without a
 *   source line have no file and line keys.
 * - activeProfileIndex: the profile of the largest total weight (the
 *   first of equal ones).
 * The output depends on the trace only: frames are numbered in the order
 * the time-ordered walk meets them.
 */
#include "export.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define UNKNOWN_NAME "[unknown]"
#define INLINED_MARK " (inlined)"

struct frame {
	const char *name; /* in the arena */
	const char *file; /* in the arena; NULL: no source line */
	uint32_t line;    /* the smallest seen; 0 with file NULL */
	uint64_t hash;    /* of name and file */
};

struct entry {
	uint32_t stack;
	uint64_t weight;
};

struct profile {
	unsigned evsel;
	int32_t pid, tid;
	const char *comm;      /* the last sample's */
	const char *main_comm; /* the last one of a sample with tid == pid */
	uint64_t total;
	struct entry *e;
	size_t n, cap;
};

struct ss {
	struct pa_trace *t;
	struct pa_resolver *r;
	const struct pa_loc *locs;
	size_t nr_locs;
	bool per_process;
	struct pa_arena arena;
	struct pa_buf name; /* scratch for frame names */
	/* frames, and an index table on (name, file) */
	struct frame *frames;
	size_t nr_frames, frames_cap;
	uint32_t *frame_tab;
	size_t frame_tab_cap;
	uint32_t *loc_frame;     /* location id -> frame index + 1, 0: not yet */
	struct pa_seqset stacks; /* frame indices, root first */
	uint32_t *tmp;           /* one stack being built */
	size_t tmp_cap;
	/* profiles, and (evsel, pid or tid) -> index + 1 */
	struct profile *profiles;
	size_t nr_profiles, profiles_cap;
	struct pa_u64map by_key;
};

static uint64_t frame_hash_of(void *ctx, uint32_t i)
{
	return ((struct ss *)ctx)->frames[i].hash;
}

/* perf's srcline "file:line" (addr2line's, with " (discriminator N)"
 * possibly after it): the file's length and the line, or false for its
 * fallbacks ("??:0", "SYM+OFF", "DSO[ADDR]", "file:?"). */
static bool parse_srcline(const char *s, size_t *file_len, uint32_t *line)
{
	if (!s)
		return false;
	size_t n = strlen(s);
	const char *disc = strstr(s, " (discriminator ");
	if (disc)
		n = (size_t)(disc - s);
	size_t colon = n;
	while (colon > 0 && s[colon - 1] != ':')
		colon--;
	if (colon < 2 || colon == n)
		return false;
	uint64_t v = 0;
	for (size_t i = colon; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > UINT32_MAX / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (!v || v > UINT32_MAX || (colon - 1 == 2 && !memcmp(s, "??", 2)))
		return false;
	*file_len = colon - 1;
	*line = (uint32_t)v;
	return true;
}

static uint64_t name_file_hash(const char *name, const char *file, size_t file_len)
{
	uint64_t h = pa_hash_str(name);
	return file ? pa_hash64(h ^ pa_hash_bytes(file, file_len)) : h;
}

/* The frame of location id (made when new). 0 or -ENOMEM. */
static int frame_of(struct ss *x, uint32_t id, uint32_t *out)
{
	if (x->loc_frame[id]) {
		*out = x->loc_frame[id] - 1;
		return 0;
	}
	const struct pa_loc *l = &x->locs[id];
	x->name.len = 0;
	int err = 0;
	if (l->sym)
		err = pa_buf_addf(&x->name, "%s%s", l->sym->name,
		                  l->sym->inlined ? INLINED_MARK : "");
	else if (l->dso)
		err = pa_buf_addf(&x->name, UNKNOWN_NAME " (%s)", l->dso->short_name);
	else
		err = pa_buf_addf(&x->name, "%s", UNKNOWN_NAME);
	if (err)
		return -ENOMEM;
	const char *name = x->name.data;
	/* a sample's own location (ip 0) has perf's sample srcline, a call
	 * chain entry the one -g address shows; both "file:line" when
	 * addr2line answers */
	const char *src = NULL;
	if (l->sym)
		src = l->ip ? pa_resolver_chain_srcline(x->r, l) : pa_resolver_srcline(x->r, l);
	size_t file_len = 0;
	uint32_t line = 0;
	const char *file = parse_srcline(src, &file_len, &line) ? src : NULL;
	uint64_t h = name_file_hash(name, file, file_len);
	if (pa_index_table_grow(&x->frame_tab, &x->frame_tab_cap, x->nr_frames, frame_hash_of, x))
		return -ENOMEM;
	size_t mask = x->frame_tab_cap - 1, j = h & mask;
	for (; x->frame_tab[j]; j = (j + 1) & mask) {
		struct frame *f = &x->frames[x->frame_tab[j] - 1];
		if (f->hash != h || strcmp(f->name, name) || !f->file != !file)
			continue;
		if (file && (strncmp(f->file, file, file_len) || f->file[file_len]))
			continue;
		if (file && line < f->line)
			f->line = line;
		*out = x->frame_tab[j] - 1;
		x->loc_frame[id] = *out + 1;
		return 0;
	}
	if (PA_GROW(x->frames, x->frames_cap, x->nr_frames + 1, 256))
		return -ENOMEM;
	struct frame *f = &x->frames[x->nr_frames];
	f->name = pa_arena_strdup(&x->arena, name);
	f->file = file ? pa_arena_strndup(&x->arena, file, file_len) : NULL;
	if (!f->name || (file && !f->file))
		return -ENOMEM;
	f->line = line;
	f->hash = h;
	*out = (uint32_t)x->nr_frames;
	x->frame_tab[j] = *out + 1;
	x->loc_frame[id] = *out + 1;
	x->nr_frames++;
	return 0;
}

static struct profile *profile_of(struct ss *x, const struct pa_trace_sample *sm)
{
	int32_t id = x->per_process ? sm->pid : sm->tid;
	uint64_t key = (uint64_t)sm->evsel << 32 | (uint32_t)id;
	int created = 0;
	void **slot = pa_u64map_slot(&x->by_key, key, &created);
	if (!slot)
		return NULL;
	if (!created)
		return &x->profiles[(uintptr_t)*slot - 1];
	if (PA_GROW(x->profiles, x->profiles_cap, x->nr_profiles + 1, 16))
		return NULL;
	struct profile *p = &x->profiles[x->nr_profiles++];
	*p = (struct profile){
	    .evsel = sm->evsel, .pid = sm->pid, .tid = x->per_process ? sm->pid : sm->tid};
	*slot = (void *)(uintptr_t)x->nr_profiles;
	return p;
}

static int on_sample(void *ctx, const struct pa_trace_sample *sm)
{
	struct ss *x = ctx;
	/* perf's cursor, leaf first; a sample without a chain is its ip */
	const uint32_t *ids = sm->nr_frames ? sm->frames : &sm->loc;
	uint32_t n = sm->nr_frames ? sm->nr_frames : 1, st;
	if (PA_GROW(x->tmp, x->tmp_cap, n, 128))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		if (ids[i] >= x->nr_locs)
			return -EINVAL;
		int err = frame_of(x, ids[i], &x->tmp[n - 1 - i]);
		if (err)
			return err;
	}
	if (pa_seqset_add(&x->stacks, x->tmp, n, &st))
		return -ENOMEM;
	struct profile *p = profile_of(x, sm);
	if (!p)
		return -ENOMEM;
	if (sm->comm) {
		p->comm = sm->comm;
		if (sm->tid == sm->pid)
			p->main_comm = sm->comm;
	}
	p->total += sm->period;
	if (PA_GROW(p->e, p->cap, p->n + 1, 64))
		return -ENOMEM;
	p->e[p->n++] = (struct entry){.stack = st, .weight = sm->period};
	return 0;
}

static int profile_cmp(const void *a, const void *b)
{
	const struct profile *p = a, *q = b;
	if (p->evsel != q->evsel)
		return PA_CMP(p->evsel, q->evsel);
	if (p->pid != q->pid)
		return PA_CMP(p->pid, q->pid);
	return PA_CMP(p->tid, q->tid);
}

static const char *unit_of(const struct pa_file *f, const struct pa_evsel *ev)
{
	return pa_evsel_period_is_ns(f, ev) ? "nanoseconds" : "none";
}

static void put_str(FILE *out, const char *s)
{
	pa_put_json_str(out, s, strlen(s));
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

static int write_json(struct ss *x, const struct pa_export_opts *opts, FILE *out)
{
	struct pa_file *f = pa_session_file(pa_trace_session(x->t));
	const char *path = pa_file_path(f);
	const char *name = PA_OPTS_GET(opts, struct pa_export_opts, name, NULL);
	if (!name)
		name = !path || !strcmp(path, "-") ? "perf.data" : base_name(path);
	bool several = false;
	size_t active = 0;
	for (size_t i = 0; i < x->nr_profiles; i++) {
		several |= x->profiles[i].evsel != x->profiles[0].evsel;
		if (x->profiles[i].total > x->profiles[active].total)
			active = i;
	}

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", out);
	fputs("\"exporter\":\"pa " PA_VERSION "\",\n\"name\":", out);
	put_str(out, name);
	fprintf(out, ",\n\"activeProfileIndex\":%zu,\n\"shared\":{\"frames\":[", active);
	for (size_t i = 0; i < x->nr_frames; i++) {
		const struct frame *fr = &x->frames[i];
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
		put_str(out, fr->name);
		if (fr->file) {
			fputs(",\"file\":", out);
			put_str(out, fr->file);
			fprintf(out, ",\"line\":%" PRIu32, fr->line);
		}
		putc('}', out);
	}
	fputs("]},\n\"profiles\":[", out);
	for (size_t i = 0; i < x->nr_profiles; i++) {
		const struct profile *p = &x->profiles[i];
		const struct pa_evsel *ev = pa_file_evsel(f, p->evsel);
		const char *comm = p->main_comm ? p->main_comm : p->comm;
		char evname[128] = "";
		x->name.len = 0;
		/* (a thread without a comm: perf's name for it, ":TID") */
		if (comm ? pa_buf_addf(&x->name, "%s (%" PRId32 ")", comm, p->tid)
		         : pa_buf_addf(&x->name, ":%" PRId32 " (%" PRId32 ")", p->tid, p->tid))
			return -ENOMEM;
		if (several &&
		    pa_buf_addf(&x->name, " %s",
		                ev ? pa_evsel_name(ev, evname, sizeof(evname)) : "unknown"))
			return -ENOMEM;
		fputs(i ? ",\n{\"type\":\"sampled\",\"name\":"
		        : "\n{\"type\":\"sampled\",\"name\":",
		      out);
		put_str(out, x->name.data);
		fprintf(out,
		        ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64
		        ",\n\"samples\":[",
		        unit_of(f, ev), p->total);
		for (size_t k = 0; k < p->n; k++) {
			uint32_t len;
			const uint32_t *v = pa_seqset_get(&x->stacks, p->e[k].stack, &len);
			fputs(k ? (k % 16 ? ",[" : ",\n[") : "[", out);
			for (uint32_t d = 0; d < len; d++)
				fprintf(out, d ? ",%" PRIu32 : "%" PRIu32, v[d]);
			putc(']', out);
		}
		fputs("],\n\"weights\":[", out);
		for (size_t k = 0; k < p->n; k++)
			fprintf(out, k ? (k % 16 ? ",%" PRIu64 : ",\n%" PRIu64) : "%" PRIu64,
			        p->e[k].weight);
		fputs("]}", out);
	}
	fputs("]}\n", out);
	return 0;
}

int pa_export_speedscope(struct pa_trace *t, const struct pa_export_opts *opts, FILE *out,
                         struct pa_err *err)
{
	struct ss x = {.t = t};
	const char *what = "unknown export options";
	pa_arena_init(&x.arena, 0);
	int ret = pa_opts_check(opts, sizeof(*opts));
	if (ret)
		goto out;
	x.per_process = PA_OPTS_GET(opts, struct pa_export_opts, per_process, false);
	x.r = pa_trace_resolver(t);
	x.locs = pa_resolver_locs(x.r);
	x.nr_locs = pa_resolver_nr_locs(x.r);
	what = "out of memory";
	x.loc_frame = calloc(x.nr_locs ? x.nr_locs : 1, sizeof(*x.loc_frame));
	if (!x.loc_frame) {
		ret = -ENOMEM;
		goto out;
	}
	ret = pa_trace_foreach(t, on_sample, NULL, &x);
	if (ret) {
		what = ret == -EINVAL ? "a sample names a location the trace does not have"
		                      : "out of memory";
		goto out;
	}
	qsort(x.profiles, x.nr_profiles, sizeof(*x.profiles), profile_cmp);
	ret = write_json(&x, opts, out);
	if (!ret && (fflush(out) || ferror(out))) {
		what = "write error";
		ret = -EIO;
	}
out:
	if (ret)
		pa_err_set(err, ret, "speedscope: %s", what);
	for (size_t i = 0; i < x.nr_profiles; i++)
		free(x.profiles[i].e);
	free(x.profiles);
	pa_u64map_release(&x.by_key);
	free(x.tmp);
	pa_seqset_release(&x.stacks);
	free(x.loc_frame);
	free(x.frame_tab);
	free(x.frames);
	pa_buf_release(&x.name);
	pa_arena_release(&x.arena);
	return ret;
}
