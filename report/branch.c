/* branch.c - perf report's branch mode: when the samples carry branch
 * stacks (perf record -b), each branch entry of a sample is one entry of
 * the histogram, of period 1 (perf counts branches taken, not samples):
 * its DSO, symbol and address those of the branch target, the branch's
 * source and flags beside them (the from/to sort keys, keys.c). perf's
 * "Branch Statistics" (branch types of the entries) follow the report.
 *
 * A bucket's stack field holds its branch (pair id, below) in this mode:
 * no call chains are kept (perf appends none to branch entries). */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The flag bits kept: mispred, predicted, in_tx, abort, cycles (the sort
 * keys'), type, spec, new_type (the statistics'), formats.h's layout. */
#define KEY_FLAGS 0x3fffffffull

struct pa_branches {
	struct pa_branch_pair *pairs;
	size_t nr, cap;
	uint32_t *table; /* pair id + 1, 0 empty */
	size_t table_cap;
	/* perf's branch_type_stat */
	uint64_t counts[16], new_counts[16], cond_fwd, cond_bwd, cross_4k, cross_2m;
};

int pa_branches_new(struct pa_report *r)
{
	r->br = calloc(1, sizeof(*r->br));
	return r->br ? 0 : -ENOMEM;
}

void pa_branches_free(struct pa_report *r)
{
	if (!r->br)
		return;
	free(r->br->pairs);
	free(r->br->table);
	free(r->br);
	r->br = NULL;
}

const struct pa_branch_pair *pa_branch_pair(const struct pa_report *r, uint32_t id)
{
	return &r->br->pairs[id];
}

static uint64_t pair_hash(const struct pa_branch_pair *p)
{
	return pa_hash64((uint64_t)p->from << 24 ^ (uint64_t)(unsigned char)p->level << 56 ^
	                 p->flags ^ (uint64_t)p->sample << 32);
}

static int table_grow(struct pa_branches *b)
{
	size_t cap = b->table_cap ? b->table_cap * 2 : 1024;
	uint32_t *t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < b->nr; i++) {
		size_t j = pair_hash(&b->pairs[i]) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(b->table);
	b->table = t;
	b->table_cap = cap;
	return 0;
}

/* The id of the pair, made when new. */
static int pair_intern(struct pa_branches *b, const struct pa_branch_pair *key, uint32_t *out)
{
	if ((b->nr + 1) * 2 >= b->table_cap && table_grow(b))
		return -ENOMEM;
	size_t mask = b->table_cap - 1, j = pair_hash(key) & mask;
	for (; b->table[j]; j = (j + 1) & mask) {
		const struct pa_branch_pair *p = &b->pairs[b->table[j] - 1];
		if (p->from == key->from && p->sample == key->sample && p->level == key->level &&
		    p->flags == key->flags) {
			*out = b->table[j] - 1;
			return 0;
		}
	}
	if (PA_GROW(b->pairs, b->cap, b->nr + 1, 256))
		return -ENOMEM;
	b->pairs[b->nr] = *key;
	b->table[j] = (uint32_t)++b->nr;
	*out = (uint32_t)b->nr - 1;
	return 0;
}

/* perf's branch_type_count, n times: typed branches with a source only.
 * perf counts each branch entry by the hist entry it joins, whose branch
 * is the one that made it (so the statistics depend on the sort keys). */
void pa_branch_count_entry(const struct pa_report *r, const struct hkey *k, uint64_t n)
{
	struct pa_branches *b = r->br;
	struct pa_branch_flags f = pa_branch_flags(k->bflags);
	uint64_t from = k->ip_from, to = k->ip;
	if (!f.type || !from)
		return;
	if (f.type == 15) /* PERF_BR_EXTEND_ABI: the new_type field says */
		b->new_counts[f.new_type] += n;
	else
		b->counts[f.type] += n;
	if (f.type == 1) /* PERF_BR_COND */
		*(to > from ? &b->cond_fwd : &b->cond_bwd) += n;
	if ((from >> 21) != (to >> 21))
		b->cross_2m += n;
	else if ((from >> 12) != (to >> 12))
		b->cross_4k += n;
}

