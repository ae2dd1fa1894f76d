/* pprof.c - a trace as pprof's profile.proto (export/profile.proto),
 * gzip-compressed: what `go tool pprof`, Pyroscope and Parca read.
 *
 * What pa writes:
 * - Sample types: two per event that has samples, in the recording's
 *   event order: how many samples, and the sum of their periods (what
 *   pa report's Samples and Period columns count). With one event they are
 *   ("samples", "count") and, for cpu-clock and task-clock (periods in
 *   nanoseconds; not a sysprof capture's cpu-clock, period 1 a sample),
 *   ("cpu", "nanoseconds"), else (EVENT, "count"). With
 *   several events each type is named after its event:
 *   ("EVENT_samples", "count") and (EVENT, "nanoseconds" or "count").
 *   A sample has its event's two values, the other events' are 0.
 * - Samples: one per distinct (event, stack, comm, pid, tid[, cpu]), the
 *   values summed (pprof would sum them anyway). Labels "comm" (string),
 *   "pid", "tid" and, with opts->cpu_label, "cpu" (numbers in the unit
 *   "count", see set_label).
 * - A stack is the sample's call chain as the trace gives it (perf's
 *   callchain cursor, leaf first), or its own location without one. The
 *   trace expands inline frames; they are folded back here: a location
 *   whose inline frames all follow each other is one pprof Location with
 *   one Line per frame, innermost first (pprof's order: the function the
 *   others were inlined into last, named by the location's symbol as pa
 *   report names it; addr2line may spell it otherwise).
 * - Locations: one per distinct (DSO, map-relative address). Its address
 *   is a runtime address: the map-relative one plus the DSO's load bias
 *   in the first process seen to sample it (raw ip - map-relative
 *   address), so that pprof's own tools (disassembly, local symbolizing)
 *   find the code in the binary. Processes that load a DSO elsewhere
 *   share these locations.
 * - Mappings: one per DSO: the range of its locations (whole pages),
 *   the file offset of its start, the DSO's long name, its build-id in
 *   lowercase hex. The DSO named like the command of most samples comes
 *   first (pprof takes mapping 1 for the main program). Locations without
 *   a DSO have no mapping. The has_* flags mean what pprof's own
 *   symbolizer means by them: some location of the mapping has a
 *   function (a symbol), a file name, a line number, inline frames
 *   resolved (DWARF-unwound entries, which perf and pa expand); pprof
 *   resolves symbols itself only for a mapping with none of them.
 * - Functions: one per (name, file). The name is the symbol's as pa
 *   report prints it (demangled unless the trace was asked not to), the
 *   system name the symbol's name in the file (C++'s mangled one; the
 *   name itself for inline frames, whose names come from DWARF and for
 *   names nothing demangled). Without a symbol: the DSO's short name in brackets
 *   ("[libfoo.so]"; "[kernel.kallsyms]" as it is), "[unknown]" without a
 *   DSO, as pa folded and stackcollapse name such frames. The file is the
 *   one of perf's srcline of the location (addr2line's answer, the file's
 *   base name as perf prints it; none for "??" and for perf's fallbacks),
 *   the line its line number; the start line where the function's
 *   DWARF declares it (0 without).
 * - time_nanos: the wall-clock time of the first sample exported, taken
 *   from the file's modification time (when perf finished writing it:
 *   perf's "captured on") less the time from that sample to the end of
 *   the recording; 0 for a pipe. duration_nanos: first to last exported
 *   sample. period_type and period: the first event's period type and its
 *   sampling period (-c), 1e9 / frequency for a clock event recorded with
 *   -F, else the mean period of its samples.
 */
#include "export/export.h"

#include <errno.h>

#ifndef PA_HAVE_PROTOBUF_C

int pa_export_pprof(struct pa_trace *t, const struct pa_export_opts *opts, FILE *out,
                    struct pa_err *err)
{
	(void)t, (void)opts, (void)out;
	/* a usage error: the command exits 1, as for a format it does not know */
	return pa_err_set(
	    err, -PA_ERR_USAGE,
	    "pprof export: pa was built without protobuf-c (protoc-c, libprotobuf-c)");
}
#else

#include "export/pprof.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- strings ---------------------------------------------------------------- */

static uint64_t str_hash_of(void *ctx, uint32_t i)
{
	return ((struct pp *)ctx)->str_hash[i];
}

