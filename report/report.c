/* report.c - sample buckets, rows, perf report's stdio layout. */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A --sort or --fields list -> key ids in out[*n]. */
static int parse_keys(const struct pa_report *r, const char *list, bool fields, int *out,
                      unsigned *n, unsigned cap, struct pa_err *err)
{
	while (*list) {
		size_t len = strcspn(list, ",");
		int k = pa_key_find(list, len);
		if (k >= K_FIRST_BRANCH && !r->branch)
			k = -1; /* perf: "Invalid --sort key" outside branch mode */
		if (k < 0 || (!fields && !pa_keys[k].is_sort))
			return pa_err_set(err, PA_ERR_USAGE, "unknown --%s key '%.*s'",
			                  fields ? "fields" : "sort", (int)len, list);
		if (*n >= cap)
			return pa_err_set(err, PA_ERR_USAGE, "too many keys");
		out[(*n)++] = k;
		list += len + (list[len] == ',');
	}
	return 0;
}

static bool in_list(const int *v, unsigned n, int k)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i] == k)
			return true;
	return false;
}

/* v[0, n) without repeats, first places kept; the new count */
static unsigned uniq(int *v, unsigned n)
{
	unsigned nu = 0;
	for (unsigned i = 0; i < n; i++)
		if (!in_list(v, nu, v[i]))
			v[nu++] = v[i];
	return nu;
}

/* perf's lists (sort.c's setup_sorting): the sort keys decide entries in
 * their order, then the output fields not among them; the columns are the
 * output fields, then the sort keys not among them. Without --fields (or
 * with one that starts with '+', adding to the default) the output fields
 * are the value columns, and the overhead ones lead the output sort
 * (perf's "backward compatibility" prefix); a --sort that starts with '+'
 * adds to the default keys. */
static int setup_keys(struct pa_report *r, struct pa_err *err)
{
	const char *deflt =
	    r->branch ? "comm,dso_from,symbol_from,symbol_to,cycles" : "comm,dso,sym";
	const char *fields = r->opts.fields;
	int sk[8], fk[12];
	unsigned ns = 0, nf = 0;
	int ret = 0;
	bool strict = pa_report_strict_fields(r);
	if (!strict) {
		if (r->opts.children)
			fk[nf++] = K_CHILDREN;
		fk[nf++] = K_OVERHEAD;
		if (r->opts.show_nr_samples)
			fk[nf++] = K_SAMPLE;
		if (r->opts.show_total_period)
			fk[nf++] = K_PERIOD;
	}
	if (fields)
		ret = parse_keys(r, fields + !strict, true, fk, &nf, PA_ARRAY_SIZE(fk), err);
	/* (strict --fields alone: no sort keys but its own) */
	const char *sort = r->opts.sort ? r->opts.sort : strict ? "" : deflt;
	if (!ret && *sort == '+')
		ret = parse_keys(r, deflt, false, sk, &ns, PA_ARRAY_SIZE(sk), err);
	if (!ret)
		ret = parse_keys(r, sort + (*sort == '+'), false, sk, &ns, PA_ARRAY_SIZE(sk), err);
	if (ret)
		return ret;
	/* (a key or field given twice is one: perf's "taken") */
	nf = uniq(fk, nf);
	ns = uniq(sk, ns);
	if (!strict)
		for (unsigned i = 0; i < nf && (fk[i] == K_CHILDREN || fk[i] == K_OVERHEAD); i++)
			r->osort[r->nr_osort++] = fk[i];
	for (unsigned i = 0; i < ns; i++)
		r->osort[r->nr_osort++] = r->keys[r->nr_keys++] = sk[i];
	for (unsigned i = 0; i < nf; i++) {
		if (in_list(sk, ns, fk[i]) || in_list(r->osort, r->nr_osort, fk[i]))
			continue;
		/* (a value field makes no key: only a sort key can overflow) */
		if (pa_keys[fk[i]].is_sort && r->nr_keys >= PA_ARRAY_SIZE(r->keys))
			return pa_err_set(err, PA_ERR_USAGE, "too many keys");
		r->osort[r->nr_osort++] = fk[i];
		if (pa_keys[fk[i]].is_sort)
			r->keys[r->nr_keys++] = fk[i];
	}
	for (unsigned i = 0; i < nf; i++)
		r->cols[r->nr_cols++] = fk[i];
	for (unsigned i = 0; i < ns; i++)
		if (!in_list(fk, nf, sk[i])) {
			if (r->nr_cols >= PA_ARRAY_SIZE(r->cols))
				return pa_err_set(err, PA_ERR_USAGE, "too many keys");
			r->cols[r->nr_cols++] = sk[i];
		}
	return 0;
}

