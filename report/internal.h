/* internal.h - shared by report/ sources only. */
#ifndef PA_REPORT_INTERNAL_H
#define PA_REPORT_INTERNAL_H

#include "report.h"
#include "buildid/buildid.h"
#include "symbols/symbols.h"

struct dso_syms {
	int state; /* 0 untried, 1 loaded, 2 borrows the kernel's, -1 failed */
	struct pa_symtab *tab;
	struct dso_syms *borrow;
	const char *why;
};

/* A unique place samples landed: symbolized once. */
struct loc {
	struct pa_dso *dso;
	uint64_t addr; /* map-relative, or the raw ip when there is no map */
	char level;
	const struct pa_sym *sym;
};

struct bucket {
	unsigned evsel;
	struct pa_thread *thread;
	const char *comm; /* the comm when the sample was taken */
	uint32_t cpu;
	uint32_t loc;
	uint64_t period, count;
};

/* Direct-mapped front cache: a repeated (thread, ip, ...) goes straight
 * to its bucket while no address space changed. */
struct fast_slot {
	uint64_t ip, generation;
	const void *thread;
	const char *comm;
	uint32_t cpu, evsel_mode; /* evsel << 8 | cpumode */
	uint32_t bucket;          /* UINT32_MAX: filtered out */
	uint32_t valid;
};
#define FAST_SLOTS 8192

struct pa_report {
	struct fast_slot *fast;
	struct pa_session *session;
	struct pa_report_opts opts;
	struct pa_finder *finder;
	struct dso_syms *dsyms;
	unsigned nr_dsyms;

	struct loc *locs;
	size_t nr_locs, cap_locs;
	uint32_t *loc_table; /* open addressing: loc index + 1 */
	size_t loc_table_cap;

	struct bucket *buckets;
	size_t nr_buckets, cap_buckets;
	uint32_t *bucket_table;
	size_t bucket_table_cap;

	/* per evsel totals, before filters */
	uint64_t *total_period, *total_samples;
	unsigned nr_evsels;

	int keys[8];
	unsigned nr_keys;
	int cols[12];
	unsigned nr_cols;

	char **dso_filter, **comm_filter, **sym_filter;
	size_t nr_dso_filter, nr_comm_filter, nr_sym_filter;
	long *pid_filter, *tid_filter;
	size_t nr_pid_filter, nr_tid_filter;
	uint8_t cpu_filter[4096 / 8];
	bool has_cpu_filter;
	uint64_t time_start, time_end;
	struct pa_arena arena;
};

struct dso_syms *pa_report_dso_syms(struct pa_report *r, const struct pa_dso *d);
const struct pa_sym *pa_report_lookup(struct pa_report *r, const struct pa_dso *d, uint64_t addr);

#endif