/* The index of s[0, n) in the string table, added when new. */
static int str_idx_n(struct pp *p, const char *s, size_t n, uint32_t *out)
{
	uint64_t h = pa_hash_bytes(s, n);
	if (pa_index_table_grow(&p->str_tab, &p->str_tab_cap, p->nr_strs, str_hash_of, p))
		return -ENOMEM;
	size_t mask = p->str_tab_cap - 1, j = h & mask;
	for (; p->str_tab[j]; j = (j + 1) & mask) {
		uint32_t i = p->str_tab[j] - 1;
		if (p->str_hash[i] == h && !strncmp(p->strs[i], s, n) && !p->strs[i][n]) {
			*out = i;
			return 0;
		}
	}
	size_t cap_h = p->cap_str_hash;
	if (PA_GROW(p->strs, p->cap_strs, p->nr_strs + 1, 1024) ||
	    PA_GROW(p->str_hash, cap_h, p->nr_strs + 1, 1024))
		return -ENOMEM;
	p->cap_str_hash = cap_h;
	char *copy = pa_arena_strndup(&p->arena, s, n);
	if (!copy)
		return -ENOMEM;
	p->strs[p->nr_strs] = copy;
	p->str_hash[p->nr_strs] = h;
	p->str_tab[j] = (uint32_t)p->nr_strs + 1;
	*out = (uint32_t)p->nr_strs++;
	return 0;
}

int pa_pprof_str_idx(struct pp *p, const char *s, uint32_t *out)
{
	return str_idx_n(p, s, strlen(s), out);
}

/* ---- mappings and locations -------------------------------------------------- */

/* The mapping of a DSO (made when new), and the DSO's load bias learnt
 * from raw (a runtime address of map-relative address addr; 0: none). */
static int map_of(struct pp *p, const struct pa_dso *d, uint64_t addr, uint64_t raw, uint32_t *out)
{
	if (!d) {
		*out = 0;
		return 0;
	}
	if (d->idx >= p->nr_dso_map) {
		size_t cap = p->nr_dso_map;
		if (PA_GROW(p->dso_map, cap, (size_t)d->idx + 1, 64))
			return -ENOMEM;
		memset(p->dso_map + p->nr_dso_map, 0, (cap - p->nr_dso_map) * sizeof(*p->dso_map));
		p->nr_dso_map = cap;
	}
	uint32_t m = p->dso_map[d->idx];
	if (!m) {
		if (PA_GROW(p->maps, p->cap_maps, p->nr_maps + 1, 16))
			return -ENOMEM;
		p->maps[p->nr_maps] = (struct pmap){.dso = d, .lo = UINT64_MAX};
		m = p->dso_map[d->idx] = (uint32_t)++p->nr_maps;
	}
	struct pmap *mp = &p->maps[m - 1];
	if (!mp->has_bias && raw) {
		mp->bias = raw - addr;
		mp->has_bias = true;
	}
	*out = m;
	return 0;
}

static uint64_t ploc_hash(uint32_t dso1, uint64_t addr, uint32_t variant)
{
	return pa_hash64(addr ^ pa_hash64(((uint64_t)dso1 << 32) | variant));
}

static uint64_t ploc_hash_of(void *ctx, uint32_t i)
{
	return ((struct pp *)ctx)->plocs[i].hash;
}

/* The pprof location of a resolver location standing in a stack (unit:
 * an ordinary location, one whose inline frames the stack holds all of,
 * or a lone inline frame); raw: its runtime address when known. */
static int ploc_of(struct pp *p, uint32_t unit, uint64_t raw, uint32_t *out)
{
	if (p->loc_ploc[unit]) {
		*out = p->loc_ploc[unit] - 1;
		return 0;
	}
	const struct pa_loc *l = &p->locs[unit];
	uint32_t map, dso1 = l->dso ? l->dso->idx + 1 : 0;
	uint32_t variant = l->inl_frame ? unit + 1 : 0;
	int ret = map_of(p, l->dso, l->addr, raw, &map);
	if (ret)
		return ret;
	uint64_t h = ploc_hash(dso1, l->addr, variant);
	if (pa_index_table_grow(&p->ploc_tab, &p->ploc_tab_cap, p->nr_plocs, ploc_hash_of, p))
		return -ENOMEM;
	size_t mask = p->ploc_tab_cap - 1, j = h & mask;
	for (; p->ploc_tab[j]; j = (j + 1) & mask) {
		struct ploc *q = &p->plocs[p->ploc_tab[j] - 1];
		if (q->hash == h && q->addr == l->addr && q->variant == variant && q->map == map) {
			/* the richest description wins: with inline frames */
			if (l->nr_inl && !p->locs[q->rep].nr_inl)
				q->rep = unit;
			*out = p->ploc_tab[j] - 1;
			p->loc_ploc[unit] = *out + 1;
			return 0;
		}
	}
	if (PA_GROW(p->plocs, p->cap_plocs, p->nr_plocs + 1, 1024))
		return -ENOMEM;
	p->plocs[p->nr_plocs] =
	    (struct ploc){.map = map, .variant = variant, .rep = unit, .addr = l->addr, .hash = h};
	p->ploc_tab[j] = (uint32_t)p->nr_plocs + 1;
	*out = (uint32_t)p->nr_plocs++;
	p->loc_ploc[unit] = *out + 1;
	return 0;
}