/* A branch end's location: the map perf finds for it in any cpumode. */
static int end_loc(struct pa_report *r, struct pa_session *s, struct pa_thread *t, uint64_t addr,
                   struct pa_addr_loc *al, uint32_t *out)
{
	bool found = pa_session_find_branch_map(s, t, addr, al);
	return pa_report_intern_loc(
	    r, found ? al->dso : NULL, found ? al->addr : addr, addr, al->level,
	    al->cpumode == PA_MISC_KERNEL && found ? PA_LOC_KERNEL : 0, out);
}

int pa_branch_sample(struct pa_report *r, struct pa_session *s, const struct pa_event *ev,
                     const struct pa_addr_loc *al, unsigned evsel, uint32_t cpu)
{
	const struct pa_sample *sm = &ev->sample;
	struct pa_thread *t = al->thread;
	const char *comm = pa_thread_comm(t);
	/* the entries are filtered as the sample (perf: its al->filtered)
	 * and show its level where a key shows the entry's (addr_from/to) */
	bool filtered = pa_report_sample_filtered(r, t, comm, al);
	uint8_t mode = ev->misc & PA_MISC_CPUMODE_MASK;
	struct pa_branch_pair key = {.sample = UINT32_MAX,
	                             .level = mode == PA_MISC_USER     ? '.'
	                                      : mode == PA_MISC_KERNEL ? 'k'
	                                                               : 'H'};
	if (r->filter.nr_syms &&
	    pa_report_intern_loc(r, al->map ? al->dso : NULL, al->map ? al->addr : sm->ip, 0,
	                         al->level, mode == PA_MISC_KERNEL ? PA_LOC_KERNEL : 0,
	                         &key.sample))
		return -ENOMEM;
	for (uint64_t i = 0; sm->branch.entries && i < sm->branch.nr; i++) {
		const uint64_t *e = sm->branch.entries + 3 * i;
		struct pa_addr_loc to, from;
		uint32_t lto, pair, bucket;
		key.flags = e[2] & KEY_FLAGS;
		if (end_loc(r, s, t, e[1], &to, &lto) || end_loc(r, s, t, e[0], &from, &key.from) ||
		    pair_intern(r->br, &key, &pair))
			return -ENOMEM;
		if (pa_report_add_to_bucket(r, evsel, t, comm, cpu, lto, pair, filtered, 1, 1,
		                            &bucket))
			return -ENOMEM;
		if (r->first_evsel < 0 && !filtered)
			r->first_evsel = (int)evsel;
		if (r->ordered && pa_report_log_samples(r, bucket, 1, 1))
			return -ENOMEM;
		r->total_period[evsel]++;
		r->total_samples[evsel]++;
	}
	return 0;
}

void pa_branch_shown_mispredict(struct pa_report *r, struct hkey *k)
{
	struct pa_branch_flags f = pa_branch_flags(k->bflags);
	if (f.predicted)
		r->mp_last = "N";
	else if (f.mispred)
		r->mp_last = "Y";
	else if (!r->mp_last)
		r->mp_last = "N/A";
	k->mp_shown = r->mp_last;
}

static void stat_line(FILE *out, const char *name, uint64_t n, uint64_t total)
{
	if (n)
		fprintf(out, "\n%8s: %5.1f%%", name, 100.0 * (double)n / (double)total);
}

void pa_branch_print_stats(const struct pa_report *r, FILE *out)
{
	const struct pa_branches *b = r->br;
	uint64_t total = 0;
	for (unsigned i = 0; i < 16; i++)
		total += b->counts[i];
	if (!total)
		return;
	fputs("\n#\n# Branch Statistics:\n#", out);
	stat_line(out, "COND_FWD", b->cond_fwd, total);
	stat_line(out, "COND_BWD", b->cond_bwd, total);
	stat_line(out, "CROSS_4K", b->cross_4k, total);
	stat_line(out, "CROSS_2M", b->cross_2m, total);
	for (unsigned i = 0; i < 16; i++)
		stat_line(out, pa_branch_type_name(i), b->counts[i], total);
	/* (perf ends the output there, without a newline) */
}
