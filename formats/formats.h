/* formats.h - perf.data (file and pipe mode, zstd) as host-endian events.
 *
 * This is the only layer that knows byte order and word size. Everything it
 * hands out is in host byte order. Records are streamed: pa_file_next()
 * returns one event at a time, and the pointers inside an event (strings,
 * call chains, raw payloads) stay valid only until the next call, unless the
 * documentation of a field says otherwise. When the file has the host's byte
 * order, those pointers point into the mapped file (zero copy).
 *
 * Lifecycle: pa_file_open() -> pa_file_next()... -> pa_file_close().
 * Header facts (features, attrs) are available right after open in file
 * mode; in pipe mode they accumulate as HEADER_* records stream by.
 * A pipe from Chromium OS's perf of the kernel 3.x era, whose header
 * features are records 69..81 of their own (see stream.c), is read
 * too: each such record is handed out as the HEADER_FEATURE record that
 * upstream's perf writes for the same feature.
 */
#ifndef PA_FORMATS_H
#define PA_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* perf_event_header.type values (kernel 0..22, perf's own 64..84). */
enum pa_rec_type {
	PA_REC_MMAP = 1,
	PA_REC_LOST = 2,
	PA_REC_COMM = 3,
	PA_REC_EXIT = 4,
	PA_REC_THROTTLE = 5,
	PA_REC_UNTHROTTLE = 6,
	PA_REC_FORK = 7,
	PA_REC_READ = 8,
	PA_REC_SAMPLE = 9,
	PA_REC_MMAP2 = 10,
	PA_REC_AUX = 11,
	PA_REC_ITRACE_START = 12,
	PA_REC_LOST_SAMPLES = 13,
	PA_REC_SWITCH = 14,
	PA_REC_SWITCH_CPU_WIDE = 15,
	PA_REC_NAMESPACES = 16,
	PA_REC_KSYMBOL = 17,
	PA_REC_BPF_EVENT = 18,
	PA_REC_CGROUP = 19,
	PA_REC_TEXT_POKE = 20,
	PA_REC_AUX_OUTPUT_HW_ID = 21,
	PA_REC_CALLCHAIN_DEFERRED = 22,
	PA_REC_KERNEL_MAX = 23,

	PA_REC_HEADER_ATTR = 64,
	PA_REC_HEADER_EVENT_TYPE = 65,
	PA_REC_HEADER_TRACING_DATA = 66,
	PA_REC_HEADER_BUILD_ID = 67,
	PA_REC_FINISHED_ROUND = 68,
	PA_REC_ID_INDEX = 69,
	PA_REC_AUXTRACE_INFO = 70,
	PA_REC_AUXTRACE = 71,
	PA_REC_AUXTRACE_ERROR = 72,
	PA_REC_THREAD_MAP = 73,
	PA_REC_CPU_MAP = 74,
	PA_REC_STAT_CONFIG = 75,
	PA_REC_STAT = 76,
	PA_REC_STAT_ROUND = 77,
	PA_REC_EVENT_UPDATE = 78,
	PA_REC_TIME_CONV = 79,
	PA_REC_HEADER_FEATURE = 80,
	PA_REC_COMPRESSED = 81,
	PA_REC_FINISHED_INIT = 82,
	PA_REC_COMPRESSED2 = 83,
	PA_REC_BPF_METADATA = 84,
	PA_REC_USER_MAX = 85,
};

/* Name as perf spells it after "PERF_RECORD_", or NULL if unknown. */
const char *pa_rec_type_name(uint32_t type);

/* perf_event_header.misc */
#define PA_MISC_CPUMODE_MASK 7
#define PA_MISC_KERNEL 1
#define PA_MISC_USER 2
#define PA_MISC_HYPERVISOR 3
#define PA_MISC_GUEST_KERNEL 4
#define PA_MISC_GUEST_USER 5
#define PA_MISC_MMAP_DATA (1 << 13)
#define PA_MISC_COMM_EXEC (1 << 13)
#define PA_MISC_SWITCH_OUT (1 << 13)
#define PA_MISC_EXACT_IP (1 << 14)
#define PA_MISC_MMAP_BUILD_ID (1 << 14)
#define PA_MISC_BUILD_ID_SIZE (1 << 15)

