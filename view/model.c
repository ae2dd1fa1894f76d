/* model.c - a trace's samples aggregated for the page: frames, threads
 * and stacks interned, samples summed by (event, thread, time bucket,
 * stack), and by (event, thread, time bucket, own frame, source line) for
 * the source lines. Two walks of the trace: the first finds its time
 * span, the second aggregates; with inline frames a third notes each sample's
 * aggregate in order (vmodel.seq). Nothing is allocated per sample but
 * table growth. */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define INLINED_MARK " (inlined)"

static uint64_t frame_hash_of(void *ctx, uint32_t i)
{
	return ((struct vmodel *)ctx)->frames[i].hash;
}

static uint64_t thread_hash_of(void *ctx, uint32_t i)
{
	return ((struct vmodel *)ctx)->threads[i].hash;
}

static uint64_t agg_hash_of(void *ctx, uint32_t i)
{
	return ((struct vmodel *)ctx)->aggs[i].hash;
}

/* The name pa report's sym key shows for a location into m->name: the
 * symbol's, else perf's address (a chain entry's raw ip, a sample's
 * map-relative address), as perf's %#.16llx. */
static int frame_name(struct vmodel *m, const struct pa_loc *l)
{
	m->name.len = 0;
	if (l->sym)
		return pa_buf_addf(&m->name, "%s%s", l->sym->name,
		                   l->sym->inlined ? INLINED_MARK : "");
	uint64_t a = l->ip ? l->ip : l->addr;
	return pa_buf_addf(&m->name, "%#.16" PRIx64, a);
}

/* Is f the frame of a location with sym (NULL: none), name and dso? The
 * level is shown, not compared (perf's sym key); a symbol's first name is
 * the one shown. */
static bool same_frame(const struct vframe *f, const struct pa_sym *sym, const char *name,
                       const char *dso)
{
	if (f->has_sym != !!sym || strcmp(f->dso, dso))
		return false;
	if (!sym)
		return !strcmp(f->name, name);
	if (f->inlined != sym->inlined || f->start != sym->start || f->end != sym->end)
		return false;
	return !sym->inlined || !strcmp(f->name, name);
}

/* The frame of location id at level (made when new). 0 or -ENOMEM. A
 * location without a DSO or symbol takes the level of the entry before it
 * (perf's fill_callchain_info): only the others are memoized. */
static int frame_of(struct vmodel *m, uint32_t id, char level, uint32_t *out)
{
	const struct pa_loc *l = &m->locs[id];
	bool memo = l->sym || l->dso;
	if (memo && m->loc_frame[id]) {
		*out = m->loc_frame[id] - 1;
		return 0;
	}
	if (frame_name(m, l))
		return -ENOMEM;
	const char *name = m->name.data, *dso = l->dso ? l->dso->short_name : "";
	const struct pa_sym *sym = l->sym;
	uint64_t h = pa_hash_str(dso) * 31;
	if (!sym || sym->inlined)
		h ^= pa_hash_str(name);
	if (sym)
		h = pa_hash64(h ^ pa_hash64(sym->start) ^ sym->end * 7);
	h = pa_hash64(h);
	if (pa_index_table_grow(&m->frame_tab, &m->frame_tab_cap, m->nr_frames, frame_hash_of, m))
		return -ENOMEM;
	size_t mask = m->frame_tab_cap - 1, j = h & mask;
	for (; m->frame_tab[j]; j = (j + 1) & mask) {
		const struct vframe *f = &m->frames[m->frame_tab[j] - 1];
		if (f->hash == h && same_frame(f, sym, name, dso)) {
			*out = m->frame_tab[j] - 1;
			if (memo)
				m->loc_frame[id] = *out + 1;
			return 0;
		}
	}
	if (PA_GROW(m->frames, m->frames_cap, m->nr_frames + 1, 256))
		return -ENOMEM;
	struct vframe *f = &m->frames[m->nr_frames];
	f->name = pa_arena_strdup(&m->arena, name);
	f->dso = pa_arena_strdup(&m->arena, dso);
	if (!f->name || !f->dso)
		return -ENOMEM;
	f->level = level;
	f->hash = h;
	f->has_sym = sym;
	f->inlined = sym && sym->inlined;
	m->has_inline |= f->inlined;
	f->start = sym ? sym->start : 0;
	f->end = sym ? sym->end : 0;
	*out = (uint32_t)m->nr_frames++;
	m->frame_tab[j] = *out + 1;
	if (memo)
		m->loc_frame[id] = *out + 1;
	return 0;
}

