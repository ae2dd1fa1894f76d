/* model.c - the report's model as samples come: locations interned once,
 * buckets of samples, the sample order (r->ordered), the memory it holds;
 * what the stream (stream.c, stack.c), the call graphs (callgraph.c) and
 * the printer (print.c) build on. The driver (report.c) is above them all. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- interning ---------------------------------------------------------- */


void pa_report_mem_grew(struct pa_report *r, size_t old_bytes, size_t new_bytes)
{
	/* (stage 2 calls this for every stack it looks up: an atomic add of
	 * nothing would still take the line from the thread reading the
	 * fields beside it, sample after sample) */
	if (new_bytes != old_bytes)
		atomic_fetch_add_explicit(&r->mem, (uint64_t)new_bytes - (uint64_t)old_bytes,
		                          memory_order_relaxed);
}

int pa_report_mem_check(struct pa_report *r, uint64_t more)
{
	uint64_t cap = pa_session_memory_cap(r->session);
	if (cap == UINT64_MAX)
		return 0;
	uint64_t used = pa_session_memory(r->session) + pa_resolver_mem(r->res) +
			atomic_load_explicit(&r->mem, memory_order_relaxed);
	if (used > cap || more > cap - used) {
		r->limit_hit = true;
		return -PA_ERR_LIMIT;
	}
	return 0;
}

int pa_report_limit_error(struct pa_report *r, struct pa_err *err)
{
	char b[32];
	return pa_err_set_at(err, -PA_ERR_LIMIT, pa_session_input_pos(r->session),
			     "samples, stacks and call graphs need more than the memory limit of "
			     "%s (--max-memory)",
			     pa_fmt_size(b, pa_session_memory_cap(r->session)));
}


int pa_report_intern_loc(struct pa_report *r, struct pa_dso *d, uint64_t addr, uint64_t ip,
			 char level, unsigned flags, uint32_t *out)
{
	return pa_resolver_intern(r->res, d, addr, ip, level, flags, out);
}

uint64_t pa_report_bucket_hash(unsigned evsel, const void *thread, const char *comm, uint32_t cpu,
			      uint32_t loc, uint32_t stack)
{
	uint64_t h = pa_hash64((uint64_t)(uintptr_t)thread ^ ((uint64_t)evsel << 48));
	h = pa_hash64(h ^ (uint64_t)(uintptr_t)comm ^ ((uint64_t)stack << 20));
	return pa_hash64(h ^ ((uint64_t)cpu << 32 | loc));
}

static int bucket_table_grow(struct pa_report *r)
{
	size_t ncap = r->bucket_table_cap ? 2 * r->bucket_table_cap : 4096;
	struct bucket_slot *t = calloc(ncap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_buckets; i++) {
		const struct bucket *b = &r->buckets[i];
		uint64_t h = pa_report_bucket_hash(b->evsel, b->thread, b->comm, b->cpu, b->loc,
						   b->stack);
		size_t j = h & (ncap - 1);
		while (t[j].id)
			j = (j + 1) & (ncap - 1);
		t[j] = (struct bucket_slot){(uint32_t)(h >> 32), (uint32_t)i + 1};
	}
	free(r->bucket_table);
	pa_report_mem_grew(r, r->bucket_table_cap * sizeof(*t), ncap * sizeof(*t));
	r->bucket_table = t;
	r->bucket_table_cap = ncap;
	return 0;
}

void pa_report_prefetch_bucket(const struct pa_report *r, uint64_t h)
{
	if (r->bucket_table_cap)
		__builtin_prefetch(&r->bucket_table[h & (r->bucket_table_cap - 1)]);
}

int pa_report_add_to_bucket(struct pa_report *r, unsigned evsel, struct pa_thread *t,
			    const char *comm, uint32_t cpu, uint32_t loc, uint32_t stack,
			    bool filtered, uint64_t period, uint64_t count, uint32_t *out)
{
	return pa_report_add_to_bucket_hashed(r, pa_report_bucket_hash(evsel, t, comm, cpu, loc, stack),
					      evsel, t, comm, cpu, loc, stack, filtered, period,
					      count, out);
}

int pa_report_log_samples(struct pa_report *r, uint32_t bucket, uint64_t period, uint64_t count)
{
	if (r->nr_slog == r->cap_slog) {
		size_t cap = r->cap_slog ? 2 * r->cap_slog : 4096;
		struct slog *p = realloc(r->slog, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		pa_report_mem_grew(r, r->cap_slog * sizeof(*p), cap * sizeof(*p));
		r->slog = p;
		r->cap_slog = cap;
	}
	r->slog[r->nr_slog++] = (struct slog){bucket, (uint32_t)count, period};
	return 0;
}

/* Returns the bucket index through *out. */
int pa_report_add_to_bucket_hashed(struct pa_report *r, uint64_t h, unsigned evsel,
				   struct pa_thread *t, const char *comm, uint32_t cpu, uint32_t loc,
				   uint32_t stack, bool filtered, uint64_t period, uint64_t count,
				   uint32_t *out)
{
	if ((r->nr_buckets + 1) * 3 >= r->bucket_table_cap * 2 && bucket_table_grow(r))
		return -ENOMEM;
	uint32_t tag = (uint32_t)(h >> 32);
	size_t mask = r->bucket_table_cap - 1;
	size_t j = h & mask;
	for (; r->bucket_table[j].id; j = (j + 1) & mask) {
		if (r->bucket_table[j].tag != tag)
			continue;
		struct bucket *b = &r->buckets[r->bucket_table[j].id - 1];
		if (b->evsel == evsel && b->thread == t && b->comm == comm && b->cpu == cpu &&
		    b->loc == loc && b->stack == stack) {
			b->period += period;
			b->count += count;
			*out = r->bucket_table[j].id - 1;
			return 0;
		}
	}
	if (r->nr_buckets == r->cap_buckets) {
		size_t cap = r->cap_buckets ? r->cap_buckets * 2 : 1024;
		void *p = realloc(r->buckets, cap * sizeof(*r->buckets));
		if (!p)
			return -ENOMEM;
		pa_report_mem_grew(r, r->cap_buckets * sizeof(*r->buckets), cap * sizeof(*r->buckets));
		r->buckets = p;
		r->cap_buckets = cap;
	}
	r->buckets[r->nr_buckets] = (struct bucket){.evsel = (uint16_t)evsel,
						    .thread = t,
						    .comm = comm,
						    .cpu = cpu,
						    .loc = loc,
						    .stack = stack,
						    .filtered = filtered,
						    .period = period,
						    .count = count};
	r->bucket_table[j] = (struct bucket_slot){tag, (uint32_t)++r->nr_buckets};
	*out = (uint32_t)(r->nr_buckets - 1);
	return 0;
}

/* ---- streaming ------------------------------------------------------------ */

bool pa_report_sample_filtered(struct pa_report *r, struct pa_thread *t, const char *comm,
			       const struct pa_addr_loc *al)
{
	/* perf report (not perf kvm) hides guest samples but counts them */
	if (al->cpumode == PA_MISC_GUEST_KERNEL || al->cpumode == PA_MISC_GUEST_USER)
		return true;
	if (!pa_filter_thread(&r->filter, t, comm))
		return true;
	if (r->filter.nr_dsos && !pa_filter_dso(&r->filter, al->map ? al->dso : NULL))
		return true;
	return false;
}