/* sample_type bits */
enum {
	PA_SAMPLE_IP = 1u << 0,
	PA_SAMPLE_TID = 1u << 1,
	PA_SAMPLE_TIME = 1u << 2,
	PA_SAMPLE_ADDR = 1u << 3,
	PA_SAMPLE_READ = 1u << 4,
	PA_SAMPLE_CALLCHAIN = 1u << 5,
	PA_SAMPLE_ID = 1u << 6,
	PA_SAMPLE_CPU = 1u << 7,
	PA_SAMPLE_PERIOD = 1u << 8,
	PA_SAMPLE_STREAM_ID = 1u << 9,
	PA_SAMPLE_RAW = 1u << 10,
	PA_SAMPLE_BRANCH_STACK = 1u << 11,
	PA_SAMPLE_REGS_USER = 1u << 12,
	PA_SAMPLE_STACK_USER = 1u << 13,
	PA_SAMPLE_WEIGHT = 1u << 14,
	PA_SAMPLE_DATA_SRC = 1u << 15,
	PA_SAMPLE_IDENTIFIER = 1u << 16,
	PA_SAMPLE_TRANSACTION = 1u << 17,
	PA_SAMPLE_REGS_INTR = 1u << 18,
	PA_SAMPLE_PHYS_ADDR = 1u << 19,
	PA_SAMPLE_AUX = 1u << 20,
	PA_SAMPLE_CGROUP = 1u << 21,
	PA_SAMPLE_DATA_PAGE_SIZE = 1u << 22,
	PA_SAMPLE_CODE_PAGE_SIZE = 1u << 23,
	PA_SAMPLE_WEIGHT_STRUCT = 1u << 24,
	PA_SAMPLE_MAX = 1u << 25,
};

enum {
	PA_FORMAT_TOTAL_TIME_ENABLED = 1,
	PA_FORMAT_TOTAL_TIME_RUNNING = 2,
	PA_FORMAT_ID = 4,
	PA_FORMAT_GROUP = 8,
	PA_FORMAT_LOST = 16,
};

#define PA_BRANCH_HW_INDEX (1ull << 17)
#define PA_BRANCH_COUNTERS (1ull << 19)

/* Call-chain context markers. */
#define PA_CONTEXT_HV ((uint64_t)-32)
#define PA_CONTEXT_KERNEL ((uint64_t)-128)
#define PA_CONTEXT_USER ((uint64_t)-512)
#define PA_CONTEXT_GUEST ((uint64_t)-2048)
#define PA_CONTEXT_GUEST_KERNEL ((uint64_t)-2176)
#define PA_CONTEXT_GUEST_USER ((uint64_t)-2560)
#define PA_CONTEXT_MAX ((uint64_t)-4095)

/* Bit numbers of perf_event_attr's flag word, in the kernel's order. */
enum pa_attr_flag {
	PA_ATTR_DISABLED,
	PA_ATTR_INHERIT,
	PA_ATTR_PINNED,
	PA_ATTR_EXCLUSIVE,
	PA_ATTR_EXCLUDE_USER,
	PA_ATTR_EXCLUDE_KERNEL,
	PA_ATTR_EXCLUDE_HV,
	PA_ATTR_EXCLUDE_IDLE,
	PA_ATTR_MMAP,
	PA_ATTR_COMM,
	PA_ATTR_FREQ,
	PA_ATTR_INHERIT_STAT,
	PA_ATTR_ENABLE_ON_EXEC,
	PA_ATTR_TASK,
	PA_ATTR_WATERMARK,
	PA_ATTR_PRECISE_IP, /* 2 bits: 15..16 */
	PA_ATTR_MMAP_DATA = 17,
	PA_ATTR_SAMPLE_ID_ALL,
	PA_ATTR_EXCLUDE_HOST,
	PA_ATTR_EXCLUDE_GUEST,
	PA_ATTR_EXCLUDE_CALLCHAIN_KERNEL,
	PA_ATTR_EXCLUDE_CALLCHAIN_USER,
	PA_ATTR_MMAP2,
	PA_ATTR_COMM_EXEC,
	PA_ATTR_USE_CLOCKID,
	PA_ATTR_CONTEXT_SWITCH,
	PA_ATTR_WRITE_BACKWARD,
	PA_ATTR_NAMESPACES,
	PA_ATTR_KSYMBOL,
	PA_ATTR_BPF_EVENT,
	PA_ATTR_AUX_OUTPUT,
	PA_ATTR_CGROUP,
	PA_ATTR_TEXT_POKE,
	PA_ATTR_BUILD_ID,
	PA_ATTR_INHERIT_THREAD,
	PA_ATTR_REMOVE_ON_EXEC,
	PA_ATTR_SIGTRAP,
	PA_ATTR_FLAG_COUNT,
};