/* The thread of (pid, tid, comm) (made when new). 0 or -ENOMEM. */
static int thread_of(struct vmodel *m, const struct pa_trace_sample *sm, uint32_t *out)
{
	uint64_t h = pa_hash64(((uint64_t)(uint32_t)sm->pid << 32 | (uint32_t)sm->tid) ^
	                       (sm->comm ? pa_hash_str(sm->comm) : 0));
	if (pa_index_table_grow(&m->thread_tab, &m->thread_tab_cap, m->nr_threads, thread_hash_of,
	                        m))
		return -ENOMEM;
	size_t mask = m->thread_tab_cap - 1, j = h & mask;
	for (; m->thread_tab[j]; j = (j + 1) & mask) {
		const struct vthread *t = &m->threads[m->thread_tab[j] - 1];
		if (t->hash == h && t->pid == sm->pid && t->tid == sm->tid &&
		    !t->comm == !sm->comm && (!t->comm || !strcmp(t->comm, sm->comm))) {
			*out = m->thread_tab[j] - 1;
			return 0;
		}
	}
	if (PA_GROW(m->threads, m->threads_cap, m->nr_threads + 1, 64))
		return -ENOMEM;
	struct vthread *t = &m->threads[m->nr_threads];
	*t = (struct vthread){.pid = sm->pid, .tid = sm->tid, .hash = h};
	if (sm->comm && !(t->comm = pa_arena_strdup(&m->arena, sm->comm)))
		return -ENOMEM;
	*out = (uint32_t)m->nr_threads++;
	m->thread_tab[j] = *out + 1;
	return 0;
}

/* Add a sample to the sum of its key (made when new); with m->seq_pass,
 * only note its aggregate's index after the others'. 0 or -ENOMEM. */
static int agg_add(struct vmodel *m, const struct vagg *k)
{
	uint64_t h = pa_hash64(((uint64_t)k->evsel << 32 | k->thread) ^
	                       pa_hash64((uint64_t)k->bucket << 32 | k->stack));
	if (pa_index_table_grow(&m->agg_tab, &m->agg_tab_cap, m->nr_aggs, agg_hash_of, m))
		return -ENOMEM;
	size_t mask = m->agg_tab_cap - 1, j = h & mask;
	for (; m->agg_tab[j]; j = (j + 1) & mask) {
		struct vagg *a = &m->aggs[m->agg_tab[j] - 1];
		if (a->hash == h && a->evsel == k->evsel && a->thread == k->thread &&
		    a->bucket == k->bucket && a->stack == k->stack) {
			if (m->seq_pass) {
				if (PA_GROW(m->seq, m->seq_cap, m->nr_seq + 1, 1024))
					return -ENOMEM;
				m->seq[m->nr_seq++] = (struct vseq){m->agg_tab[j] - 1, k->period};
				return 0;
			}
			a->count++;
			a->period += k->period;
			return 0;
		}
	}
	if (m->seq_pass) /* (the walk before made them all) */
		return -EINVAL;
	if (PA_GROW(m->aggs, m->aggs_cap, m->nr_aggs + 1, 1024))
		return -ENOMEM;
	m->aggs[m->nr_aggs] = *k;
	m->aggs[m->nr_aggs].count = 1;
	m->aggs[m->nr_aggs].hash = h;
	m->agg_tab[j] = (uint32_t)++m->nr_aggs;
	return 0;
}

static uint64_t line_hash_of(void *ctx, uint32_t i)
{
	return ((struct vmodel *)ctx)->lines[i].hash;
}

static uint64_t lagg_hash_of(void *ctx, uint32_t i)
{
	return ((struct vmodel *)ctx)->laggs[i].hash;
}

/* The source line of location id (*out: a vlagg line, 0: none), made
 * when new. 0 or -ENOMEM. */