/* ---- samples ------------------------------------------------------------------- */

static uint64_t agg_hash_of(void *ctx, uint32_t i)
{
	return ((struct pp *)ctx)->aggs[i].hash;
}

static int push_frame(struct pp *p, size_t *n, uint32_t unit, uint64_t raw)
{
	uint32_t pl;
	int ret = ploc_of(p, unit, raw, &pl);
	if (ret)
		return ret;
	p->stack[(*n)++] = pl;
	return 0;
}

/* The sample's stack into p->stack as pprof location indices. */
static int make_stack(struct pp *p, const struct pa_trace_sample *sm, size_t *out)
{
	size_t n = 0;
	if (PA_GROW(p->stack, p->stack_cap, (size_t)sm->nr_frames + 1, 256))
		return -ENOMEM;
	if (!sm->nr_frames) { /* no call chain: the sample's own location */
		const struct pa_loc *l = &p->locs[sm->loc];
		int ret = push_frame(p, &n, sm->loc, l->ip ? l->ip : sm->ip);
		*out = n;
		return ret;
	}
	for (uint32_t k = 0; k < sm->nr_frames;) {
		uint32_t id = sm->frames[k], unit = id, span = 1;
		if (p->inl_parent[id]) {
			uint32_t par = p->inl_parent[id] - 1;
			const struct pa_loc *pl = &p->locs[par];
			if (!p->inl_pos[id] && (size_t)k + pl->nr_inl <= sm->nr_frames &&
			    !memcmp(sm->frames + k, p->inl + pl->inl,
			            pl->nr_inl * sizeof(uint32_t))) {
				unit = par;
				span = pl->nr_inl;
			}
		}
		int ret = push_frame(p, &n, unit, p->locs[unit].ip);
		if (ret)
			return ret;
		k += span;
	}
	*out = n;
	return 0;
}

static int on_sample(void *ctx, const struct pa_trace_sample *sm)
{
	struct pp *p = ctx;
	size_t n;
	int ret = make_stack(p, sm, &n);
	if (ret)
		return ret;
	if (sm->comm != p->last_comm || !p->last_comm) {
		if ((ret = pa_pprof_str_idx(p, sm->comm ? sm->comm : "", &p->last_comm_idx)))
			return ret;
		p->last_comm = sm->comm;
	}
	struct pagg key = {.len = (uint32_t)n,
	                   .evsel = (uint16_t)sm->evsel,
	                   .comm = p->last_comm_idx,
	                   .pid = sm->pid,
	                   .tid = sm->tid,
	                   .cpu = p->cpu_label ? sm->cpu : UINT32_MAX};
	uint64_t h = pa_hash_bytes(p->stack, n * sizeof(uint32_t));
	h = pa_hash64(h ^ ((uint64_t)key.evsel << 48) ^ ((uint64_t)key.comm << 16));
	h = pa_hash64(h ^ ((uint64_t)(uint32_t)key.pid << 32) ^ (uint32_t)key.tid);
	h = pa_hash64(h ^ key.cpu);
	key.hash = h;
	if (pa_index_table_grow(&p->agg_tab, &p->agg_tab_cap, p->nr_aggs, agg_hash_of, p))
		return -ENOMEM;
	size_t mask = p->agg_tab_cap - 1, j = h & mask;
	struct pagg *a = NULL;
	for (; p->agg_tab[j]; j = (j + 1) & mask) {
		struct pagg *q = &p->aggs[p->agg_tab[j] - 1];
		if (q->hash == h && q->len == key.len && q->evsel == key.evsel &&
		    q->comm == key.comm && q->pid == key.pid && q->tid == key.tid &&
		    q->cpu == key.cpu &&
		    !memcmp(p->pool + q->off, p->stack, n * sizeof(uint32_t))) {
			a = q;
			break;
		}
	}
	if (!a) {
		if (p->pool_len + n > UINT32_MAX)
			return -PA_ERR_LIMIT;
		if (PA_GROW(p->aggs, p->cap_aggs, p->nr_aggs + 1, 1024) ||
		    PA_GROW(p->pool, p->pool_cap, p->pool_len + n, 4096))
			return -ENOMEM;
		memcpy(p->pool + p->pool_len, p->stack, n * sizeof(uint32_t));
		key.off = (uint32_t)p->pool_len;
		p->pool_len += n;
		a = &p->aggs[p->nr_aggs];
		*a = key;
		p->agg_tab[j] = (uint32_t)++p->nr_aggs;
	}
	a->samples++;
	a->period += sm->period;
	if (sm->evsel < p->nr_evs) {
		struct pev *e = &p->evs[sm->evsel];
		e->used = true;
		e->samples++;
		e->period += sm->period;
	}
	if (sm->sample_type & PA_SAMPLE_TIME) {
		if (!p->has_time || sm->time < p->t_first)
			p->t_first = sm->time;
		if (!p->has_time || sm->time > p->t_last)
			p->t_last = sm->time;
		p->has_time = true;
	}
	return 0;
}