/* perf_event_attr in host order. "flags" holds the bitfield word with bit
 * N = flag N as the kernel numbers them (little-endian layout), whatever
 * the writer's byte order; precise_ip is also decoded on its own. */
struct pa_attr {
	uint32_t type;
	uint32_t size; /* as recorded (0 means VER0) */
	uint64_t config;
	uint64_t sample_period; /* or sample_freq when PA_ATTR_FREQ */
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags;
	uint32_t precise_ip;
	uint32_t wakeup_events;
	uint32_t bp_type;
	uint64_t config1; /* bp_addr */
	uint64_t config2; /* bp_len */
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint32_t aux_sample_size;
	uint32_t aux_action;
	uint64_t sig_data;
	uint64_t config3;
};

static inline bool pa_attr_flag(const struct pa_attr *a, enum pa_attr_flag f)
{
	return (a->flags >> f) & 1;
}

/* One event selector: an attr, its ids and its name. Owned by the file. */
struct pa_evsel {
	unsigned idx;
	struct pa_attr attr;
	const char *name; /* from EVENT_DESC or HEADER_EVENT_UPDATE; may be NULL */
	const uint64_t *ids;
	uint32_t nr_ids;
	uint32_t sample_size; /* bytes of the fixed part (perf's evsel->sample_size) */
	int id_pos, is_pos;  /* id position in samples / from the end of trailers */
	/* offsets in a sample record (from its start) of IP, TID, TIME, CPU
	 * and PERIOD, fixed slots that come before any variable part; 0: none */
	uint32_t ip_pos, tid_pos, time_pos, cpu_pos, period_pos;
};

/* The event's name: the recorded one, else what perf derives from the attr
 * ("cycles", "cpu-clock:HG", "raw 0x1234", ...), written into buf. */
const char *pa_evsel_name(const struct pa_evsel *e, char *buf, size_t size);


/* Header feature bits. */
enum pa_feat {
	PA_FEAT_RESERVED = 0,
	PA_FEAT_TRACING_DATA,
	PA_FEAT_BUILD_ID,
	PA_FEAT_HOSTNAME,
	PA_FEAT_OSRELEASE,
	PA_FEAT_VERSION,
	PA_FEAT_ARCH,
	PA_FEAT_NRCPUS,
	PA_FEAT_CPUDESC,
	PA_FEAT_CPUID,
	PA_FEAT_TOTAL_MEM,
	PA_FEAT_CMDLINE,
	PA_FEAT_EVENT_DESC,
	PA_FEAT_CPU_TOPOLOGY,
	PA_FEAT_NUMA_TOPOLOGY,
	PA_FEAT_BRANCH_STACK,
	PA_FEAT_PMU_MAPPINGS,
	PA_FEAT_GROUP_DESC,
	PA_FEAT_AUXTRACE,
	PA_FEAT_STAT,
	PA_FEAT_CACHE,
	PA_FEAT_SAMPLE_TIME,
	PA_FEAT_MEM_TOPOLOGY,
	PA_FEAT_CLOCKID,
	PA_FEAT_DIR_FORMAT,
	PA_FEAT_BPF_PROG_INFO,
	PA_FEAT_BPF_BTF,
	PA_FEAT_COMPRESSED,
	PA_FEAT_CPU_PMU_CAPS,
	PA_FEAT_CLOCK_DATA,
	PA_FEAT_HYBRID_TOPOLOGY,
	PA_FEAT_PMU_CAPS,
	PA_FEAT_LAST_KNOWN,
	PA_FEAT_BITS = 256,
};

/* Name of a feature as perf spells it (HOSTNAME, ...), or NULL. */
const char *pa_feat_name(unsigned feat);

/* One build-id entry (BUILD_ID feature, pipe HEADER_BUILD_ID record). */
struct pa_buildid_entry {
	int32_t pid;
	uint16_t misc;
	uint8_t size;
	uint8_t id[20];
	const char *filename;
};

struct pa_group_desc {
	const char *name;
	uint32_t leader_idx, nr_members;
};

/* One EVENT_DESC entry. */
struct pa_event_desc {
	struct pa_attr attr;
	const char *name;
	const uint64_t *ids;
	uint32_t nr_ids;
};

struct pa_pmu_mapping {
	uint32_t type;
	const char *name;
};

/* One tracepoint format file of the TRACING_DATA section (its text
 * NUL-terminated; system: "ftrace" for ftrace's own). */