static int line_of(struct vmodel *m, uint32_t id, uint32_t *out)
{
	if (m->loc_line[id]) {
		*out = m->loc_line[id] - 1;
		return 0;
	}
	unsigned nr = 0;
	const struct pa_loc *l = &m->locs[id];
	const char *file = pa_resolver_source_file(m->r, l, &nr), *sl = NULL;
	*out = 0;
	if (file && !(sl = pa_resolver_srcline(m->r, l)))
		return -ENOMEM;
	uint64_t h = sl ? pa_hash_str(sl) : 0;
	if (sl && pa_index_table_grow(&m->line_tab, &m->line_tab_cap, m->nr_lines, line_hash_of, m))
		return -ENOMEM;
	size_t mask = m->line_tab_cap - 1, j = h & mask;
	for (; sl && m->line_tab[j]; j = (j + 1) & mask) {
		const struct vline *v = &m->lines[m->line_tab[j] - 1];
		if (v->hash == h && !strcmp(v->srcline, sl)) {
			*out = m->line_tab[j];
			break;
		}
	}
	if (sl && !*out) {
		if (PA_GROW(m->lines, m->lines_cap, m->nr_lines + 1, 256))
			return -ENOMEM;
		struct vline *v = &m->lines[m->nr_lines];
		const char *text = pa_textfiles_line(&m->text, file, nr);
		v->hash = h;
		v->srcline = pa_arena_strdup(&m->arena, sl);
		v->text = text ? pa_arena_expand_tabs(&m->arena, text, strlen(text)) : NULL;
		if (!v->srcline || (text && !v->text))
			return -ENOMEM;
		m->line_tab[j] = *out = (uint32_t)++m->nr_lines;
	}
	m->loc_line[id] = *out + 1;
	return 0;
}

/* Add a sample to its line aggregate k (made when new). 0 or -ENOMEM. */
static int lagg_add(struct vmodel *m, struct vlagg *k)
{
	uint64_t h = pa_hash64(((uint64_t)k->evsel << 32 | k->thread) ^
	                       pa_hash64((uint64_t)k->bucket << 32 | k->frame) ^ k->line * 31);
	if (pa_index_table_grow(&m->lagg_tab, &m->lagg_tab_cap, m->nr_laggs, lagg_hash_of, m))
		return -ENOMEM;
	size_t mask = m->lagg_tab_cap - 1, j = h & mask;
	for (; m->lagg_tab[j]; j = (j + 1) & mask) {
		struct vlagg *a = &m->laggs[m->lagg_tab[j] - 1];
		if (a->hash == h && a->evsel == k->evsel && a->thread == k->thread &&
		    a->bucket == k->bucket && a->frame == k->frame && a->line == k->line) {
			a->count++;
			a->period += k->period;
			return 0;
		}
	}
	if (PA_GROW(m->laggs, m->laggs_cap, m->nr_laggs + 1, 1024))
		return -ENOMEM;
	k->count = 1;
	k->hash = h;
	m->laggs[m->nr_laggs] = *k;
	m->lagg_tab[j] = (uint32_t)++m->nr_laggs;
	return 0;
}

static bool has_time(const struct pa_trace_sample *sm)
{
	return sm->sample_type & PA_SAMPLE_TIME;
}

static int on_span(void *ctx, const struct pa_trace_sample *sm)
{
	struct vmodel *m = ctx;
	if (!has_time(sm))
		return 0;
	if (!m->has_time || sm->time < m->t0)
		m->t0 = sm->time;
	if (!m->has_time || sm->time > m->t1)
		m->t1 = sm->time;
	m->has_time = true;
	return 0;
}

