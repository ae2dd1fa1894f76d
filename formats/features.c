/* features.c - feature sections (file mode) and HEADER_FEATURE payloads. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>

static const char *const feat_names[PA_FEAT_LAST_KNOWN] = {
	[PA_FEAT_RESERVED] = "RESERVED",
	[PA_FEAT_TRACING_DATA] = "TRACING_DATA",
	[PA_FEAT_BUILD_ID] = "BUILD_ID",
	[PA_FEAT_HOSTNAME] = "HOSTNAME",
	[PA_FEAT_OSRELEASE] = "OSRELEASE",
	[PA_FEAT_VERSION] = "VERSION",
	[PA_FEAT_ARCH] = "ARCH",
	[PA_FEAT_NRCPUS] = "NRCPUS",
	[PA_FEAT_CPUDESC] = "CPUDESC",
	[PA_FEAT_CPUID] = "CPUID",
	[PA_FEAT_TOTAL_MEM] = "TOTAL_MEM",
	[PA_FEAT_CMDLINE] = "CMDLINE",
	[PA_FEAT_EVENT_DESC] = "EVENT_DESC",
	[PA_FEAT_CPU_TOPOLOGY] = "CPU_TOPOLOGY",
	[PA_FEAT_NUMA_TOPOLOGY] = "NUMA_TOPOLOGY",
	[PA_FEAT_BRANCH_STACK] = "BRANCH_STACK",
	[PA_FEAT_PMU_MAPPINGS] = "PMU_MAPPINGS",
	[PA_FEAT_GROUP_DESC] = "GROUP_DESC",
	[PA_FEAT_AUXTRACE] = "AUXTRACE",
	[PA_FEAT_STAT] = "STAT",
	[PA_FEAT_CACHE] = "CACHE",
	[PA_FEAT_SAMPLE_TIME] = "SAMPLE_TIME",
	[PA_FEAT_MEM_TOPOLOGY] = "MEM_TOPOLOGY",
	[PA_FEAT_CLOCKID] = "CLOCKID",
	[PA_FEAT_DIR_FORMAT] = "DIR_FORMAT",
	[PA_FEAT_BPF_PROG_INFO] = "BPF_PROG_INFO",
	[PA_FEAT_BPF_BTF] = "BPF_BTF",
	[PA_FEAT_COMPRESSED] = "COMPRESSED",
	[PA_FEAT_CPU_PMU_CAPS] = "CPU_PMU_CAPS",
	[PA_FEAT_CLOCK_DATA] = "CLOCK_DATA",
	[PA_FEAT_HYBRID_TOPOLOGY] = "HYBRID_TOPOLOGY",
	[PA_FEAT_PMU_CAPS] = "PMU_CAPS",
};

const char *pa_feat_name(unsigned feat)
{
	return feat < PA_FEAT_LAST_KNOWN ? feat_names[feat] : NULL;
}

/* perf's feature strings: u32 length (padded, NUL included), bytes. */
static const char *feat_string(struct pa_cur *c, struct pa_arena *a)
{
	uint32_t len = cur_u32(c);
	const uint8_t *p = cur_take(c, len);
	if (!p)
		return NULL;
	size_t n = strnlen((const char *)p, len);
	return pa_arena_strndup(a, (const char *)p, n);
}

static int feat_bad(struct pa_cur *c, unsigned feat, uint64_t base_off, struct pa_err *err)
{
	return pa_err_set_at(err, PA_ERR_FORMAT, base_off + cur_pos(c),
			     "malformed %s feature section", pa_feat_name(feat));
}

/* A count read from the file may not promise more entries than the bytes
 * left could hold; this keeps allocations proportional to the input. */
static bool count_fits(const struct pa_cur *c, uint64_t count, size_t min_entry)
{
	return count <= cur_left(c) / (min_entry ? min_entry : 1);
}