struct pa_tracing_file {
	const char *system;
	const char *text;
	size_t len;
};

/* The TRACING_DATA section: what a tracepoint's raw payload is, for a
 * printer (libtraceevent's inputs). Raw payloads stay in the byte order
 * big_endian says, with longs of long_size bytes. */
struct pa_tracing_data {
	bool big_endian;
	uint8_t long_size;
	uint32_t page_size;
	const char *header_page, *header_event;
	size_t header_page_len, header_event_len;
	const struct pa_tracing_file *ftrace, *events;
	uint32_t nr_ftrace, nr_events;
	const char *kallsyms, *printk; /* NUL-terminated */
	size_t kallsyms_len, printk_len;
};

/* What the header and its feature sections say. Strings are owned by the
 * file and live until pa_file_close(). */
struct pa_header_info {
	uint8_t feat_present[PA_FEAT_BITS / 8]; /* bitmap, bit N = feature N */
	/* Features present but damaged (a section or HEADER_FEATURE record
	 * that does not parse): warned about (pa_file_opts.warn) and
	 * ignored, their fields left empty (NULL, 0), as perf leaves a feature
	 * whose section it fails to read. */
	uint8_t feat_damaged[PA_FEAT_BITS / 8];
	const char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nr_cpus_online, nr_cpus_avail;
	uint64_t total_mem; /* kB */
	const char *const *cmdline;
	uint32_t nr_cmdline;
	uint64_t first_sample_time, last_sample_time;
	uint64_t clockid_res_ns;
	struct {
		uint32_t version, type, level, ratio, mmap_len;
	} compressed;
	const struct pa_group_desc *groups;
	uint32_t nr_groups;
	const struct pa_buildid_entry *buildids;
	uint32_t nr_buildids;
	const struct pa_event_desc *event_desc;
	uint32_t nr_event_desc;
	const struct pa_pmu_mapping *pmu_mappings;
	uint32_t nr_pmu_mappings;
	const struct pa_tracing_data *tracing; /* NULL: no TRACING_DATA section */
};

static inline bool pa_header_has_feat(const struct pa_header_info *h, unsigned f)
{
	return f < PA_FEAT_BITS && (h->feat_present[f / 8] >> (f % 8)) & 1;
}

static inline bool pa_header_feat_damaged(const struct pa_header_info *h, unsigned f)
{
	return f < PA_FEAT_BITS && (h->feat_damaged[f / 8] >> (f % 8)) & 1;
}

/* Decoded sample, or the sample_id trailer of a non-sample record (then
 * only the id fields are set). Arrays are host order. */
struct pa_sample {
	uint64_t type; /* which PA_SAMPLE_* fields are present */
	uint64_t ip, id, stream_id, time, addr, period, weight, data_src;
	uint64_t transaction, phys_addr, cgroup, data_page_size, code_page_size;
	uint32_t pid, tid, cpu;
	const uint64_t *callchain;
	uint64_t callchain_nr;
	const void *raw; /* left in the writer's byte order */
	uint32_t raw_size;
	struct {
		/* nr triples: from, to, flags (pa_branch_flags decodes the
		 * flags word, little-endian layout whatever the file's) */
		const uint64_t *entries;
		const uint64_t *counters;
		uint64_t nr, hw_idx;
	} branch;
	struct {
		uint64_t abi, mask;
		const uint64_t *regs;
		uint32_t nr;
	} user_regs, intr_regs;
	struct {
		const uint8_t *data;
		uint64_t size, dyn_size;
		/* every 8-byte unit of data is reversed: a big-endian file,
		 * whose writer swapped the copy of a little-endian stack as
		 * u64s (perf inject on a big-endian machine); byte i of the
		 * stack is data[(i & ~7) | (7 - (i & 7))] then */
		bool units_reversed;
	} user_stack;
	struct {
		const uint64_t *values; /* read_format layout, host order */
		uint32_t nr_values;
	} read;
	struct {
		const uint8_t *data;
		uint64_t size;
	} aux;
};

/* A branch entry's flags (the kernel's perf_branch_entry bit-fields). */
struct pa_branch_flags {
	bool mispred, predicted, in_tx, abort;
	uint16_t cycles;
	uint8_t type, spec, new_type, priv;
};

/* perf's names of PERF_BR_* types ("N/A" for 0, "EXTEND_ABI" for 15) and
 * of PERF_BR_NEW_* types (the new_type of an EXTEND_ABI entry); NULL out
 * of range. */
