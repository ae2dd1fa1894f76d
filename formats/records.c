/* records.c - one record's bytes -> struct pa_event, in host order. */
#include "internal.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

static const char *const rec_names[PA_REC_USER_MAX] = {
	[PA_REC_MMAP] = "MMAP",
	[PA_REC_LOST] = "LOST",
	[PA_REC_COMM] = "COMM",
	[PA_REC_EXIT] = "EXIT",
	[PA_REC_THROTTLE] = "THROTTLE",
	[PA_REC_UNTHROTTLE] = "UNTHROTTLE",
	[PA_REC_FORK] = "FORK",
	[PA_REC_READ] = "READ",
	[PA_REC_SAMPLE] = "SAMPLE",
	[PA_REC_MMAP2] = "MMAP2",
	[PA_REC_AUX] = "AUX",
	[PA_REC_ITRACE_START] = "ITRACE_START",
	[PA_REC_LOST_SAMPLES] = "LOST_SAMPLES",
	[PA_REC_SWITCH] = "SWITCH",
	[PA_REC_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PA_REC_NAMESPACES] = "NAMESPACES",
	[PA_REC_KSYMBOL] = "KSYMBOL",
	[PA_REC_BPF_EVENT] = "BPF_EVENT",
	[PA_REC_CGROUP] = "CGROUP",
	[PA_REC_TEXT_POKE] = "TEXT_POKE",
	[PA_REC_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
	[PA_REC_CALLCHAIN_DEFERRED] = "CALLCHAIN_DEFERRED",
	[PA_REC_HEADER_ATTR] = "HEADER_ATTR",
	[PA_REC_HEADER_EVENT_TYPE] = "HEADER_EVENT_TYPE",
	[PA_REC_HEADER_TRACING_DATA] = "HEADER_TRACING_DATA",
	[PA_REC_HEADER_BUILD_ID] = "HEADER_BUILD_ID",
	[PA_REC_FINISHED_ROUND] = "FINISHED_ROUND",
	[PA_REC_ID_INDEX] = "ID_INDEX",
	[PA_REC_AUXTRACE_INFO] = "AUXTRACE_INFO",
	[PA_REC_AUXTRACE] = "AUXTRACE",
	[PA_REC_AUXTRACE_ERROR] = "AUXTRACE_ERROR",
	[PA_REC_THREAD_MAP] = "THREAD_MAP",
	[PA_REC_CPU_MAP] = "CPU_MAP",
	[PA_REC_STAT_CONFIG] = "STAT_CONFIG",
	[PA_REC_STAT] = "STAT",
	[PA_REC_STAT_ROUND] = "STAT_ROUND",
	[PA_REC_EVENT_UPDATE] = "EVENT_UPDATE",
	[PA_REC_TIME_CONV] = "TIME_CONV",
	[PA_REC_HEADER_FEATURE] = "FEATURE",
	[PA_REC_COMPRESSED] = "COMPRESSED",
	[PA_REC_FINISHED_INIT] = "FINISHED_INIT",
	[PA_REC_COMPRESSED2] = "COMPRESSED2",
	[PA_REC_BPF_METADATA] = "BPF_METADATA",
};

const char *pa_branch_type_name(unsigned type)
{
	static const char *const names[] = {
	    "N/A",    "COND",      "UNCOND",   "IND",  "CALL", "IND_CALL", "RET",   "SYSCALL",
	    "SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ",  "SERROR",   "NO_TX", "EXTEND_ABI"};
	return type < PA_ARRAY_SIZE(names) ? names[type] : NULL;
}

const char *pa_branch_new_type_name(unsigned new_type)
{
	static const char *const names[] = {"FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1",
	                                    "ARCH_2",     "ARCH_3",     "ARCH_4",     "ARCH_5"};
	return new_type < PA_ARRAY_SIZE(names) ? names[new_type] : NULL;
}

const char *pa_rec_type_name(uint32_t type)
{
	return type < PA_REC_USER_MAX ? rec_names[type] : NULL;
}

void *scratch_alloc(struct pa_scratch *s, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	if (s->used + n > s->cap)
		return NULL; /* sized by the caller to the largest record */
	void *p = s->mem + s->used;
	s->used += n;
	return p;
}

const uint64_t *cur_u64_array(struct pa_cur *c, uint64_t n, struct pa_scratch *s)
{
	if (n > cur_left(c) / 8) {
		c->bad = true;
		return NULL;
	}
	const uint8_t *p = cur_take(c, (size_t)n * 8);
	if (!p)
		return NULL;
	if (!c->swap && ((uintptr_t)p & 7) == 0)
		return (const uint64_t *)(const void *)p;
	uint64_t *out = scratch_alloc(s, (size_t)n * 8);
	if (!out) {
		c->bad = true;
		return NULL;
	}
	for (uint64_t i = 0; i < n; i++)
		out[i] = ld64(p + i * 8, c->swap);
	return out;
}

const char *cur_str(struct pa_cur *c, size_t n)
{
	const uint8_t *p = cur_take(c, n);
	if (!p || !n || !memchr(p, 0, n)) {
		c->bad = true;
		return NULL;
	}
	return (const char *)p;
}

/* A big-endian writer's perf_branch_entry flags word: its compiler
 * allocated the bit-fields from the most significant bit (mispred is bit
 * 63). Rewritten in the little-endian layout formats.h decodes. */
static uint64_t branch_flags_from_be(uint64_t v)
{
	return (v >> 63 & 1) | (v >> 62 & 1) << 1 | (v >> 61 & 1) << 2 | (v >> 60 & 1) << 3 |
	       (v >> 44 & 0xffff) << 4 | (v >> 40 & 0xf) << 20 | (v >> 38 & 3) << 24 |
	       (v >> 34 & 0xf) << 26 | (v >> 31 & 7) << 30;
}

/* The branch entries (from, to, flags triples) of a big-endian file: a
 * copy, host order, flags words in the common layout. */
static const uint64_t *branch_entries_be(struct pa_cur *c, uint64_t nr, struct pa_scratch *s)
{
	const uint8_t *p = cur_take(c, (size_t)nr * 24);
	uint64_t *out = p ? scratch_alloc(s, (size_t)nr * 24) : NULL;
	if (!out) {
		c->bad = true;
		return NULL;
	}
	for (uint64_t i = 0; i < nr * 3; i++) {
		out[i] = ld64(p + i * 8, c->swap);
		if (i % 3 == 2)
			out[i] = branch_flags_from_be(out[i]);
	}
	return out;
}

static uint32_t popcount64(uint64_t v)
{
	return (uint32_t)__builtin_popcountll(v);
}

/* Number of u64 a read_format value block holds. */
static uint64_t read_values_nr(uint64_t rf, uint64_t nr_group)
{
	uint64_t per = 1 + !!(rf & PA_FORMAT_ID) + !!(rf & PA_FORMAT_LOST);
	uint64_t hdr = !!(rf & PA_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PA_FORMAT_TOTAL_TIME_RUNNING);
	if (rf & PA_FORMAT_GROUP)
		return 1 + hdr + nr_group * per;
	return hdr + per;
}

static void parse_read(struct pa_cur *c, uint64_t rf, struct pa_sample *s, struct pa_scratch *sc)
{
	uint64_t nr = 0;
	if (rf & PA_FORMAT_GROUP) {
		if (cur_left(c) < 8) {
			c->bad = true;
			return;
		}
		nr = ld64(c->p, c->swap);
		if (nr > cur_left(c) / 8) {
			c->bad = true;
			return;
		}
	}
	uint64_t n = read_values_nr(rf, nr);
	s->read.values = cur_u64_array(c, n, sc);
	s->read.nr_values = (uint32_t)n;
}

static void parse_regs(struct pa_cur *c, uint64_t mask, struct pa_scratch *sc, uint64_t *abi,
		       const uint64_t **regs, uint32_t *nr, uint64_t *out_mask)
{
	*abi = cur_u64(c);
	*out_mask = mask;
	if (*abi) {
		*nr = popcount64(mask);
		*regs = cur_u64_array(c, *nr, sc);
	}
}

/* Sample fields that are one u64 slot each, at fixed places before the
 * call chain (TID and CPU are two u32 in their slot). */
#define FIXED_SLOTS                                                                          \
	(PA_SAMPLE_IDENTIFIER | PA_SAMPLE_IP | PA_SAMPLE_TID | PA_SAMPLE_TIME | PA_SAMPLE_ADDR | \
	 PA_SAMPLE_ID | PA_SAMPLE_STREAM_ID | PA_SAMPLE_CPU | PA_SAMPLE_PERIOD)

/* Zero every field, one store each: the compiler merges them into wide
 * stores, where a memset of the struct becomes a `rep stos` whose start-up
 * cost more than decoding the whole record (half the fast path's time). */
static void sample_reset(struct pa_sample *s)
{
	s->type = 0;
	s->ip = s->id = s->stream_id = s->time = s->addr = s->period = 0;
	s->weight = s->data_src = s->transaction = s->phys_addr = 0;
	s->cgroup = s->data_page_size = s->code_page_size = 0;
	s->pid = s->tid = s->cpu = 0;
	s->callchain = NULL;
	s->callchain_nr = 0;
	s->raw = NULL;
	s->raw_size = 0;
	s->branch.entries = s->branch.counters = NULL;
	s->branch.nr = s->branch.hw_idx = 0;
	s->user_regs.regs = s->intr_regs.regs = NULL;
	s->user_regs.nr = s->intr_regs.nr = 0;
	s->user_regs.abi = s->intr_regs.abi = 0;
	s->user_regs.mask = s->intr_regs.mask = 0;
	s->user_stack.data = NULL;
	s->user_stack.size = s->user_stack.dyn_size = 0;
	s->user_stack.units_reversed = false;
	s->read.values = NULL;
	s->read.nr_values = 0;
	s->aux.data = NULL;
	s->aux.size = 0;
}

/* The common sample (fixed slots and a call chain, writer's order = ours,
 * chain 8-aligned) without the cursor: 12M of them make a profile. false:
 * take the general path (which also reports what is wrong). */
/* Whether parse_sample_fast() takes a record: only fixed slots and a call
 * chain that fits, aligned. */
static bool sample_fast_ok(const struct pa_evsel *ev, const uint8_t *p, size_t size)
{
	uint64_t t = ev->attr.sample_type;
	if (t & ~(uint64_t)(FIXED_SLOTS | PA_SAMPLE_CALLCHAIN))
		return false;
	/* the slots (each under bit 21) and the chain's count: perf's
	 * sample_size, after the record header */
	if (size < 8 + (size_t)ev->sample_size)
		return false;
	if (!(t & PA_SAMPLE_CALLCHAIN))
		return true;
	/* the chain's count is the last fixed slot */
	const uint8_t *q = p + 8 + ev->sample_size;
	uint64_t nr = ld64(q - 8, false);
	return nr <= (size_t)(p + size - q) / 8 && !((uintptr_t)q & 7);
}

static bool parse_sample_fast(const struct pa_evsel *ev, const uint8_t *p, size_t size,
                              struct pa_sample *s)
{
	uint64_t t = ev->attr.sample_type;
	if (!sample_fast_ok(ev, p, size))
		return false;
	sample_reset(s);
	const uint8_t *q = p + 8;
	s->type = t;
	if (t & PA_SAMPLE_IDENTIFIER)
		s->id = ld64(q, false), q += 8;
	if (t & PA_SAMPLE_IP)
		s->ip = ld64(q, false), q += 8;
	if (t & PA_SAMPLE_TID)
		s->pid = ld32(q, false), s->tid = ld32(q + 4, false), q += 8;
	if (t & PA_SAMPLE_TIME)
		s->time = ld64(q, false), q += 8;
	if (t & PA_SAMPLE_ADDR)
		s->addr = ld64(q, false), q += 8;
	if (t & PA_SAMPLE_ID)
		s->id = ld64(q, false), q += 8;
	if (t & PA_SAMPLE_STREAM_ID)
		s->stream_id = ld64(q, false), q += 8;
	if (t & PA_SAMPLE_CPU)
		s->cpu = ld32(q, false), q += 8;
	if (t & PA_SAMPLE_PERIOD)
		s->period = ld64(q, false), q += 8;
	else /* perf's period of an event that does not record one */
		s->period = ev->attr.sample_period;
	if (t & PA_SAMPLE_CALLCHAIN) {
		uint64_t nr = ld64(q, false);
		q += 8;
		if (nr > (size_t)(p + size - q) / 8 || ((uintptr_t)q & 7))
			return false;
		s->callchain_nr = nr;
		s->callchain = (const uint64_t *)(const void *)q;
	}
	return true;
}

/* The fixed sample layout, in the kernel's order (perf_output_sample). */
static int parse_sample(struct pa_file *f, const struct pa_evsel *ev, struct pa_cur *c,
			struct pa_sample *s)
{
	const struct pa_attr *a = &ev->attr;
	uint64_t t = a->sample_type;
	struct pa_scratch *sc = pa_file_scratch(f);

	s->type = t;
	if (t & PA_SAMPLE_IDENTIFIER)
		s->id = cur_u64(c);
	if (t & PA_SAMPLE_IP)
		s->ip = cur_u64(c);
	if (t & PA_SAMPLE_TID) {
		/* two u32 in one u64 slot: each swaps on its own */
		s->pid = cur_u32(c);
		s->tid = cur_u32(c);
	}
	if (t & PA_SAMPLE_TIME)
		s->time = cur_u64(c);
	if (t & PA_SAMPLE_ADDR)
		s->addr = cur_u64(c);
	if (t & PA_SAMPLE_ID)
		s->id = cur_u64(c);
	if (t & PA_SAMPLE_STREAM_ID)
		s->stream_id = cur_u64(c);
	if (t & PA_SAMPLE_CPU) {
		s->cpu = cur_u32(c);
		(void)cur_u32(c);
	}
	if (t & PA_SAMPLE_PERIOD)
		s->period = cur_u64(c);
	else /* perf's period of an event that does not record one */
		s->period = a->sample_period;
	if (t & PA_SAMPLE_READ)
		parse_read(c, a->read_format, s, sc);
	if (t & PA_SAMPLE_CALLCHAIN) {
		s->callchain_nr = cur_u64(c);
		s->callchain = cur_u64_array(c, s->callchain_nr, sc);
	}
	if (t & PA_SAMPLE_RAW) {
		s->raw_size = cur_u32(c);
		s->raw = cur_take(c, s->raw_size);
	}
	if (t & PA_SAMPLE_BRANCH_STACK) {
		s->branch.nr = cur_u64(c);
		if (a->branch_sample_type & PA_BRANCH_HW_INDEX)
			s->branch.hw_idx = cur_u64(c);
		if (s->branch.nr > cur_left(c) / 24)
			c->bad = true;
		else if (c->swap == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__))
			s->branch.entries = branch_entries_be(c, s->branch.nr, sc);
		else
			s->branch.entries = cur_u64_array(c, s->branch.nr * 3, sc);
		if (a->branch_sample_type & PA_BRANCH_COUNTERS)
			s->branch.counters = cur_u64_array(c, s->branch.nr, sc);
	}
	if (t & PA_SAMPLE_REGS_USER)
		parse_regs(c, a->sample_regs_user, sc, &s->user_regs.abi, &s->user_regs.regs,
			   &s->user_regs.nr, &s->user_regs.mask);
	if (t & PA_SAMPLE_STACK_USER) {
		s->user_stack.size = cur_u64(c);
		if (s->user_stack.size > cur_left(c)) {
			c->bad = true;
		} else if (s->user_stack.size) {
			s->user_stack.data = cur_take(c, (size_t)s->user_stack.size);
			s->user_stack.dyn_size = cur_u64(c);
			/* the file is big-endian: swapped here, or this host's */
			s->user_stack.units_reversed =
			    c->swap == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
		}
	}
	if (t & (PA_SAMPLE_WEIGHT | PA_SAMPLE_WEIGHT_STRUCT))
		s->weight = cur_u64(c);
	if (t & PA_SAMPLE_DATA_SRC)
		s->data_src = cur_u64(c);
	if (t & PA_SAMPLE_TRANSACTION)
		s->transaction = cur_u64(c);
	if (t & PA_SAMPLE_REGS_INTR)
		parse_regs(c, a->sample_regs_intr, sc, &s->intr_regs.abi, &s->intr_regs.regs,
			   &s->intr_regs.nr, &s->intr_regs.mask);
	if (t & PA_SAMPLE_PHYS_ADDR)
		s->phys_addr = cur_u64(c);
	if (t & PA_SAMPLE_CGROUP)
		s->cgroup = cur_u64(c);
	if (t & PA_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = cur_u64(c);
	if (t & PA_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = cur_u64(c);
	if (t & PA_SAMPLE_AUX) {
		s->aux.size = cur_u64(c);
		if (s->aux.size > cur_left(c))
			c->bad = true;
		else
			s->aux.data = cur_take(c, (size_t)s->aux.size);
	}
	return c->bad ? -1 : 0;
}

/* The sample_id trailer sits at the end of non-sample records:
 * TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
static uint32_t trailer_size(uint64_t t)
{
	uint32_t n = 0;
	n += !!(t & PA_SAMPLE_TID) + !!(t & PA_SAMPLE_TIME) + !!(t & PA_SAMPLE_ID);
	n += !!(t & PA_SAMPLE_STREAM_ID) + !!(t & PA_SAMPLE_CPU) + !!(t & PA_SAMPLE_IDENTIFIER);
	return n * 8;
}

static int parse_trailer(const struct pa_evsel *ev, const uint8_t *rec, size_t size, bool swap,
			 struct pa_sample *s)
{
	uint64_t t = ev->attr.sample_type;
	uint32_t n = trailer_size(t);
	if (n + 8 > size)
		return -1;
	struct pa_cur c;
	cur_init(&c, rec + size - n, n, swap);
	s->type = t & (PA_SAMPLE_TID | PA_SAMPLE_TIME | PA_SAMPLE_ID | PA_SAMPLE_STREAM_ID |
		       PA_SAMPLE_CPU | PA_SAMPLE_IDENTIFIER);
	if (t & PA_SAMPLE_TID) {
		s->pid = cur_u32(&c);
		s->tid = cur_u32(&c);
	}
	if (t & PA_SAMPLE_TIME)
		s->time = cur_u64(&c);
	if (t & PA_SAMPLE_ID)
		s->id = cur_u64(&c);
	if (t & PA_SAMPLE_STREAM_ID)
		s->stream_id = cur_u64(&c);
	if (t & PA_SAMPLE_CPU) {
		s->cpu = cur_u32(&c);
		(void)cur_u32(&c);
	}
	if (t & PA_SAMPLE_IDENTIFIER)
		s->id = cur_u64(&c);
	return 0;
}

/* Which evsel a record belongs to: perf finds the id at a position that
 * is the same for all evsels of a session (id_pos / is_pos). */
static const struct pa_evsel *evsel_of(struct pa_file *f, const uint8_t *rec, size_t size,
				       bool is_sample)
{
	unsigned n = pa_file_nr_evsels(f);
	if (n == 0)
		return NULL;
	const struct pa_evsel *first = pa_file_evsel(f, 0);
	if (n == 1)
		return first;
	bool swap = pa_file_needs_swap(f);
	uint64_t id;
	if (is_sample) {
		if (first->id_pos < 0 || 8 + (size_t)(first->id_pos + 1) * 8 > size)
			return first;
		id = ld64(rec + 8 + first->id_pos * 8, swap);
	} else {
		if (!pa_attr_flag(&first->attr, PA_ATTR_SAMPLE_ID_ALL) || first->is_pos <= 0 ||
		    8 + (size_t)first->is_pos * 8 > size)
			return first;
		id = ld64(rec + size - first->is_pos * 8, swap);
	}
	const struct pa_evsel *e = pa_file_evsel_by_id(f, id);
	return e ? e : first;
}

static int decode_mmap(struct pa_cur *c, struct pa_event *ev, size_t body_end)
{
	ev->u.mmap.pid = cur_u32(c);
	ev->u.mmap.tid = cur_u32(c);
	ev->u.mmap.start = cur_u64(c);
	ev->u.mmap.len = cur_u64(c);
	ev->u.mmap.pgoff = cur_u64(c);
	if (ev->type == PA_REC_MMAP2) {
		if (ev->misc & PA_MISC_MMAP_BUILD_ID) {
			uint8_t sz = cur_u8(c);
			cur_take(c, 3);
			const uint8_t *id = cur_take(c, 20);
			if (id) {
				memcpy(ev->u.mmap.build_id, id, 20);
				ev->u.mmap.build_id_size = sz > 20 ? 20 : sz;
			}
		} else {
			ev->u.mmap.maj = cur_u32(c);
			ev->u.mmap.min = cur_u32(c);
			ev->u.mmap.ino = cur_u64(c);
			ev->u.mmap.ino_generation = cur_u64(c);
		}
		ev->u.mmap.prot = cur_u32(c);
		ev->u.mmap.flags = cur_u32(c);
	}
	size_t pos = cur_pos(c);
	if (c->bad || body_end < pos)
		return -1;
	ev->u.mmap.filename = cur_str(c, body_end - pos);
	return c->bad ? -1 : 0;
}

static int decode_header_attr(struct pa_file *f, struct pa_event *ev, const uint8_t *p,
			      size_t size, struct pa_err *err)
{
	struct pa_attr attr;
	uint32_t asz = pa_attr_decode(&attr, p + 8, size - 8, pa_file_needs_swap(f),
				      pa_file_big_endian(f));
	if (!asz || asz > size - 8)
		return pa_err_set_at(err, PA_ERR_FORMAT, ev->offset, "bad HEADER_ATTR record");
	size_t nr = (size - 8 - asz) / 8;
	uint64_t *ids = pa_arena_alloc(pa_file_arena(f), (nr + 1) * 8);
	if (!ids)
		return pa_err_set(err, -12, "out of memory");
	for (size_t i = 0; i < nr; i++)
		ids[i] = ld64(p + 8 + asz + i * 8, pa_file_needs_swap(f));
	struct pa_evsel *e = pa_file_add_evsel(f, &attr, ids, (uint32_t)nr, ev->offset, err);
	if (!e)
		return err ? err->code : -1;
	pa_file_evsels_changed(f);
	ev->u.header_attr.evsel = e;
	return 0;
}

static int decode_event_update(struct pa_file *f, struct pa_cur *c)
{
	uint64_t type = cur_u64(c), id = cur_u64(c);
	if (c->bad)
		return -1;
	if (type == 2 /* PERF_EVENT_UPDATE__NAME */) {
		struct pa_evsel *e = (struct pa_evsel *)pa_file_evsel_by_id(f, id);
		size_t n = cur_left(c);
		const char *name = (const char *)cur_take(c, n);
		if (e && name)
			e->name = pa_arena_strndup(pa_file_arena(f), name, strnlen(name, n));
	}
	return 0;
}

static int decode_build_id_rec(struct pa_file *f, struct pa_cur *c, struct pa_event *ev)
{
	struct pa_buildid_entry *e = &ev->u.build_id;
	e->misc = ev->misc;
	e->pid = (int32_t)cur_u32(c);
	const uint8_t *id = cur_take(c, 24);
	if (!id)
		return -1;
	memcpy(e->id, id, 20);
	e->size = (ev->misc & PA_MISC_BUILD_ID_SIZE) ? id[20] : 20;
	if (e->size > 20)
		e->size = 20;
	size_t n = cur_left(c);
	const char *name = (const char *)cur_take(c, n);
	e->filename = pa_arena_strndup(pa_file_arena(f), name ? name : "", name ? strnlen(name, n) : 0);
	if (!e->filename)
		return -1;
	return pa_file_add_buildid(f, e);
}

static size_t record_body_end(const struct pa_evsel *evsel, size_t size)
{
	if (!evsel || !pa_attr_flag(&evsel->attr, PA_ATTR_SAMPLE_ID_ALL))
		return size;
	uint32_t n = trailer_size(evsel->attr.sample_type);
	return n <= size - 8 ? size - n : size;
}

static int decode_kernel_record(struct pa_file *f, struct pa_event *ev, const uint8_t *p,
				size_t size, struct pa_cur *c)
{
	const struct pa_evsel *evsel = evsel_of(f, p, size, false);
	ev->evsel = evsel;
	size_t end = record_body_end(evsel, size);
	if (evsel && pa_attr_flag(&evsel->attr, PA_ATTR_SAMPLE_ID_ALL) &&
	    ev->type != PA_REC_CALLCHAIN_DEFERRED)
		if (parse_trailer(evsel, p, size, c->swap, &ev->sample))
			return -1;
	switch (ev->type) {
	case PA_REC_MMAP:
	case PA_REC_MMAP2:
		return decode_mmap(c, ev, end);
	case PA_REC_COMM:
		ev->u.comm.pid = cur_u32(c);
		ev->u.comm.tid = cur_u32(c);
		if (c->bad || end < cur_pos(c))
			return -1;
		ev->u.comm.comm = cur_str(c, end - cur_pos(c));
		break;
	case PA_REC_FORK:
	case PA_REC_EXIT:
		ev->u.fork.pid = cur_u32(c);
		ev->u.fork.ppid = cur_u32(c);
		ev->u.fork.tid = cur_u32(c);
		ev->u.fork.ptid = cur_u32(c);
		ev->u.fork.time = cur_u64(c);
		break;
	case PA_REC_LOST:
		ev->u.lost.id = cur_u64(c);
		ev->u.lost.lost = cur_u64(c);
		break;
	case PA_REC_LOST_SAMPLES:
		ev->u.lost_samples.lost = cur_u64(c);
		break;
	case PA_REC_THROTTLE:
	case PA_REC_UNTHROTTLE:
		ev->u.throttle.time = cur_u64(c);
		ev->u.throttle.id = cur_u64(c);
		ev->u.throttle.stream_id = cur_u64(c);
		break;
	case PA_REC_READ:
		ev->u.read.pid = cur_u32(c);
		ev->u.read.tid = cur_u32(c);
		if (evsel)
			parse_read(c, evsel->attr.read_format, &ev->sample,
				   pa_file_scratch(f));
		break;
	case PA_REC_AUX:
		ev->u.aux.aux_offset = cur_u64(c);
		ev->u.aux.aux_size = cur_u64(c);
		ev->u.aux.flags = cur_u64(c);
		break;
	case PA_REC_ITRACE_START:
		ev->u.itrace_start.pid = cur_u32(c);
		ev->u.itrace_start.tid = cur_u32(c);
		break;
	case PA_REC_SWITCH:
		break;
	case PA_REC_SWITCH_CPU_WIDE:
		ev->u.context_switch.next_prev_pid = cur_u32(c);
		ev->u.context_switch.next_prev_tid = cur_u32(c);
		break;
	case PA_REC_NAMESPACES:
		ev->u.namespaces.pid = cur_u32(c);
		ev->u.namespaces.tid = cur_u32(c);
		ev->u.namespaces.nr_namespaces = cur_u64(c);
		break;
	case PA_REC_KSYMBOL:
		ev->u.ksymbol.addr = cur_u64(c);
		ev->u.ksymbol.len = cur_u32(c);
		ev->u.ksymbol.ksym_type = cur_u16(c);
		ev->u.ksymbol.flags = cur_u16(c);
		if (c->bad || end < cur_pos(c))
			return -1;
		ev->u.ksymbol.name = cur_str(c, end - cur_pos(c));
		break;
	case PA_REC_BPF_EVENT:
		ev->u.bpf_event.type = cur_u16(c);
		ev->u.bpf_event.flags = cur_u16(c);
		ev->u.bpf_event.id = cur_u32(c);
		break;
	case PA_REC_CGROUP:
		ev->u.cgroup.id = cur_u64(c);
		if (c->bad || end < cur_pos(c))
			return -1;
		ev->u.cgroup.path = cur_str(c, end - cur_pos(c));
		break;
	case PA_REC_TEXT_POKE:
		ev->u.text_poke.addr = cur_u64(c);
		ev->u.text_poke.old_len = cur_u16(c);
		ev->u.text_poke.new_len = cur_u16(c);
		break;
	case PA_REC_CALLCHAIN_DEFERRED:
		ev->u.callchain_deferred.cookie = cur_u64(c);
		ev->u.callchain_deferred.nr = cur_u64(c);
		ev->u.callchain_deferred.ips =
			cur_u64_array(c, ev->u.callchain_deferred.nr, pa_file_scratch(f));
		break;
	default:
		break; /* AUX_OUTPUT_HW_ID and future kernel types: header only */
	}
	return c->bad ? -1 : 0;
}

static int decode_any(struct pa_file *f, struct pa_event *ev, const uint8_t *p, size_t size,
		      struct pa_err *err);

int pa_rec_decode_time(struct pa_file *f, struct pa_event *ev, const uint8_t *p, size_t size)
{
	const struct pa_evsel *evsel = evsel_of(f, p, size, true);
	/* (only where the whole decode cannot fail later) */
	if (!evsel || !sample_fast_ok(evsel, p, size))
		return -1;
	ev->evsel = evsel;
	ev->sample.type = evsel->attr.sample_type;
	ev->sample.time = evsel->time_pos ? ld64(p + evsel->time_pos, false) : 0;
	/* (the same cache line: what a pass that only marks hits reads) */
	ev->sample.ip = evsel->ip_pos ? ld64(p + evsel->ip_pos, false) : 0;
	ev->sample.pid = evsel->tid_pos ? ld32(p + evsel->tid_pos, false) : 0;
	ev->sample.tid = evsel->tid_pos ? ld32(p + evsel->tid_pos + 4, false) : 0;
	ev->lazy = true;
	return 0;
}

int pa_rec_decode(struct pa_file *f, struct pa_event *ev, const uint8_t *p, size_t size,
		  struct pa_err *err)
{
	if (ev->type == PA_REC_SAMPLE && !pa_file_needs_swap(f)) {
		const struct pa_evsel *evsel = evsel_of(f, p, size, true);
		if (evsel && parse_sample_fast(evsel, p, size, &ev->sample)) {
			ev->evsel = evsel;
			return 0;
		}
	}
	return decode_any(f, ev, p, size, err);
}

/* Any record, by the cursor (the general sample path included). */
static __attribute__((noinline)) int decode_any(struct pa_file *f, struct pa_event *ev,
						const uint8_t *p, size_t size, struct pa_err *err)
{
	struct pa_cur c;
	bool swap = pa_file_needs_swap(f);
	int ret = 0;

	sample_reset(&ev->sample);
	if (ev->type != PA_REC_SAMPLE)
		memset(&ev->u, 0, sizeof(ev->u));
	ev->evsel = NULL;
	cur_init(&c, p, size, swap);
	cur_take(&c, 8);

	if (ev->type == PA_REC_SAMPLE) {
		const struct pa_evsel *evsel = evsel_of(f, p, size, true);
		if (!evsel)
			return pa_err_set_at(err, PA_ERR_FORMAT, ev->offset,
					     "sample record before any event attribute");
		ev->evsel = evsel;
		ret = parse_sample(f, evsel, &c, &ev->sample);
	} else if (ev->type < PA_REC_HEADER_ATTR) {
		ret = decode_kernel_record(f, ev, p, size, &c);
	} else {
		switch (ev->type) {
		case PA_REC_HEADER_ATTR:
			return decode_header_attr(f, ev, p, size, err);
		case PA_REC_HEADER_BUILD_ID:
			ret = decode_build_id_rec(f, &c, ev);
			break;
		case PA_REC_HEADER_FEATURE: {
			ev->u.feature.feat = cur_u64(&c);
			if (c.bad)
				break;
			if (ev->u.feature.feat >= PA_FEAT_BITS)
				break; /* unknown: skipped by size */
			return pa_feat_parse(f, (unsigned)ev->u.feature.feat, c.p, cur_left(&c),
					     ev->offset + 16, err);
		}
		case PA_REC_EVENT_UPDATE:
			ret = decode_event_update(f, &c);
			break;
		case PA_REC_AUXTRACE:
			ev->u.auxtrace.size = cur_u64(&c);
			ev->u.auxtrace.offset = cur_u64(&c);
			ev->u.auxtrace.reference = cur_u64(&c);
			ev->u.auxtrace.idx = cur_u32(&c);
			ev->u.auxtrace.tid = cur_u32(&c);
			ev->u.auxtrace.cpu = cur_u32(&c);
			break;
		case PA_REC_HEADER_TRACING_DATA:
			ev->u.tracing_data.size = cur_u32(&c);
			break;
		case PA_REC_ID_INDEX:
			ev->u.id_index.nr = cur_u64(&c);
			break;
		default:
			break; /* skipped by size, counted by the caller */
		}
	}
	if (ret == 0 && !c.bad)
		return 0;
	return pa_err_set_at(err, PA_ERR_FORMAT, ev->offset, "malformed %s record (size %zu)",
			     pa_rec_type_name(ev->type) ? pa_rec_type_name(ev->type) : "unknown",
			     size);
}

/* *p (n u64) copied to a, or -ENOMEM. */
static int keep_u64s(struct pa_arena *a, const uint64_t **p, uint64_t n)
{
	if (!*p || !n)
		return 0;
	uint64_t *v = pa_arena_alloc_raw(a, (size_t)n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, *p, (size_t)n * sizeof(*v));
	*p = v;
	return 0;
}

int pa_event_keep_arrays(struct pa_arena *a, struct pa_event *ev)
{
	struct pa_sample *s = &ev->sample;
	return keep_u64s(a, &s->callchain, s->callchain_nr) ||
	               keep_u64s(a, &s->branch.entries, s->branch.nr * 3) ||
	               keep_u64s(a, &s->branch.counters, s->branch.nr) ||
	               keep_u64s(a, &s->user_regs.regs, s->user_regs.nr) ||
	               keep_u64s(a, &s->intr_regs.regs, s->intr_regs.nr) ||
	               keep_u64s(a, &s->read.values, s->read.nr_values)
	           ? -ENOMEM
	           : 0;
}

int pa_event_keep(struct pa_arena *a, struct pa_event *dst, const struct pa_event *src)
{
	*dst = *src;
	memset(&dst->sample.callchain, 0,
	       sizeof(dst->sample) - offsetof(struct pa_sample, callchain));
	if (src->type == PA_REC_READ && src->sample.read.values) {
		size_t n = src->sample.read.nr_values;
		uint64_t *v = pa_arena_alloc(a, n * sizeof(*v) + 1);
		if (!v)
			return -ENOMEM;
		memcpy(v, src->sample.read.values, n * sizeof(*v));
		dst->sample.read.values = v;
		dst->sample.read.nr_values = src->sample.read.nr_values;
	}
	const char **str = src->type == PA_REC_MMAP || src->type == PA_REC_MMAP2
	                       ? &dst->u.mmap.filename
	                   : src->type == PA_REC_COMM            ? &dst->u.comm.comm
	                   : src->type == PA_REC_HEADER_BUILD_ID ? &dst->u.build_id.filename
	                                                         : NULL;
	return str && *str && !(*str = pa_arena_strdup(a, *str)) ? -ENOMEM : 0;
}