static int compile_re(regex_t *re, bool *has, const char *pattern, const char *what,
		      struct pa_err *err)
{
	/* perf compiles these as POSIX extended regexps without REG_NOSUB
	 * flags that would change matching; so does pa */
	if (regcomp(re, pattern, REG_EXTENDED))
		return pa_err_set(err, PA_ERR_USAGE, "bad %s regex '%s'", what, pattern);
	*has = true;
	return 0;
}

/* perf's -g argument: print_type,threshold[,print_limit],order,sort_key,value
 * in any order; each word may be abbreviated; "none" turns graphs off. */
static bool word_is(const char *tok, const char *word)
{
	return *tok && !strncmp(tok, word, strlen(tok));
}

static int parse_call_graph(struct pa_report *r, struct pa_err *err)
{
	struct cg_params *p = &r->cg;
	bool order_set = false, minpcnt_set = false;
	p->mode = CG_GRAPH;
	p->min_percent = 0.5;
	p->value = CG_PERCENT;
	p->children = r->opts.children;
	p->max_stack = r->opts.max_stack > 0 ? r->opts.max_stack : 127;
	const char *s = r->opts.call_graph;
	while (s && *s) {
		size_t n = strcspn(s, ",");
		char tok[64];
		if (n >= sizeof(tok))
			return pa_err_set(err, PA_ERR_USAGE, "bad -g argument '%s'", r->opts.call_graph);
		memcpy(tok, s, n);
		tok[n] = 0;
		s += n + (s[n] == ',');
		if (!n)
			continue;
		if (word_is(tok, "none")) {
			p->mode = CG_NONE;
			break;
		}
		if (word_is(tok, "graph"))
			p->mode = CG_GRAPH;
		else if (word_is(tok, "flat"))
			p->mode = CG_FLAT;
		else if (word_is(tok, "fractal"))
			p->mode = CG_FRACTAL;
		else if (word_is(tok, "folded"))
			p->mode = CG_FOLDED;
		else if (word_is(tok, "caller"))
			p->caller = order_set = true;
		else if (word_is(tok, "callee"))
			p->caller = false, order_set = true;
		else if (word_is(tok, "function"))
			p->address_key = false;
		else if (word_is(tok, "address"))
			p->address_key = true;
		else if (word_is(tok, "percent"))
			p->value = CG_PERCENT;
		else if (word_is(tok, "period"))
			p->value = CG_PERIOD;
		else if (word_is(tok, "count"))
			p->value = CG_COUNT;
		else {
			char *end;
			double v = strtod(tok, &end);
			if (end == tok)
				return pa_err_set(err, PA_ERR_USAGE, "bad -g argument '%s'", tok);
			if (!minpcnt_set) {
				p->min_percent = v;
				minpcnt_set = true;
			} else {
				p->print_limit = (uint32_t)strtoul(tok, NULL, 0);
			}
		}
	}
	if (r->opts.has_call_graph_threshold)
		p->min_percent = r->opts.call_graph_threshold;
	/* perf report: with --children, callers first unless told */
	if (!order_set)
		p->caller = p->children;
	/* the graph does not repeat the row's symbol when --sort starts with it */
	p->skip_first =
	    !pa_report_strict_fields(r) && r->opts.sort && !strncmp(r->opts.sort, "sym", 3);
	return 0;
}