const char *pa_branch_type_name(unsigned type);
const char *pa_branch_new_type_name(unsigned new_type);

/* The bytes of a sample's user stack copy the kernel could fill (its
 * dyn_size, at most the copy's size): what perf calls the stack's size.
 * 0 when the copy failed (the stack's page was not there) - then perf
 * does not unwind the sample at all. */
static inline uint64_t pa_sample_stack_len(const struct pa_sample *sm)
{
	uint64_t n = sm->user_stack.size, dyn = sm->user_stack.dyn_size;
	return sm->user_stack.data ? (dyn < n ? dyn : n) : 0;
}

static inline struct pa_branch_flags pa_branch_flags(uint64_t v)
{
	return (struct pa_branch_flags){.mispred = v & 1,
	                                .predicted = v >> 1 & 1,
	                                .in_tx = v >> 2 & 1,
	                                .abort = v >> 3 & 1,
	                                .cycles = (uint16_t)(v >> 4),
	                                .type = v >> 20 & 0xf,
	                                .spec = v >> 24 & 3,
	                                .new_type = v >> 26 & 0xf,
	                                .priv = v >> 30 & 7};
}

struct pa_event {
	uint32_t type;
	uint16_t misc;
	uint32_t size;        /* bytes the record takes in its stream */
	uint64_t offset;      /* offset in the file (of the enclosing COMPRESSED record) */
	uint64_t dec_offset;  /* offset inside the decompressed stream, when compressed */
	bool compressed;      /* came out of a COMPRESSED/COMPRESSED2 record */
	/* The record's bytes where they stay put until pa_file_close(): a
	 * mapped file in host byte order, outside compressed records; else
	 * NULL. pa_file_decode_raw() decodes them again. */
	const void *raw;
	/* pa_file_set_lazy_samples(): a sample of which only type, misc,
	 * size, offset, raw, evsel and sample.type, .time, .ip, .pid and .tid
	 * are set; pa_file_sample_sums() and pa_file_decode_raw() give the rest. */
	bool lazy;
	const struct pa_evsel *evsel; /* for samples and records with a trailer */
	struct pa_sample sample;
	union {
		struct {
			uint32_t pid, tid;
			uint64_t start, len, pgoff;
			uint32_t maj, min, prot, flags;
			uint64_t ino, ino_generation;
			uint8_t build_id[20];
			uint8_t build_id_size; /* non-zero if MISC_MMAP_BUILD_ID */
			const char *filename;
		} mmap; /* MMAP and MMAP2 */
		struct {
			uint32_t pid, tid;
			const char *comm;
		} comm;
		struct {
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} fork; /* FORK and EXIT */
		struct {
			uint64_t id, lost;
		} lost;
		struct {
			uint64_t lost;
		} lost_samples;
		struct {
			uint64_t time, id, stream_id;
		} throttle;
		struct {
			uint32_t pid, tid;
		} itrace_start;
		struct {
			uint32_t next_prev_pid, next_prev_tid;
		} context_switch;
		struct {
			uint64_t aux_offset, aux_size, flags;
		} aux;
		struct {
			uint64_t addr;
			uint32_t len;
			uint16_t ksym_type, flags;
			const char *name;
		} ksymbol;
		struct {
			uint16_t type, flags;
			uint32_t id;
		} bpf_event;
		struct {
			uint64_t id;
			const char *path;
		} cgroup;
		struct {
			uint64_t addr;
			uint16_t old_len, new_len;
		} text_poke;
		struct {
			uint32_t pid, tid;
			uint64_t nr_namespaces;
		} namespaces;
		struct {
			uint32_t pid, tid;
		} read;
		struct pa_buildid_entry build_id;
		struct {
			uint64_t feat;
		} feature;
		struct {
			const struct pa_evsel *evsel; /* the new evsel */
		} header_attr;
		struct {
			uint64_t size; /* payload bytes that follow the record */
			uint64_t offset, reference;
			uint32_t idx, tid, cpu;
		} auxtrace;
		struct {
			uint32_t size;
		} tracing_data;
		struct {
			uint64_t nr;
		} id_index;
		struct {
			uint64_t cookie, nr;
			const uint64_t *ips;
		} callchain_deferred;
	} u;
};

/* A copy of a record other than a sample that outlives the reader: the
 * union and the sample_id fields, the names it points to copied into the
 * arena (mmap filename, comm, build-id filename), and a READ record's
 * values; none of a sample's payload (call chain, registers, stack...).
 * 0 or -ENOMEM. */
