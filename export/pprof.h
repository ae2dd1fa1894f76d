/* pprof.h - shared by export/pprof.c (the profile's tables, from the
 * trace) and export/pprof_write.c (the tables as gzip-compressed
 * profile.proto). Built with protobuf-c only. */
#ifndef PA_EXPORT_PPROF_H
#define PA_EXPORT_PPROF_H
#ifdef PA_HAVE_PROTOBUF_C

#include "export/export.h"

#include <errno.h>

#define ZLIB_CONST
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "profile.pb-c.h"

#define UNKNOWN_NAME "[unknown]"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Label PbLabel;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;

/* One pprof Mapping: a DSO. */
struct pmap {
	const struct pa_dso *dso;
	uint64_t bias; /* runtime address - map-relative address */
	bool has_bias;
	uint64_t lo, hi; /* map-relative addresses of its locations */
	bool has_fn, has_file, has_line, has_inl;
	uint64_t main_score; /* samples whose comm is this DSO's name */
	uint32_t id;
	uint32_t file, build_id; /* string indices */
};

/* One pprof Location: (DSO, map-relative address, variant). */
struct ploc {
	uint32_t map;     /* mapping index + 1, 0: none */
	uint32_t variant; /* 0, or a lone inline frame's location id + 1 */
	uint32_t rep;     /* the resolver location that describes it */
	uint64_t addr;
	uint64_t hash;
	uint32_t first_line, nr_lines;
};

struct pline {
	uint32_t fn; /* function index */
	int64_t line;
};

struct pfunc {
	uint32_t name, file;  /* string indices */
	uint32_t system_name; /* the symbol's linkage (mangled) name, else name */
	uint32_t start_line;  /* where it is declared, 0 unknown */
	uint64_t hash;
};

/* One aggregated sample; its stack is pool[off, off + len). */
struct pagg {
	uint32_t off, len;
	uint16_t evsel;
	uint32_t comm; /* string index */
	int32_t pid, tid;
	uint32_t cpu; /* UINT32_MAX: no cpu label */
	uint64_t hash;
	uint64_t samples, period;
};

struct pev {
	bool used;
	bool clock;
	uint64_t samples, period;
	uint32_t slot; /* its first value's index in Sample.value */
	uint32_t type_samples, type_period, unit_period; /* string indices */
};

/* The gzip stream to the FILE, as a protobuf-c output buffer. */
struct zout {
	ProtobufCBuffer base;
	z_stream z;
	bool z_ready;
	FILE *out;
	int err; /* first error, negative */
	uint8_t buf[64 * 1024];
};

struct pp {
	struct pa_trace *t;
	struct pa_resolver *r;
	struct pa_session *s;
	struct pa_file *f;
	const struct pa_loc *locs;
	size_t nr_locs;
	const uint32_t *inl;
	bool cpu_label;
	struct pa_arena arena;

	/* inline frames -> the location they belong to */
	uint32_t *inl_parent; /* location id + 1, 0: not an inline frame */
	uint16_t *inl_pos;
	uint32_t *loc_ploc; /* resolver location (unit) -> ploc index + 1 */

	/* the string table; [0] is "" */
	char **strs;
	size_t nr_strs, cap_strs;
	uint64_t *str_hash;
	size_t cap_str_hash;
	uint32_t *str_tab;
	size_t str_tab_cap;
	const char *last_comm;
	uint32_t last_comm_idx;

	struct pmap *maps;
	size_t nr_maps, cap_maps;
	uint32_t *dso_map; /* dso idx -> map index + 1 */
	size_t nr_dso_map;

	struct ploc *plocs;
	size_t nr_plocs, cap_plocs;
	uint32_t *ploc_tab;
	size_t ploc_tab_cap;

	struct pline *lines;
	size_t nr_lines, cap_lines;

	struct pfunc *funcs;
	size_t nr_funcs, cap_funcs;
	uint32_t *func_tab;
	size_t func_tab_cap;

	struct pagg *aggs;
	size_t nr_aggs, cap_aggs;
	uint32_t *agg_tab;
	size_t agg_tab_cap;
	uint32_t *pool;
	size_t pool_len, pool_cap;
	uint32_t *stack; /* the sample being aggregated */
	size_t stack_cap;

	struct pev *evs;
	unsigned nr_evs;
	uint64_t t_first, t_last;
	bool has_time;
	/* string indices of the labels' keys and of "count" */
	uint32_t k_comm, k_pid, k_tid, k_cpu, k_count;
};

/* pprof.c */
int pa_pprof_str_idx(struct pp *p, const char *s, uint32_t *out);
int64_t pa_pprof_event_period(struct pp *p, unsigned e);
/* pprof_write.c: the profile, gzip-compressed, to out */
int pa_pprof_write(struct pp *p, FILE *out);

#endif /* PA_HAVE_PROTOBUF_C */
#endif