static int on_sample(void *ctx, const struct pa_trace_sample *sm)
{
	struct vmodel *m = ctx;
	/* perf's cursor, leaf first; a sample without a chain is its ip */
	const uint32_t *ids = sm->nr_frames ? sm->frames : &sm->loc;
	uint32_t n = sm->nr_frames ? sm->nr_frames : 1;
	struct vagg k = {.evsel = sm->evsel, .period = sm->period};
	if (PA_GROW(m->tmp, m->tmp_cap, n + 1, 128))
		return -ENOMEM;
	/* after the chain, root first: the frame of the sample's own ip,
	 * pa report's self entry (which names an unresolved address
	 * map-relative where chain entries have the raw ip) */
	if (sm->loc >= m->nr_locs)
		return -EINVAL;
	char level = m->locs[sm->loc].level ? m->locs[sm->loc].level : '.';
	int ret = frame_of(m, sm->loc, level, &m->tmp[n]);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < n; i++) {
		if (ids[i] >= m->nr_locs)
			return -EINVAL;
		const struct pa_loc *l = &m->locs[ids[i]];
		if (l->sym || l->dso)
			level = l->kernel ? 'k' : '.';
		ret = frame_of(m, ids[i], level, &m->tmp[n - 1 - i]);
		if (ret)
			return ret;
	}
	if (pa_seqset_add(&m->stacks, m->tmp, n + 1, &k.stack) || thread_of(m, sm, &k.thread))
		return -ENOMEM;
	if (m->has_time && has_time(sm) && sm->time >= m->t0)
		k.bucket = (uint32_t)((sm->time - m->t0) / m->width);
	if (k.bucket >= m->nr_buckets)
		k.bucket = m->nr_buckets - 1;
	if (m->seq_pass)
		return agg_add(m, &k);
	m->nr_samples++;
	m->total_period += sm->period;
	struct vlagg lk = {.evsel = k.evsel,
	                   .thread = k.thread,
	                   .bucket = k.bucket,
	                   .frame = m->tmp[n],
	                   .period = sm->period};
	if ((ret = line_of(m, sm->loc, &lk.line)) || (lk.line && (ret = lagg_add(m, &lk))))
		return ret;
	return agg_add(m, &k);
}

static void on_note(void *ctx, const struct pa_dso *dso, bool has_symbols, const char *why)
{
	struct vmodel *m = ctx;
	if (m->note_err)
		return;
	if (PA_GROW(m->notes, m->notes_cap, m->nr_notes + 1, 16)) {
		m->note_err = -ENOMEM;
		return;
	}
	struct vnote *v = &m->notes[m->nr_notes];
	v->dso = pa_arena_strdup(&m->arena, dso->long_name ? dso->long_name : dso->short_name);
	v->why = pa_arena_strdup(&m->arena, why ? why : "");
	v->has_symbols = has_symbols;
	if (!v->dso || !v->why)
		m->note_err = -ENOMEM;
	else
		m->nr_notes++;
}

int vmodel_build(struct vmodel *m)
{
	pa_arena_init(&m->arena, 0);
	m->r = pa_trace_resolver(m->t);
	m->locs = pa_resolver_locs(m->r);
	m->nr_locs = pa_resolver_nr_locs(m->r);
	m->loc_frame = calloc(m->nr_locs ? m->nr_locs : 1, sizeof(*m->loc_frame));
	m->loc_line = calloc(m->nr_locs ? m->nr_locs : 1, sizeof(*m->loc_line));
	if (!m->loc_frame || !m->loc_line)
		return -ENOMEM;
	int ret = pa_trace_foreach(m->t, on_span, NULL, m);
	if (ret)
		return ret;
	uint64_t span = m->has_time ? m->t1 - m->t0 + 1 : 1;
	m->width = span / m->nr_buckets + (span % m->nr_buckets != 0);
	if (!m->width)
		m->width = 1;
	m->nr_buckets = (unsigned)((span + m->width - 1) / m->width);
	ret = pa_trace_foreach(m->t, on_sample, NULL, m);
	if (ret)
		return ret;
	/* (a third walk finds each sample's aggregate: the page replays
	 * perf's --children entry tree, whose symbol comparison is not an
	 * order with inline frames, sample by sample) */
	m->seq_pass = m->has_inline;
	if (m->seq_pass && (ret = pa_trace_foreach(m->t, on_sample, NULL, m)))
		return ret;
	pa_resolver_foreach_dso_note(m->r, on_note, m);
	return m->note_err;
}

void vmodel_release(struct vmodel *m)
{
	free(m->loc_frame);
	free(m->frame_tab);
	free(m->frames);
	free(m->thread_tab);
	free(m->threads);
	pa_seqset_release(&m->stacks);
	free(m->tmp);
	free(m->agg_tab);
	free(m->aggs);
	free(m->notes);
	free(m->seq);
	free(m->loc_line);
	free(m->line_tab);
	free(m->lines);
	free(m->lagg_tab);
	free(m->laggs);
	pa_textfiles_release(&m->text);
	pa_buf_release(&m->name);
	pa_arena_release(&m->arena);
}