int pa_event_keep(struct pa_arena *a, struct pa_event *dst, const struct pa_event *src);
/* A decoded sample's arrays that may lie in the reader's scratch space
 * (call chain, branch entries and counters, registers, read values)
 * copied to a and pointed to there, so that the event outlives the next
 * decode. 0 or -ENOMEM. */
int pa_event_keep_arrays(struct pa_arena *a, struct pa_event *ev);

enum pa_file_mode { PA_FILE_MODE_FILE, PA_FILE_MODE_PIPE };

#define PA_MAX_INFLATE_RATIO 1024u

/* Options for pa_file_open(); zero-initialize with PA_OPTS_INIT. */
struct pa_file_opts {
	size_t sz;
	/* Expose records that exist only to frame others (COMPRESSED,
	 * COMPRESSED2) as events too; by default only their contents are.
	 * (Whatever the options, a compressed record that inflates to more
	 * than PA_MAX_INFLATE_RATIO times its payload, plus 4 KiB, is an
	 * error, -PA_ERR_LIMIT: real ones inflate 5-20 times.) */
	bool show_containers;
	/* Use read() instead of mmap() even for regular files. */
	bool no_mmap;
	/* Damage in an optional part of a recording (a feature section or
	 * HEADER_FEATURE record that does not parse; a BUILD_ID entry of a
	 * bad size, which ends the build-id table there, as it does for perf)
	 * is not an error: the reader ignores that part and, when warn is
	 * set, calls it once per damaged part with the input's path (as given
	 * to pa_file_open()), the file offset of the damage and a message
	 * ("malformed CPUDESC feature section"). The library prints nothing. */
	void (*warn)(void *ctx, const char *path, uint64_t offset, const char *msg);
	void *warn_ctx;
	/* No helper thread (by default, a large mapped input is touched ahead
	 * of the reader on a second CPU, where there is one). */
	bool no_threads;
};

#define PA_OPTS_INIT(type, ...) ((struct type){.sz = sizeof(struct type), __VA_ARGS__})

struct pa_file;

/* Open "path" ("-" means standard input). Returns NULL and fills *err.
 * Free with pa_file_close(). */
struct pa_file *pa_file_open(const char *path, const struct pa_file_opts *opts,
			     struct pa_err *err);
void pa_file_close(struct pa_file *f);

/* Next event: 1 and *ev filled, 0 at the end, negative on error (*err
 * filled with the offset). */
int pa_file_next(struct pa_file *f, struct pa_event *ev, struct pa_err *err);

/* Decode again the record of an event pa_file_next() gave with ev->raw
 * set, into *ev, as pa_file_next() did (so a reader can keep a pointer in
 * place of a copy). It reuses the reader's scratch space: what the last
 * event pa_file_next() gave points to there (a byte-swapped or unaligned
 * array) is no longer valid. 0, or negative with *err filled.
 * pa_file_decoded_in_place: whether the last event decoded points into
 * the mapped file only (not the scratch space), so that it stays valid
 * while others are decoded. */
int pa_file_decode_raw(struct pa_file *f, const void *raw, struct pa_event *ev, struct pa_err *err);
bool pa_file_decoded_in_place(const struct pa_file *f);
/* Whether a reader of f may give the second CPU work of its own: a mapped
 * input with 16 MB or more still to read, two CPUs, threads not refused
 * (opts.no_threads) and no helper of f's touching the data ahead. */
bool pa_file_leaves_cpu(const struct pa_file *f);
/* Before the first pa_file_next(): the reader means to give the second
 * CPU work of its own (pa_file_leaves_cpu), so no helper of f's touches
 * the data ahead. */
void pa_file_set_no_helper(struct pa_file *f, bool on);
/* While on, a sample that pa_file_next() would give with ev->raw set comes
 * lazy (its time and event only: pa_event.lazy), for a reader that orders
 * samples by time and decodes them when it delivers them. Off at open. */
void pa_file_set_lazy_samples(struct pa_file *f, bool on);
/* A sample's cpu and period, read now from a lazy one (for a reader that
 * needs them: the lazy read itself stays what a pass that needs only the
 * ip reads). */
void pa_file_sample_sums(const struct pa_file *f, const struct pa_event *ev, uint32_t *cpu,
                         uint64_t *period);