static int parse_cmdline(struct pa_file *f, struct pa_cur *c)
{
	struct pa_header_info *h = pa_file_header_mut(f);
	uint32_t nr = cur_u32(c);
	if (c->bad || !count_fits(c, nr, 4))
		return -1;
	const char **argv = pa_arena_alloc(pa_file_arena(f), (nr + 1) * sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++)
		if (!(argv[i] = feat_string(c, pa_file_arena(f))))
			return -1;
	h->cmdline = argv;
	h->nr_cmdline = nr;
	return 0;
}

static int parse_event_desc(struct pa_file *f, struct pa_cur *c)
{
	struct pa_header_info *h = pa_file_header_mut(f);
	uint32_t nre = cur_u32(c), sz = cur_u32(c);
	if (c->bad || sz < 64 || !count_fits(c, nre, sz + 8))
		return -1;
	struct pa_event_desc *d = pa_arena_alloc(pa_file_arena(f), (nre + 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (uint32_t i = 0; i < nre; i++) {
		const uint8_t *raw = cur_take(c, sz);
		if (!raw || !pa_attr_decode(&d[i].attr, raw, sz, c->swap,
					    PA_HOST_BIG_ENDIAN != c->swap))
			return -1;
		uint32_t nr = cur_u32(c);
		d[i].name = feat_string(c, pa_file_arena(f));
		if (c->bad || !d[i].name || !count_fits(c, nr, 8))
			return -1;
		uint64_t *ids = pa_arena_alloc(pa_file_arena(f), (nr + 1) * 8);
		if (!ids)
			return -ENOMEM;
		for (uint32_t k = 0; k < nr; k++)
			ids[k] = cur_u64(c);
		d[i].ids = ids;
		d[i].nr_ids = nr;
	}
	h->event_desc = d;
	h->nr_event_desc = nre;
	/* Name the evsels the way perf does: by the first id of each desc. */
	for (uint32_t i = 0; i < nre; i++) {
		if (!d[i].nr_ids)
			continue;
		struct pa_evsel *e = (struct pa_evsel *)pa_file_evsel_by_id(f, d[i].ids[0]);
		if (e && !e->name)
			e->name = d[i].name;
	}
	return c->bad ? -1 : 0;
}

static int parse_group_desc(struct pa_file *f, struct pa_cur *c)
{
	struct pa_header_info *h = pa_file_header_mut(f);
	uint32_t nr = cur_u32(c);
	if (c->bad || !count_fits(c, nr, 12))
		return -1;
	struct pa_group_desc *g = pa_arena_alloc(pa_file_arena(f), (nr + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		g[i].name = feat_string(c, pa_file_arena(f));
		g[i].leader_idx = cur_u32(c);
		g[i].nr_members = cur_u32(c);
		if (c->bad || !g[i].name)
			return -1;
	}
	h->groups = g;
	h->nr_groups = nr;
	return 0;
}

static int parse_pmu_mappings(struct pa_file *f, struct pa_cur *c)
{
	struct pa_header_info *h = pa_file_header_mut(f);
	uint32_t nr = cur_u32(c);
	if (c->bad || !count_fits(c, nr, 8))
		return -1;
	struct pa_pmu_mapping *m = pa_arena_alloc(pa_file_arena(f), (nr + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		m[i].type = cur_u32(c);
		m[i].name = feat_string(c, pa_file_arena(f));
		if (c->bad || !m[i].name)
			return -1;
	}
	h->pmu_mappings = m;
	h->nr_pmu_mappings = nr;
	return 0;
}

/* A string skipped: its length fits in what is left. */
static bool skip_string(struct pa_cur *c)
{
	uint32_t len = cur_u32(c);
	return cur_take(c, len) != NULL;
}

static bool skip_strings(struct pa_cur *c)
{
	uint32_t nr = cur_u32(c);
	if (c->bad || !count_fits(c, nr, 4))
		return false;
	for (uint32_t i = 0; i < nr; i++)
		if (!skip_string(c))
			return false;
	return true;
}

/* Sections pa does not use, only checked the way perf reads them (perf
 * prints nothing from them without -I, but in pipe mode it prints a
 * section's line only when it could read the section). */

/* CPU_TOPOLOGY: package (core) and core (thread) sibling lists; what
 * follows (per-CPU ids, dies) depends on NRCPUS and perf's version. */
static int check_cpu_topology(struct pa_cur *c)
{
	return skip_strings(c) && skip_strings(c) ? 0 : -1;
}

/* NUMA_TOPOLOGY: u32 nr, {u32 node, u64 mem_total, u64 mem_free, cpus}. */
static int check_numa_topology(struct pa_cur *c)
{
	uint32_t nr = cur_u32(c);
	if (c->bad || !count_fits(c, nr, 24))
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		cur_take(c, 20);
		if (!skip_string(c))
			return -1;
	}
	return 0;
}

/* CACHE: u32 version (1), u32 nr, {u32 level, line_size, sets, ways;
 * type, size, map}. */
static int check_cache(struct pa_cur *c)
{
	uint32_t version = cur_u32(c), nr = cur_u32(c);
	if (c->bad || version != 1 || !count_fits(c, nr, 28))
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		cur_take(c, 16);
		if (!skip_string(c) || !skip_string(c) || !skip_string(c))
			return -1;
	}
	return 0;
}

/* MEM_TOPOLOGY: u64 version (1), u64 block_size, u64 nr, {u64 node,
 * u64 size, bitmap: u64 bits, then its u64 words}. */
static int check_mem_topology(struct pa_cur *c)
{
	uint64_t version = cur_u64(c);
	(void)cur_u64(c);
	uint64_t nr = cur_u64(c);
	if (c->bad || version != 1 || !count_fits(c, nr, 24))
		return -1;
	for (uint64_t i = 0; i < nr; i++) {
		cur_take(c, 16);
		uint64_t bits = cur_u64(c);
		if (c->bad || bits / 64 > cur_left(c) / 8 || !cur_take(c, (size_t)((bits + 63) / 64) * 8))
			return -1;
	}
	return 0;
}

/* BUILD_ID entries: header, [pid], 24 bytes of id, filename. Files from
 * before perf kvm have no pid; their first entry (the kernel) then reads
 * as "nel.kallsyms]" in the new layout, which is how perf tells them. */
static int parse_build_ids(struct pa_file *f, struct pa_cur *c, uint64_t base_off,
			   struct pa_err *err)
{
	bool old_layout = false;
	if (cur_left(c) >= 8 + 4 + 24 + 13 &&
	    memcmp(c->p + 8 + 4 + 24, "nel.kallsyms]", 13) == 0)
		old_layout = true;
	while (cur_left(c) > 0) {
		size_t start = cur_pos(c);
		struct pa_buildid_entry e = {0};
		(void)cur_u32(c); /* type */
		e.misc = cur_u16(c);
		uint16_t size = cur_u16(c);
		size_t fixed = 8 + (old_layout ? 0 : 4) + 24;
		if (c->bad || size < fixed || (size_t)size - 8 > cur_left(c)) {
			/* perf keeps the entries before it and reads on */
			pa_file_warn(f, base_off + start,
				     "bad build-id entry size %u in BUILD_ID feature section", size);
			return 0;
		}
		e.pid = old_layout ? -1 : (int32_t)cur_u32(c);
		const uint8_t *id = cur_take(c, 24);
		memcpy(e.id, id, 20);
		e.size = (e.misc & PA_MISC_BUILD_ID_SIZE) ? id[20] : 20;
		if (e.size > 20)
			e.size = 20;
		size_t name_len = size - fixed;
		const uint8_t *name = cur_take(c, name_len);
		if (!name) /* cannot be: the size was checked */
			return pa_err_set_at(err, PA_ERR_FORMAT, base_off + start,
					     "bad build-id entry size %u", size);
		e.filename = pa_arena_strndup(pa_file_arena(f), (const char *)name,
					      strnlen((const char *)name, name_len));
		if (!e.filename || pa_file_add_buildid(f, &e))
			return -ENOMEM;
	}
	return 0;
}

/* Parse with the given byte order. 1: parsed but implausible. */
static int feat_parse_order(struct pa_file *f, unsigned feat, const uint8_t *p, size_t n,
			    uint64_t base_off, bool swap, struct pa_err *err)
{
	struct pa_header_info *h = pa_file_header_mut(f);
	struct pa_arena *a = pa_file_arena(f);
	struct pa_cur c;
	int ret = 0;

	cur_init(&c, p, n, swap);
	switch (feat) {
	case PA_FEAT_HOSTNAME:
		h->hostname = feat_string(&c, a);
		break;
	case PA_FEAT_OSRELEASE:
		h->osrelease = feat_string(&c, a);
		break;
	case PA_FEAT_VERSION:
		h->version = feat_string(&c, a);
		break;
	case PA_FEAT_ARCH:
		h->arch = feat_string(&c, a);
		break;
	case PA_FEAT_CPUDESC:
		h->cpudesc = feat_string(&c, a);
		break;
	case PA_FEAT_CPUID:
		h->cpuid = feat_string(&c, a);
		break;
	case PA_FEAT_NRCPUS:
		h->nr_cpus_avail = cur_u32(&c);
		h->nr_cpus_online = cur_u32(&c);
		if (h->nr_cpus_avail > (1u << 20) || h->nr_cpus_online > (1u << 20))
			ret = 1;
		break;
	case PA_FEAT_TOTAL_MEM:
		h->total_mem = cur_u64(&c);
		if (h->total_mem > (1ull << 48))
			ret = 1;
		break;
	case PA_FEAT_CMDLINE:
		ret = parse_cmdline(f, &c);
		break;
	case PA_FEAT_EVENT_DESC:
		ret = parse_event_desc(f, &c);
		break;
	case PA_FEAT_GROUP_DESC:
		ret = parse_group_desc(f, &c);
		break;
	case PA_FEAT_PMU_MAPPINGS:
		ret = parse_pmu_mappings(f, &c);
		break;
	case PA_FEAT_SAMPLE_TIME:
		h->first_sample_time = cur_u64(&c);
		h->last_sample_time = cur_u64(&c);
		if (h->first_sample_time > h->last_sample_time)
			ret = 1;
		break;
	case PA_FEAT_CLOCKID:
		h->clockid_res_ns = cur_u64(&c);
		break;
	case PA_FEAT_COMPRESSED:
		h->compressed.version = cur_u32(&c);
		h->compressed.type = cur_u32(&c);
		h->compressed.level = cur_u32(&c);
		h->compressed.ratio = cur_u32(&c);
		h->compressed.mmap_len = cur_u32(&c);
		if (h->compressed.type > 0xffff)
			ret = 1;
		break;
	case PA_FEAT_BUILD_ID:
		return parse_build_ids(f, &c, base_off, err);
	case PA_FEAT_TRACING_DATA:
		ret = pa_tracing_parse(f, p, n);
		break;
	case PA_FEAT_CPU_TOPOLOGY:
		ret = check_cpu_topology(&c);
		break;
	case PA_FEAT_NUMA_TOPOLOGY:
		ret = check_numa_topology(&c);
		break;
	case PA_FEAT_CACHE:
		ret = check_cache(&c);
		break;
	case PA_FEAT_MEM_TOPOLOGY:
		ret = check_mem_topology(&c);
		break;
	default:
		/* Known but not needed, or unknown: skipped by its size. */
		return 0;
	}
	if (ret == -ENOMEM)
		return pa_err_set(err, -ENOMEM, "out of memory");
	if (ret < 0 || c.bad)
		return feat_bad(&c, feat, base_off, err);
	return ret;
}

/* A damaged feature's fields, emptied: what perf has for a feature whose
 * section it failed to read (what a partial parse set is dropped). */
static void feat_clear(struct pa_header_info *h, unsigned feat)
{
	switch (feat) {
	case PA_FEAT_HOSTNAME:
		h->hostname = NULL;
		break;
	case PA_FEAT_OSRELEASE:
		h->osrelease = NULL;
		break;
	case PA_FEAT_VERSION:
		h->version = NULL;
		break;
	case PA_FEAT_ARCH:
		h->arch = NULL;
		break;
	case PA_FEAT_CPUDESC:
		h->cpudesc = NULL;
		break;
	case PA_FEAT_CPUID:
		h->cpuid = NULL;
		break;
	case PA_FEAT_NRCPUS:
		h->nr_cpus_online = h->nr_cpus_avail = 0;
		break;
	case PA_FEAT_TOTAL_MEM:
		h->total_mem = 0;
		break;
	case PA_FEAT_CMDLINE:
		h->cmdline = NULL;
		h->nr_cmdline = 0;
		break;
	case PA_FEAT_EVENT_DESC:
		h->event_desc = NULL;
		h->nr_event_desc = 0;
		break;
	case PA_FEAT_GROUP_DESC:
		h->groups = NULL;
		h->nr_groups = 0;
		break;
	case PA_FEAT_PMU_MAPPINGS:
		h->pmu_mappings = NULL;
		h->nr_pmu_mappings = 0;
		break;
	case PA_FEAT_SAMPLE_TIME:
		h->first_sample_time = h->last_sample_time = 0;
		break;
	case PA_FEAT_CLOCKID:
		h->clockid_res_ns = 0;
		break;
	case PA_FEAT_COMPRESSED:
		memset(&h->compressed, 0, sizeof(h->compressed));
		break;
	default:
		break;
	}
}

void pa_feat_damaged(struct pa_file *f, unsigned feat, uint64_t off, const char *what)
{
	struct pa_header_info *h = pa_file_header_mut(f);
	if (feat >= PA_FEAT_BITS)
		return;
	const char *name = pa_feat_name(feat);
	if (name)
		pa_file_warn(f, off, "%s %s feature section", what, name);
	else
		pa_file_warn(f, off, "%s feature section %u", what, feat);
	feat_clear(h, feat);
	h->feat_present[feat / 8] |= (uint8_t)(1u << (feat % 8));
	h->feat_damaged[feat / 8] |= (uint8_t)(1u << (feat % 8));
}

/* perf inject -b (perf 6.1 and later) copies the machine-description
 * sections unconverted, so a big-endian file may hold little-endian ones:
 * a section that makes no sense in the file's order is read in the other.
 * One that parses in neither is damaged: warned about and ignored, like
 * perf, which reads on (the samples do not need it). */
int pa_feat_parse(struct pa_file *f, unsigned feat, const uint8_t *p, size_t n, uint64_t base_off,
		  struct pa_err *err)
{
	struct pa_header_info *h = pa_file_header_mut(f);
	bool swap = pa_file_needs_swap(f);
	struct pa_err perr = {0};
	int ret = feat_parse_order(f, feat, p, n, base_off, swap, &perr);
	if (ret != 0 && ret != -ENOMEM && feat != PA_FEAT_BUILD_ID) {
		struct pa_err alt;
		if (feat_parse_order(f, feat, p, n, base_off, !swap, &alt) == 0)
			ret = 0;
		else if (ret > 0) /* plausible in neither order: keep the file's */
			ret = feat_parse_order(f, feat, p, n, base_off, swap, &perr) < 0 ? -1 : 0;
	}
	if (ret == -ENOMEM) {
		if (err)
			*err = perr;
		return ret;
	}
	if (ret < 0) {
		pa_feat_damaged(f, feat, perr.has_offset ? perr.offset : base_off, "malformed");
		return 0;
	}
	if (feat < PA_FEAT_BITS) {
		h->feat_present[feat / 8] |= (uint8_t)(1u << (feat % 8));
		h->feat_damaged[feat / 8] &= (uint8_t)~(1u << (feat % 8));
	}
	return 0;
}

/* ---- structural checks (no side effects) ------------------------------ */

/* A perf string whose u32 length covers a NUL-terminated text of
 * printable bytes (UTF-8 allowed) and NUL padding. */
static bool check_string(struct pa_cur *c)
{
	uint32_t len = cur_u32(c);
	const uint8_t *p = cur_take(c, len);
	if (!p || len == 0)
		return false;
	size_t n = strnlen((const char *)p, len);
	if (n == len)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p[i] < 0x20 || p[i] == 0x7f)
			return false;
	for (size_t i = n; i < len; i++)
		if (p[i])
			return false;
	return true;
}

static bool check_string_list(struct pa_cur *c)
{
	uint32_t nr = cur_u32(c);
	if (c->bad || !count_fits(c, nr, 5))
		return false;
	for (uint32_t i = 0; i < nr; i++)
		if (!check_string(c))
			return false;
	return true;
}

static bool check_event_desc(struct pa_cur *c)
{
	uint32_t nre = cur_u32(c), sz = cur_u32(c);
	if (c->bad || sz < 64 || sz > 4096 || nre == 0 || !count_fits(c, nre, sz + 9))
		return false;
	for (uint32_t i = 0; i < nre; i++) {
		const uint8_t *raw = cur_take(c, sz);
		uint32_t nr = cur_u32(c);
		if (!raw || !check_string(c) || !count_fits(c, nr, 8))
			return false;
		if (!cur_take(c, (size_t)nr * 8))
			return false;
	}
	return true;
}

/* CPU_TOPOLOGY: the two sibling lists, then (newer writers) per-CPU u32
 * ids that depend on NRCPUS: any whole number of u32. */
static bool check_cpu_topology_exact(struct pa_cur *c)
{
	if (!check_string_list(c) || !check_string_list(c))
		return false;
	return cur_left(c) % 4 == 0 && cur_take(c, cur_left(c));
}

static bool check_numa_exact(struct pa_cur *c)
{
	uint32_t nr = cur_u32(c);
	if (c->bad || nr == 0 || !count_fits(c, nr, 25))
		return false;
	for (uint32_t i = 0; i < nr; i++)
		if (!cur_take(c, 20) || !check_string(c))
			return false;
	return true;
}

/* PMU_MAPPINGS: u32 nr, then {u32 type, string} to the end. Writers
 * before perf 4.14 fix nr up after the entries, which a pipe cannot, so
 * a pipe's count is 0 (quipper reads the entries by size): nr is either
 * that 0 or the number of entries. */
static bool check_pmu_mappings_exact(struct pa_cur *c, uint32_t *entries)
{
	uint32_t nr = cur_u32(c), k = 0;
	if (c->bad)
		return false;
	while (cur_left(c) > 0) {
		(void)cur_u32(c);
		if (!check_string(c))
			return false;
		k++;
	}
	*entries = k;
	return nr == 0 || nr == k;
}

int pa_feat_check(unsigned feat, const uint8_t *p, size_t n, bool swap, uint32_t *count)
{
	struct pa_cur c;
	bool ok;
	uint32_t a, b;
	uint64_t v;

	cur_init(&c, p, n, swap);
	*count = 0;
	switch (feat) {
	case PA_FEAT_HOSTNAME:
	case PA_FEAT_OSRELEASE:
	case PA_FEAT_VERSION:
	case PA_FEAT_ARCH:
	case PA_FEAT_CPUDESC:
	case PA_FEAT_CPUID:
		ok = check_string(&c);
		break;
	case PA_FEAT_NRCPUS:
		a = cur_u32(&c); /* available */
		b = cur_u32(&c); /* online */
		ok = a && b && a <= (1u << 20) && b <= a;
		break;
	case PA_FEAT_TOTAL_MEM:
		v = cur_u64(&c);
		ok = v && v < (1ull << 48);
		break;
	case PA_FEAT_CMDLINE:
		ok = check_string_list(&c);
		break;
	case PA_FEAT_EVENT_DESC:
		ok = check_event_desc(&c);
		break;
	case PA_FEAT_CPU_TOPOLOGY:
		ok = check_cpu_topology_exact(&c);
		break;
	case PA_FEAT_NUMA_TOPOLOGY:
		ok = check_numa_exact(&c);
		break;
	case PA_FEAT_PMU_MAPPINGS:
		ok = check_pmu_mappings_exact(&c, count);
		break;
	default:
		return -1;
	}
	return ok && !c.bad && cur_left(&c) == 0 ? 0 : -1;
}