/* ---- functions and lines ----------------------------------------------------------- */

static uint64_t func_hash_of(void *ctx, uint32_t i)
{
	return ((struct pp *)ctx)->funcs[i].hash;
}

static int func_idx(struct pp *p, uint32_t name, uint32_t system_name, uint32_t file,
                    uint32_t start_line, uint32_t *out)
{
	uint64_t h = pa_hash64(((uint64_t)name << 32) | file);
	if (pa_index_table_grow(&p->func_tab, &p->func_tab_cap, p->nr_funcs, func_hash_of, p))
		return -ENOMEM;
	size_t mask = p->func_tab_cap - 1, j = h & mask;
	for (; p->func_tab[j]; j = (j + 1) & mask) {
		const struct pfunc *q = &p->funcs[p->func_tab[j] - 1];
		if (q->name == name && q->file == file) {
			*out = p->func_tab[j] - 1;
			return 0;
		}
	}
	if (PA_GROW(p->funcs, p->cap_funcs, p->nr_funcs + 1, 1024))
		return -ENOMEM;
	p->funcs[p->nr_funcs] = (struct pfunc){.name = name,
	                                       .system_name = system_name,
	                                       .file = file,
	                                       .start_line = start_line,
	                                       .hash = h};
	p->func_tab[j] = (uint32_t)p->nr_funcs + 1;
	*out = (uint32_t)p->nr_funcs++;
	return 0;
}

/* perf's srcline "FILE:LINE" split; false for "??:LINE", perf's
 * fallbacks ("SYM+OFF", "DSO[ADDR]") and anything else. */
static bool split_srcline(const char *sl, size_t *file_len, int64_t *line)
{
	const char *c = sl ? strrchr(sl, ':') : NULL;
	if (!c || c == sl || !c[1] || (c - sl == 2 && !strncmp(sl, "??", 2)))
		return false;
	int64_t v = 0;
	for (const char *q = c + 1; *q; q++) {
		if (*q < '0' || *q > '9' || v > INT64_MAX / 10 - 10)
			return false;
		v = v * 10 + (*q - '0');
	}
	*file_len = (size_t)(c - sl);
	*line = v;
	return true;
}

/* One Line for location l of mapping mp (NULL: none): the function of
 * symbol sym (l's own, or the placeholder name without one) and l's
 * srcline's file and line. */
static int add_line(struct pp *p, const struct pa_loc *l, const struct pa_sym *sym, struct pmap *mp)
{
	uint32_t name, file = 0, fn, sys;
	int64_t line = 0;
	int ret;
	if (sym) {
		const char *sl = l->srcline ? l->srcline : pa_resolver_srcline(p->r, l);
		size_t flen;
		if (!sl && !l->srcline)
			return -ENOMEM;
		if ((ret = pa_pprof_str_idx(p, sym->name, &name)) ||
		    (ret = pa_pprof_str_idx(p, sym->linkage_name ? sym->linkage_name : sym->name,
		                            &sys)))
			return ret;
		if (split_srcline(sl, &flen, &line) && (ret = str_idx_n(p, sl, flen, &file)))
			return ret;
		if (mp) {
			mp->has_fn = true;
			mp->has_file |= file != 0;
			mp->has_line |= line > 0;
		}
	} else if (l->dso && l->dso->short_name[0] != '[') {
		char *s = pa_asprintf("[%s]", l->dso->short_name);
		if (!s)
			return -ENOMEM;
		ret = pa_pprof_str_idx(p, s, &name);
		free(s);
		if (ret)
			return ret;
	} else if ((ret = pa_pprof_str_idx(p, l->dso ? l->dso->short_name : UNKNOWN_NAME, &name))) {
		return ret;
	}
	if ((ret = func_idx(p, name, sym ? sys : name, file,
	                    sym && file ? pa_resolver_decl_line(p->r, l) : 0, &fn)))
		return ret;
	if (PA_GROW(p->lines, p->cap_lines, p->nr_lines + 1, 1024))
		return -ENOMEM;
	p->lines[p->nr_lines++] = (struct pline){.fn = fn, .line = line > 0 ? line : 0};
	return 0;
}