enum pa_file_mode pa_file_mode(const struct pa_file *f);
bool pa_file_needs_swap(const struct pa_file *f);
const char *pa_file_path(const struct pa_file *f);
const struct pa_header_info *pa_file_header(const struct pa_file *f);

/* File-mode header facts (zero in pipe mode). */
struct pa_file_layout {
	uint64_t header_size, attr_size;
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t feat_offset;
	uint64_t file_size;
	int version; /* 1 = PERFFILE, 2 = PERFILE2 */
};
const struct pa_file_layout *pa_file_layout(const struct pa_file *f);

/* A file may hold at most this many event attributes (perf records a few;
 * later layers keep an evsel index in 16 bits): more is -PA_ERR_LIMIT. */
#define PA_FILE_MAX_EVSELS 65535u

unsigned pa_file_nr_evsels(const struct pa_file *f);
const struct pa_evsel *pa_file_evsel(const struct pa_file *f, unsigned idx);
/* Does an event record user registers and a user stack copy (perf record
 * --call-graph dwarf)? (A pipe's events are known once their attributes
 * are read.) */
bool pa_file_records_user_stacks(const struct pa_file *f);
/* The evsel a sample id belongs to (the first one when there is one). */
const struct pa_evsel *pa_file_evsel_by_id(const struct pa_file *f, uint64_t id);

/* Count of records seen per type, including the ones only skipped. */
uint64_t pa_file_count(const struct pa_file *f, uint32_t type);
/* Records of types this reader does not know, skipped by size. */
uint64_t pa_file_unknown_count(const struct pa_file *f);
/* True if the data section looked cut short (writer killed) and the
 * reader stopped at the last complete record. */
bool pa_file_was_truncated(const struct pa_file *f);

/* Low-level, exported for unit tests: decode the attr flag word as it
 * lies in a file written in big- or little-endian order. */
uint64_t pa_attr_decode_flags(const uint8_t raw[8], bool big_endian, uint32_t *precise_ip);

/* ---- GNOME sysprof captures (.syscap) -------------------------------------
 *
 * pa_file_open() recognizes a sysprof capture by its magic and streams the
 * same events as for perf.data, in host order, whichever byte order wrote
 * it (the header's little_endian flag says which):
 *
 *   PROCESS -> COMM, misc PA_MISC_COMM_EXEC, pid == tid. The comm is the
 *              frame's string when it could be one (at most 15 bytes, no
 *              '/': what sysprof copies from perf's COMM); otherwise it is a
 *              command line and the comm is the basename of its first word,
 *              cut to 15 bytes as the kernel cuts an exec'd path.
 *   FORK    -> FORK {pid = tid = child, ppid = ptid = parent}. A FORK whose
 *              child is the parent itself (sysprof keeps no tid for a new
 *              thread) is skipped: it would wipe the process's maps.
 *   EXIT    -> EXIT {pid = tid = pid, ppid = ptid = (uint32_t)-1: unknown}.
 *   MAP     -> MMAP2 {start, len = end - start, pgoff = offset, ino = inode,
 *              prot = PROT_READ|PROT_EXEC, flags = MAP_PRIVATE, filename},
 *              with the build-id when the frame carries one (sysprof >= 45
 *              writes "FILENAME\0@HEX\0").
 *   SAMPLE  -> SAMPLE of the one synthesized evsel ("cpu-clock", software
 *              cpu-clock, period 1 per sample), pid, tid, cpu (-1 when the
 *              frame says so), time, and the address list as the call chain,
 *              leaf first. sysprof keeps perf's PA_CONTEXT_* markers in the
 *              list (its perf source copies perf's call chain); they are
 *              kept. A list without any (sysprof's in-process collector) gets
 *              PA_CONTEXT_KERNEL / PA_CONTEXT_USER markers inserted wherever
 *              it switches between kernel addresses (>= 0xffff800000000000,
 *              the upper half of a 64-bit address space) and the others.
 *              sample.ip is the first address that is not a marker, misc
 *              the cpumode of its context.
 *   JITMAP, METADATA, MARK, TIMESTAMP: read at open (see below); not events.
 *   Others (counters, logs, file chunks, allocations, ...): skipped by their
 *              length, counted by pa_file_unknown_count().
 *
 * Two kinds of record are synthesized, never written by sysprof:
 *   - one MMAP {pid -1, tid 0, misc PA_MISC_KERNEL, start 0, len
 *     UINT64_MAX, "[kernel.kallsyms]_text"} before the first sample with
 *     a kernel address (a capture has no kernel maps; kernel addresses are
 *     absolute), without PA_SAMPLE_TIME;
 *   - one MMAP2 per process, named PA_JIT_DSO_NAME, spanning the capture's
 *     JIT addresses (pgoff = start, so a map-relative address is the JIT
 *     address itself), just before the first of its samples that uses one,
 *     with that sample's time.
 * Every record carries the evsel and a sample_id-like pid/tid/time/cpu
 * (sample.type = TID|TIME|CPU), so that the session orders them with the
 * samples. Synthesized records point at the frame that caused them.
 *
 * Frames must be 8-byte multiples of at least 24 bytes that fit in the
 * file; anything else is an error with the frame's offset. The whole
 * capture is mapped (or, from a pipe, read into memory) and its frame
 * headers are walked once at open. */