struct pa_report *pa_report_new(struct pa_session *s, const struct pa_report_opts *opts,
				struct pa_err *err)
{
	/* (aligned: stage 2's fields on lines of their own) */
	struct pa_report *r = PA_ZALLOC_ALIGNED(struct pa_report);
	if (!r) {
		pa_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	r->session = s;
	if (opts)
		memcpy(&r->opts, opts, opts->sz < sizeof(r->opts) ? opts->sz : sizeof(r->opts));
	pa_arena_init(&r->arena, 16 * 1024);
	struct pa_file *f = pa_session_file(s);
	int ret = 0;
	if (r->opts.branch) {
		r->branch = true;
		r->opts.children = r->opts.callchain = false;
		ret = pa_branches_new(r);
	}
	if (!ret)
		ret = setup_keys(r, err);
	if (!ret && r->opts.parent) {
		/* like perf, --parent adds the parent column when missing */
		bool have = false;
		for (unsigned i = 0; i < r->nr_keys; i++)
			have |= r->keys[i] == K_PARENT;
		if (!have && r->nr_cols < PA_ARRAY_SIZE(r->cols) &&
		    r->nr_keys < PA_ARRAY_SIZE(r->keys) && r->nr_osort < PA_ARRAY_SIZE(r->osort)) {
			r->cols[r->nr_cols++] = K_PARENT;
			r->keys[r->nr_keys++] = K_PARENT;
			r->osort[r->nr_osort++] = K_PARENT;
		}
	}
	if (!ret && !r->opts.parent)
		for (unsigned i = 0; i < r->nr_keys; i++)
			if (r->keys[i] == K_PARENT)
				r->opts.parent = "^sys_|^do_page_fault"; /* perf's default */
	const struct pa_header_info *hdr = pa_file_header(f);
	struct pa_filter_spec spec = {.dsos = r->opts.dsos,
	                              .comms = r->opts.comms,
	                              .symbols = r->opts.symbols,
	                              .pids = r->opts.pids,
	                              .tids = r->opts.tids,
	                              .cpus = r->opts.cpus,
	                              .time = r->opts.time,
	                              .events = r->opts.events,
	                              .first_time = hdr->first_sample_time,
	                              .last_time = hdr->last_sample_time};
	if (!ret)
		ret = pa_filter_parse(&r->filter, &r->arena, &spec, err);
	if (!ret)
		ret = parse_call_graph(r, err);
	if (!ret && r->opts.parent)
		ret = compile_re(&r->parent_re, &r->has_parent_re, r->opts.parent, "--parent", err);
	if (!ret && r->opts.ignore_callees)
		ret = compile_re(&r->ignore_re, &r->has_ignore_re, r->opts.ignore_callees,
				 "--ignore-callees", err);
	if (!ret && r->opts.trim_frames)
		ret = compile_re(&r->trim_re, &r->has_trim_re, r->opts.trim_frames, "--trim-frames",
				 err);
	r->chains = r->opts.callchain;
	for (unsigned i = 0; i < r->nr_keys && r->keys[i] != K_DSO; i++)
		r->ordered |= r->keys[i] == K_SYM;
	/* perf's mispredict, in_tx and abort comparators say only equal
	 * or not */
	for (unsigned i = 0; i < r->nr_keys; i++)
		r->ordered |=
		    r->keys[i] == K_MISPREDICT || r->keys[i] == K_IN_TX || r->keys[i] == K_ABORT;
	/* perf compares inline frames' symbols by name, others by address:
	 * no order either, where --children makes entries of inline frames
	 * (unwound chains) */
	r->ordered |=
	    r->chains && r->opts.children && !r->opts.no_inline && pa_file_records_user_stacks(f);
	struct pa_resolver_opts ro = {.sz = sizeof(ro),
	                              .no_demangle = r->opts.no_demangle,
	                              .demangle_params = r->opts.verbose_columns,
	                              .no_threads = r->opts.no_threads,
	                              .symfs = r->opts.symfs,
	                              .buildid_dir = r->opts.buildid_dir,
	                              .kallsyms = r->opts.kallsyms,
	                              .vmlinux = r->opts.vmlinux};
	if (!ret && !(r->res = pa_resolver_new(s, &ro, err)))
		ret = err ? err->code : -ENOMEM;
	if (ret == -ENOMEM)
		pa_err_set(err, ret, "out of memory");
	if (ret) {
		pa_report_free(r);
		return NULL;
	}
	return r;
}

void pa_report_free(struct pa_report *r)
{
	if (!r)
		return;
	free(r->buckets);
	free(r->slog);
	free(r->fast);
	free(r->bucket_table);
	free(r->first_time);
	free(r->total_period);
	free(r->total_samples);
	pa_stream_free(r);
	pa_seqset_release(&r->stacks);
	free(r->frames);
	pa_cg_free(r);
	if (r->has_parent_re)
		regfree(&r->parent_re);
	if (r->has_ignore_re)
		regfree(&r->ignore_re);
	if (r->has_trim_re)
		regfree(&r->trim_re);
	pa_resolver_free(r->res);
	pa_branches_free(r);
	pa_readvals_free(r);
	pa_arena_release(&r->arena);
	free(r);
}

static int grow_totals(struct pa_report *r, unsigned n)
{
	uint64_t *p = realloc(r->total_period, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	r->total_period = p;
	uint64_t *q = realloc(r->total_samples, n * sizeof(*q));
	if (!q)
		return -ENOMEM;
	r->total_samples = q;
	for (unsigned i = r->nr_evsels; i < n; i++)
		r->total_period[i] = r->total_samples[i] = 0;
	r->nr_evsels = n;
	return 0;
}

/* A summing report: bucket b's earliest sample time so far, t or before. */
static int note_first_time(struct pa_report *r, uint32_t b, uint64_t t)
{
	size_t old = r->cap_first_time;
	if (PA_GROW(r->first_time, r->cap_first_time, (size_t)b + 1, 1024))
		return -ENOMEM;
	if (r->cap_first_time != old) {
		pa_report_mem_grew(r, old * sizeof(uint64_t), r->cap_first_time * sizeof(uint64_t));
		for (size_t i = old; i < r->cap_first_time; i++)
			r->first_time[i] = UINT64_MAX;
	}
	if (t < r->first_time[b])
		r->first_time[b] = t;
	return 0;
}

/* A slot's waiting sums to its bucket. */
static int fast_flush(struct pa_report *r, struct fast_slot *fs)
{
	if (!fs->evsel_mode || !fs->count)
		return 0;
	r->buckets[fs->bucket].period += fs->period;
	r->buckets[fs->bucket].count += fs->count;
	fs->period = 0;
	fs->count = 0;
	uint64_t t = fs->time;
	fs->time = UINT64_MAX;
	return t != UINT64_MAX && r->summing ? note_first_time(r, fs->bucket, t) : 0;
}

static struct fast_slot *fast_slot(struct pa_report *r, const struct pa_event *ev,
				   const struct pa_thread *t, uint32_t cpu, uint32_t evsel_mode)
{
	uint64_t h = pa_hash64(ev->sample.ip ^ ((uint64_t)(uintptr_t)t << 7) ^ cpu ^
			       ((uint64_t)evsel_mode << 40));
	return &r->fast[h & (FAST_SLOTS - 1)];
}

static int on_sample(void *ctx, struct pa_session *s, const struct pa_event *ev,
		     struct pa_thread *t, const struct pa_addr_loc *al)
{
	struct pa_report *r = ctx;
	unsigned e = ev->evsel ? ev->evsel->idx : 0;
	if (e >= r->nr_evsels && grow_totals(r, e + 1))
		return -ENOMEM;
	if (!pa_filter_evsel(&r->filter, ev->evsel, e))
		return 0;
	uint64_t period = ev->sample.period;
	/* Like perf, --cpu and --time drop samples before anything counts
	 * them; the other filters only hide rows (absolute percentages). */
	uint32_t cpu = (ev->sample.type & PA_SAMPLE_CPU) ? ev->sample.cpu : UINT32_MAX;
	if (r->filter.has_cpus && !(ev->sample.type & PA_SAMPLE_CPU))
		return PA_ERR_USAGE; /* pipe files: only known once samples come */
	if (!pa_filter_cpu_time(&r->filter, cpu, ev->sample.time))
		return 0;
	if (r->branch) {
		struct pa_addr_loc lb;
		return pa_branch_sample(r, s, ev, pa_session_resolved(s, ev, al, &lb), e, cpu);
	}
	r->total_period[e] += period;
	if (!(++r->total_samples[e] & 4095) && pa_report_mem_check(r, 0))
		return -PA_ERR_LIMIT;
	if (r->chains)
		return pa_stream_sample(r, s, ev, t, al, e, cpu, period);

	const char *comm = pa_thread_comm(t);
	uint32_t evsel_mode = (uint32_t)e << 8 | (ev->misc & PA_MISC_CPUMODE_MASK);
	uint64_t gen = pa_session_maps_generation(s);
	struct fast_slot *fs = fast_slot(r, ev, t, cpu, evsel_mode);
	if (fs->evsel_mode == (evsel_mode | FAST_VALID) && fs->ip == ev->sample.ip &&
	    fs->thread == t && fs->comm == comm && fs->cpu == cpu && fs->generation == gen) {
		fs->period += period;
		fs->count++;
		fs->time = ev->sample.time < fs->time ? ev->sample.time : fs->time;
		return r->ordered ? pa_report_log_samples(r, fs->bucket, period, 1) : 0;
	}
	if (fast_flush(r, fs))
		return -ENOMEM;
	/* A filtered sample still makes (or joins) an entry, hidden unless an
	 * unfiltered one made it first: perf's entries merge samples by key
	 * alone, and some filters (guest samples) are not keys. */
	uint32_t bucket = UINT32_MAX, loc;
	struct pa_addr_loc lbuf;
	al = pa_session_resolved(s, ev, al, &lbuf);
	bool found = al->map != NULL;
	bool filtered = pa_report_sample_filtered(r, t, comm, al);
	if (pa_report_intern_loc(r, found ? al->dso : NULL, found ? al->addr : ev->sample.ip, 0,
				 al->level, al->cpumode == PA_MISC_KERNEL ? PA_LOC_KERNEL : 0, &loc) ||
	    pa_report_add_to_bucket(r, e, t, comm, cpu, loc, 0, filtered, period, 1, &bucket))
		return -ENOMEM;
	if (r->first_evsel < 0 && !filtered)
		r->first_evsel = (int)e;
	if (r->ordered && bucket != UINT32_MAX && pa_report_log_samples(r, bucket, period, 1))
		return -ENOMEM;
	if (r->summing && bucket != UINT32_MAX && note_first_time(r, bucket, ev->sample.time))
		return -ENOMEM;
	*fs = (struct fast_slot){.ip = ev->sample.ip,
	                         .generation = gen,
	                         .thread = t,
	                         .comm = comm,
	                         .time = UINT64_MAX,
	                         .cpu = cpu,
	                         .evsel_mode = evsel_mode | FAST_VALID,
	                         .bucket = bucket};
	return 0;
}

/* perf widens the DSO column to an unresolved address's width when any
 * entry has no symbol. Known without symbols when a location has no DSO
 * or a DSO name is that wide already (a kernel's): else symbols decide. */
static bool dso_width_needs_syms(const struct pa_report *r)
{
	bool dso_col = false;
	for (unsigned c = 0; c < r->nr_cols; c++)
		dso_col |= r->cols[c] == K_DSO;
	if (!dso_col || r->filter.nr_dsos)
		return false;
	/* (each event's section is sized apart: one event whose rows have
	 * only short names is enough) */
	const struct pa_loc *l = pa_report_locs(r);
	uint8_t *wide = calloc(r->nr_evsels + 1, 1), *used = calloc(r->nr_evsels + 1, 1);
	bool needs = !wide || !used; /* (no memory: read them, the safe side) */
	for (size_t i = 0; !needs && i < r->nr_buckets; i++) {
		const struct bucket *b = &r->buckets[i];
		const struct pa_dso *d = l[b->loc].dso;
		used[b->evsel] = 1;
		wide[b->evsel] |= !d || strlen(d->short_name) >= PA_UNRESOLVED_WIDTH;
	}
	for (unsigned e = 0; !needs && e < r->nr_evsels; e++)
		needs = used[e] && !wide[e];
	free(wide);
	free(used);
	return needs;
}

int pa_report_run(struct pa_report *r, struct pa_err *err)
{
	struct pa_file *f = pa_session_file(r->session);
	r->first_evsel = -1;
	for (unsigned i = 0; i < r->nr_keys; i++)
		r->need_cpu |= r->keys[i] == K_CPU;
	if (r->chains && pa_stream_start(r))
		return pa_err_set(err, -ENOMEM, "out of memory");
	/* the fast slots of a flat report's samples (512 KB: call-chain and
	 * branch samples go their own ways and would only fault them in) */
	bool flat = !r->chains && !r->branch;
	if (flat && !(r->fast = calloc(FAST_SLOTS, sizeof(*r->fast))))
		return pa_err_set(err, -ENOMEM, "out of memory");
	if (grow_totals(r, pa_file_nr_evsels(f) + 1))
		return pa_err_set(err, -ENOMEM, "out of memory");
	if (r->filter.has_cpus)
		for (unsigned i = 0; i < pa_file_nr_evsels(f); i++)
			if (!(pa_file_evsel(f, i)->attr.sample_type & PA_SAMPLE_CPU))
				return pa_err_set(err, PA_ERR_USAGE,
						  "--cpu needs samples that record the cpu");
	/* symbols only where the output shows them: call chains, the
	 * symbol keys, the --symbols filter, -v's notes */
	/* (branch mode: always, the source locations would mislead
	 * dso_width_needs_syms) */
	bool syms = r->chains || r->filter.nr_syms || r->opts.all_symbols || r->branch;
	bool srclines = false;
	for (unsigned i = 0; i < r->nr_keys; i++) {
		syms |= pa_keys[r->keys[i]].syms;
		srclines |= r->keys[i] == K_SRCLINE;
	}
	if (syms)
		pa_resolver_preload(r->res, srclines, r->chains && !r->opts.no_inline);
	if (r->opts.show_threads && pa_readvals_start(r))
		return pa_err_set(err, -ENOMEM, "out of memory");
	/* a flat report whose entries' order is not the samples' (r->ordered)
	 * only sums them */
	bool summing = !r->chains && !r->branch && !r->ordered;
	pa_session_set_summing(r->session, summing);
	/* (in file order, perf's entries are made in that order too) */
	r->summing = summing && pa_session_in_time_order(r->session);
	int ret = pa_session_process(r->session, on_sample, r, err);
	for (size_t i = 0; flat && i < FAST_SLOTS; i++)
		if (fast_flush(r, &r->fast[i]) && !ret)
			ret = -ENOMEM;
	int sret = r->chains ? pa_stream_finish(r) : 0;
	if (!ret && sret)
		ret = sret;
	if (!ret)
		ret = pa_report_mem_check(r, 0);
	if (ret)
		pa_resolver_abort(r->res);
	if (ret == -PA_ERR_LIMIT && r->limit_hit)
		return pa_report_limit_error(r, err);
	if (ret == PA_ERR_USAGE)
		return pa_err_set(err, PA_ERR_USAGE, "--cpu needs samples that record the cpu");
	if (ret == -ENOMEM)
		return pa_err_set(err, ret, "out of memory");
	if (ret)
		return ret;
	syms = syms || dso_width_needs_syms(r);
	if (syms ? pa_resolver_symbolize(r->res, srclines, r->chains && !r->opts.no_inline)
	         : pa_resolver_locate(r->res))
		return pa_err_set(err, -ENOMEM, "out of memory");
	/* what only the stream needed */
	pa_stream_free(r);
	size_t stacks_before = pa_seqset_bytes(&r->stacks);
	pa_seqset_drop_table(&r->stacks);
	pa_report_mem_grew(r, r->bucket_table_cap * sizeof(*r->bucket_table) + stacks_before,
	                   pa_seqset_bytes(&r->stacks));
	free(r->fast);
	free(r->bucket_table);
	r->fast = NULL;
	r->bucket_table = NULL;
	r->bucket_table_cap = 0;
	/* call-chain mode keeps filtered samples: --symbols needs the names */
	if (r->chains && r->filter.nr_syms)
		for (size_t i = 0; i < r->nr_buckets; i++) {
			const struct pa_sym *sym = pa_report_locs(r)[r->buckets[i].loc].sym;
			r->buckets[i].filtered |= !pa_filter_sym(&r->filter, sym ? sym->name : NULL);
		}
	return 0;
}

void pa_report_foreach_dso_note(struct pa_report *r, pa_report_dso_note_fn fn, void *ctx)
{
	pa_resolver_foreach_dso_note(r->res, fn, ctx);
}

/* Every sample made or joined a bucket, filtered or not (model.c), and
 * every location of a sample or of its call chain is interned, so the
 * buckets hold every comm and the locations every DSO and symbol a
 * filter could have matched; repeated names are not skipped except for
 * runs of the same one. */
int pa_report_foreach_name(const struct pa_report *r, enum pa_report_name kind,
                           pa_report_name_fn fn, void *ctx)
{
	const struct pa_loc *locs = r->res ? pa_report_locs(r) : NULL;
	size_t n = kind == PA_REPORT_NAME_COMM ? r->nr_buckets
	           : locs                      ? pa_resolver_nr_locs(r->res)
	                                       : 0;
	const char *prev = NULL;
	for (size_t i = 0; i < n; i++) {
		const char *a = NULL, *c = NULL;
		if (kind == PA_REPORT_NAME_COMM)
			a = r->buckets[i].comm;
		else if (kind == PA_REPORT_NAME_SYM)
			a = locs[i].sym ? locs[i].sym->name : NULL;
		else if (locs[i].dso)
			a = locs[i].dso->short_name, c = locs[i].dso->long_name;
		if (!a || a == prev)
			continue;
		prev = a;
		int ret = fn(ctx, a);
		if (!ret && c && strcmp(a, c))
			ret = fn(ctx, c);
		if (ret)
			return ret;
	}
	return 0;
}