/* Lines of every location, functions, and the mappings' flags and
 * ranges. */
static int finish_locations(struct pp *p)
{
	for (size_t i = 0; i < p->nr_plocs; i++) {
		struct ploc *q = &p->plocs[i];
		const struct pa_loc *l = &p->locs[q->rep];
		struct pmap *mp = q->map ? &p->maps[q->map - 1] : NULL;
		int ret = 0;
		q->first_line = (uint32_t)p->nr_lines;
		if (mp) {
			mp->lo = q->addr < mp->lo ? q->addr : mp->lo;
			mp->hi = q->addr > mp->hi ? q->addr : mp->hi;
			mp->has_inl |= l->nr_inl > 0 || l->inl_frame;
		}
		/* the outermost inline frame is the function the others were
		 * inlined into: named by the location's symbol, as pa report
		 * names it (addr2line may spell it otherwise: "fib<long int>"
		 * for the symbol "fib<long>") */
		for (uint32_t k = 0; k < l->nr_inl && !ret; k++) {
			const struct pa_loc *il = &p->locs[p->inl[l->inl + k]];
			ret = add_line(p, il, k + 1 == l->nr_inl ? l->sym : il->sym, mp);
		}
		if (!l->nr_inl)
			ret = add_line(p, l, l->sym, mp);
		if (ret)
			return ret;
		q->nr_lines = (uint32_t)(p->nr_lines - q->first_line);
	}
	return 0;
}

/* comm (up to perf's 15 characters) names the DSO? */
static bool comm_names(const char *comm, const char *dso)
{
	size_t n = strlen(comm);
	return n && !strncmp(comm, dso, n) && (!dso[n] || n >= 15);
}

/* Mapping ids: the main program's (most samples whose comm names it)
 * first, the others in the order samples met them. */
static void order_mappings(struct pp *p)
{
	for (size_t i = 0; i < p->nr_aggs; i++) {
		const struct pagg *a = &p->aggs[i];
		const char *comm = p->strs[a->comm];
		for (uint32_t k = 0; k < a->len; k++) {
			uint32_t m = p->plocs[p->pool[a->off + k]].map;
			if (m && comm_names(comm, p->maps[m - 1].dso->short_name)) {
				p->maps[m - 1].main_score += a->samples;
				break;
			}
		}
	}
	size_t best = 0;
	for (size_t i = 1; i < p->nr_maps; i++)
		if (p->maps[i].main_score > p->maps[best].main_score)
			best = i;
	uint32_t id = 2;
	for (size_t i = 0; i < p->nr_maps; i++)
		p->maps[i].id = i == best ? 1 : id++;
}

/* ---- event types ---------------------------------------------------------------------- */

static int name_events(struct pp *p)
{
	unsigned nused = 0, slot = 0;
	for (unsigned e = 0; e < p->nr_evs; e++)
		nused += p->evs[e].used;
	if (!nused) /* no sample: still say what the recording measured */
		for (unsigned e = 0; e < p->nr_evs; e++, nused++)
			p->evs[e].used = true;
	for (unsigned e = 0; e < p->nr_evs; e++) {
		struct pev *ev = &p->evs[e];
		if (!ev->used)
			continue;
		const struct pa_evsel *es = pa_file_evsel(p->f, e);
		char buf[128];
		const char *name = es ? pa_evsel_name(es, buf, sizeof(buf)) : "unknown";
		ev->clock = pa_evsel_period_is_ns(p->f, es);
		char *sname = nused == 1 ? NULL : pa_asprintf("%s_samples", name);
		if (nused != 1 && !sname)
			return -ENOMEM;
		int ret = pa_pprof_str_idx(p, sname ? sname : "samples", &ev->type_samples);
		free(sname);
		if (ret ||
		    (ret = pa_pprof_str_idx(p, nused == 1 && ev->clock ? "cpu" : name,
		                            &ev->type_period)) ||
		    (ret = pa_pprof_str_idx(p, ev->clock ? "nanoseconds" : "count",
		                            &ev->unit_period)))
			return ret;
		ev->slot = slot;
		slot += 2;
	}
	return 0;
}