enum pa_file_format { PA_FILE_FORMAT_PERF, PA_FILE_FORMAT_SYSCAP };
enum pa_file_format pa_file_format(const struct pa_file *f);
/* Does the event's period count nanoseconds (perf's cpu-clock and
 * task-clock), rather than events or samples? */
bool pa_evsel_period_is_ns(const struct pa_file *f, const struct pa_evsel *e);

/* sysprof's JIT addresses are names, not code: its collector gives each
 * JIT'd function name an address (0xE000000000000000 | n on 64-bit
 * writers, 0xE0000000 | n on 32-bit ones) and JITMAP frames list them. The
 * table is per file (sysprof does not scope it by process), sorted by
 * address, unique (a later entry wins), complete right after open, and
 * owned by the file. Empty for perf.data. The maps synthesized for it are
 * named PA_JIT_DSO_NAME; the address of a sample in such a map (its
 * map-relative address too) is the key to look up here. */
#define PA_JIT_DSO_NAME "[sysprof-jit]"
struct pa_jit_sym {
	uint64_t addr;
	const char *name;
};
const struct pa_jit_sym *pa_file_jit_syms(const struct pa_file *f, size_t *nr);
/* The name of a JIT address, or NULL. O(log n). */
const char *pa_file_jit_name(const struct pa_file *f, uint64_t addr);

/* sysprof frame types, as numbered in the capture format. */
enum pa_syscap_frame {
	PA_SYSCAP_TIMESTAMP = 1,
	PA_SYSCAP_SAMPLE = 2,
	PA_SYSCAP_MAP = 3,
	PA_SYSCAP_PROCESS = 4,
	PA_SYSCAP_FORK = 5,
	PA_SYSCAP_EXIT = 6,
	PA_SYSCAP_JITMAP = 7,
	PA_SYSCAP_CTRDEF = 8,
	PA_SYSCAP_CTRSET = 9,
	PA_SYSCAP_MARK = 10,
	PA_SYSCAP_METADATA = 11,
	PA_SYSCAP_LOG = 12,
	PA_SYSCAP_FILE_CHUNK = 13,
	PA_SYSCAP_ALLOCATION = 14,
	PA_SYSCAP_OVERLAY = 15,
	PA_SYSCAP_TRACE = 16,
	PA_SYSCAP_DBUS_MESSAGE = 17,
	PA_SYSCAP_FRAME_TYPES = 32, /* counted per type below this; others in [0] */
};
/* "SAMPLE", "MAP", ... or NULL for a type this reader has no name for. */
const char *pa_syscap_frame_name(unsigned type);

struct pa_syscap_metadata {
	const char *id, *value;
};

struct pa_syscap_mark {
	int64_t time, duration; /* ns */
	int32_t pid;
	int16_t cpu;
	const char *group, *name, *message;
};

/* What a capture's header and its JITMAP, METADATA, MARK and TIMESTAMP
 * frames say; all of it known right after open. Owned by the file. */
struct pa_syscap_info {
	uint32_t version;
	bool big_endian;
	const char *capture_time;      /* the header's ISO 8601 string */
	int64_t start_time, end_time;  /* the header's, ns (end 0: not written) */
	int64_t first_time, last_time; /* smallest and largest frame time */
	const struct pa_syscap_metadata *metadata; /* in file order */
	uint32_t nr_metadata;
	const struct pa_syscap_mark *marks; /* in file order */
	uint32_t nr_marks;
	uint64_t frames[PA_SYSCAP_FRAME_TYPES]; /* frames per type */
	uint64_t skipped_forks; /* FORK frames of new threads (see above) */
};
/* NULL for perf.data. */
const struct pa_syscap_info *pa_file_syscap_info(const struct pa_file *f);

#endif