/* The first used event's sampling period (see the file's comment). */
int64_t pa_pprof_event_period(struct pp *p, unsigned e)
{
	const struct pa_evsel *es = pa_file_evsel(p->f, e);
	const struct pev *ev = &p->evs[e];
	if (es && !pa_attr_flag(&es->attr, PA_ATTR_FREQ) && es->attr.sample_period)
		return es->attr.sample_period > INT64_MAX ? INT64_MAX
		                                          : (int64_t)es->attr.sample_period;
	if (es && ev->clock && es->attr.sample_period)
		return (int64_t)(1000000000ull / es->attr.sample_period);
	return ev->samples ? (int64_t)((ev->period + ev->samples / 2) / ev->samples) : 0;
}

/* ---- driver -------------------------------------------------------------------------------- */

static int prepare(struct pp *p)
{
	uint32_t empty;
	p->nr_locs = pa_resolver_nr_locs(p->r);
	p->locs = pa_resolver_locs(p->r);
	p->inl = pa_resolver_inlines(p->r);
	p->nr_evs = pa_file_nr_evsels(p->f);
	p->inl_parent = calloc(p->nr_locs + 1, sizeof(*p->inl_parent));
	p->inl_pos = calloc(p->nr_locs + 1, sizeof(*p->inl_pos));
	p->loc_ploc = calloc(p->nr_locs + 1, sizeof(*p->loc_ploc));
	p->evs = calloc(p->nr_evs + 1, sizeof(*p->evs));
	if (!p->inl_parent || !p->inl_pos || !p->loc_ploc || !p->evs ||
	    pa_pprof_str_idx(p, "", &empty))
		return -ENOMEM;
	for (size_t i = 0; i < p->nr_locs; i++) {
		const struct pa_loc *l = &p->locs[i];
		for (uint32_t k = 0; k < l->nr_inl; k++) {
			uint32_t c = p->inl[l->inl + k];
			if (c < p->nr_locs) {
				p->inl_parent[c] = (uint32_t)i + 1;
				p->inl_pos[c] = (uint16_t)k;
			}
		}
	}
	return 0;
}

static int run(struct pp *p, FILE *out)
{
	int ret;
	if ((ret = prepare(p)) || (ret = pa_trace_foreach(p->t, on_sample, NULL, p)) ||
	    (ret = finish_locations(p)) || (ret = name_events(p)))
		return ret;
	order_mappings(p);
	return pa_pprof_write(p, out);
}

int pa_export_pprof(struct pa_trace *t, const struct pa_export_opts *opts, FILE *out,
                    struct pa_err *err)
{
	struct pp p = {.t = t};
	pa_arena_init(&p.arena, 64 * 1024);
	int ret = pa_opts_check(opts, sizeof(*opts));
	if (ret) {
		ret = pa_err_set(err, -PA_ERR_USAGE, "pprof export: unknown options");
	} else {
		p.r = pa_trace_resolver(t);
		p.s = pa_trace_session(t);
		p.f = pa_session_file(p.s);
		p.cpu_label = PA_OPTS_GET(opts, struct pa_export_opts, cpu_label, false);
		ret = run(&p, out);
		if (ret == -ENOMEM)
			pa_err_set(err, ret, "pprof export: out of memory");
		else if (ret == -PA_ERR_LIMIT)
			pa_err_set(err, ret, "pprof export: too many call-chain entries");
		else if (ret)
			pa_err_set(err, ret, "pprof export: write error: %s", pa_strerror(ret));
	}
	free(p.inl_parent);
	free(p.inl_pos);
	free(p.loc_ploc);
	free(p.strs);
	free(p.str_hash);
	free(p.str_tab);
	free(p.maps);
	free(p.dso_map);
	free(p.plocs);
	free(p.ploc_tab);
	free(p.lines);
	free(p.funcs);
	free(p.func_tab);
	free(p.aggs);
	free(p.agg_tab);
	free(p.pool);
	free(p.stack);
	free(p.evs);
	pa_arena_release(&p.arena);
	return ret;
}

#endif
