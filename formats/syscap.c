/* syscap.c - GNOME sysprof capture files as the same events as perf.data.
 *
 * The format (sysprof's sysprof-capture-types.h; facts checked against
 * Debian's libsysprof-4-dev 3.46 and its writer): a 256-byte file header,
 * then frames, each a 24-byte header and a body, every frame a multiple of
 * 8 bytes. Everything is in the writer's byte order except the magic,
 * which every writer stores little-endian. The few bit-fields are laid out
 * so that, in either order, they read as plain integers: a u8 at the start
 * of a u32 (version, frame type) is its first byte, and a u16 at the start
 * of a u32 (n_addrs) reads as a u16 in the writer's order.
 *
 *   file header  0 u32 magic 0xFDCA975E (LE)   4 u8 version
 *                5 bit 0: little_endian (a big-endian writer leaves it 0)
 *                8 char capture_time[64]       72 i64 time   80 i64 end_time
 *   frame        0 u16 len   2 i16 cpu   4 i32 pid   8 i64 time  16 u8 type
 *   SAMPLE   24 u16 n_addrs  28 i32 tid  32 u64 addrs[n_addrs]
 *   MAP      24 u64 start, end, offset, inode  56 filename NUL [@build-id NUL]
 *   PROCESS  24 cmdline NUL
 *   FORK     24 i32 child_pid
 *   JITMAP   24 u32 n  28 n x { u64 addr (unaligned); name NUL }
 *   MARK     24 i64 duration  32 char group[24]  56 char name[40]  96 message
 *   METADATA 24 char id[40]  64 metadata
 *
 * See formats.h for how frames become events. The whole capture is in
 * memory (mapped, or read from a pipe); the frames are walked once at open
 * to validate their lengths and collect the JIT table, metadata and marks,
 * so that the JIT table is complete before the first sample (sysprof's
 * writer flushes JITMAP frames apart from the others: one may come after
 * the samples that use its addresses).
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>

#define SC_HEADER_SIZE 256u
#define SC_FRAME_SIZE 24u
#define SC_SAMPLE_SIZE 32u
#define SC_MAP_SIZE 56u
#define SC_FORK_SIZE 28u
#define SC_JITMAP_SIZE 28u
#define SC_MARK_SIZE 96u
#define SC_METADATA_SIZE 64u
#define SC_COMM_MAX 15u /* TASK_COMM_LEN - 1 */
#define SC_KERNEL_START 0xffff800000000000ull

#define PROT_READ_EXEC 5u /* PROT_READ | PROT_EXEC */
#define MAP_PRIVATE_FLAG 2u

struct pa_syscap {
	struct pa_file *f;
	const uint8_t *data;
	size_t size;
	bool swap;
	size_t pos; /* next frame */
	struct pa_evsel *evsel;
	struct pa_syscap_info info;

	struct jit_entry *scan; /* JITMAP entries in file order, while scanning */
	size_t nr_scan, cap_scan;
	struct pa_jit_sym *jit; /* then sorted and unique */
	size_t nr_jit;
	uint64_t jit_lo, jit_hi; /* [lo, hi]: the JIT addresses, when nr_jit */

	struct pa_syscap_metadata *meta;
	size_t nr_meta, cap_meta;
	struct pa_syscap_mark *marks;
	size_t nr_marks, cap_marks;

	bool kernel_map_done;
	struct pa_u64map jit_pids; /* processes already given their JIT map */
};

struct jit_entry {
	uint64_t addr;
	const char *name;
	size_t seq;
};

struct frame {
	uint16_t len;
	int16_t cpu;
	int32_t pid;
	int64_t time;
	uint8_t type;
};

static const char *const frame_names[] = {
	[PA_SYSCAP_TIMESTAMP] = "TIMESTAMP",
	[PA_SYSCAP_SAMPLE] = "SAMPLE",
	[PA_SYSCAP_MAP] = "MAP",
	[PA_SYSCAP_PROCESS] = "PROCESS",
	[PA_SYSCAP_FORK] = "FORK",
	[PA_SYSCAP_EXIT] = "EXIT",
	[PA_SYSCAP_JITMAP] = "JITMAP",
	[PA_SYSCAP_CTRDEF] = "CTRDEF",
	[PA_SYSCAP_CTRSET] = "CTRSET",
	[PA_SYSCAP_MARK] = "MARK",
	[PA_SYSCAP_METADATA] = "METADATA",
	[PA_SYSCAP_LOG] = "LOG",
	[PA_SYSCAP_FILE_CHUNK] = "FILE_CHUNK",
	[PA_SYSCAP_ALLOCATION] = "ALLOCATION",
	[PA_SYSCAP_OVERLAY] = "OVERLAY",
	[PA_SYSCAP_TRACE] = "TRACE",
	[PA_SYSCAP_DBUS_MESSAGE] = "DBUS_MESSAGE",
};

const char *pa_syscap_frame_name(unsigned type)
{
	return type < PA_ARRAY_SIZE(frame_names) ? frame_names[type] : NULL;
}

bool pa_syscap_magic(const uint8_t *p, size_t n)
{
	return n >= 4 && p[0] == 0x5e && p[1] == 0x97 && p[2] == 0xca && p[3] == 0xfd;
}

const struct pa_syscap_info *pa_syscap_info(const struct pa_syscap *sc)
{
	return &sc->info;
}

const struct pa_jit_sym *pa_syscap_jit(const struct pa_syscap *sc, size_t *nr)
{
	*nr = sc->nr_jit;
	return sc->jit;
}

const char *pa_file_jit_name(const struct pa_file *f, uint64_t addr)
{
	size_t n;
	const struct pa_jit_sym *t = pa_file_jit_syms(f, &n);
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && t[lo].addr == addr ? t[lo].name : NULL;
}

/* ---- frames ---------------------------------------------------------------- */

static const char *type_str(uint8_t type)
{
	const char *n = pa_syscap_frame_name(type);
	return n ? n : "unknown";
}

/* The frame at pos, checked to be whole. */
static int frame_at(const struct pa_syscap *sc, size_t pos, struct frame *fr, struct pa_err *err)
{
	size_t left = sc->size - pos;
	if (left < SC_FRAME_SIZE)
		return pa_err_set_at(err, PA_ERR_TRUNCATED, pos,
				     "frame header cut short (%zu of %u bytes)", left, SC_FRAME_SIZE);
	const uint8_t *p = sc->data + pos;
	fr->len = ld16(p, sc->swap);
	fr->cpu = (int16_t)ld16(p + 2, sc->swap);
	fr->pid = (int32_t)ld32(p + 4, sc->swap);
	fr->time = (int64_t)ld64(p + 8, sc->swap);
	fr->type = p[16];
	if (fr->len == 0)
		return pa_err_set_at(err, PA_ERR_FORMAT, pos, "zero-length frame");
	if (fr->len < SC_FRAME_SIZE || fr->len % 8)
		return pa_err_set_at(err, PA_ERR_FORMAT, pos,
				     "%s frame length %u is not a multiple of 8 of at least %u",
				     type_str(fr->type), fr->len, SC_FRAME_SIZE);
	if (fr->len > left)
		return pa_err_set_at(err, PA_ERR_TRUNCATED, pos,
				     "%s frame of %u bytes runs past the end of the file (%zu left)",
				     type_str(fr->type), fr->len, left);
	return 0;
}

static int too_short(size_t pos, const struct frame *fr, unsigned need, struct pa_err *err)
{
	return pa_err_set_at(err, PA_ERR_FORMAT, pos, "%s frame of %u bytes is too short (at least %u)",
			     type_str(fr->type), fr->len, need);
}

/* A string of at most n bytes: up to its NUL, or all n. */
static const char *dup_field(struct pa_syscap *sc, const uint8_t *p, size_t n)
{
	return pa_arena_strndup(pa_file_arena(sc->f), (const char *)p, strnlen((const char *)p, n));
}

static int oom(struct pa_err *err)
{
	return pa_err_set(err, -ENOMEM, "out of memory");
}

static int scan_jitmap(struct pa_syscap *sc, size_t pos, const struct frame *fr, struct pa_err *err)
{
	if (fr->len < SC_JITMAP_SIZE)
		return too_short(pos, fr, SC_JITMAP_SIZE, err);
	const uint8_t *p = sc->data + pos, *end = p + fr->len;
	uint32_t n = ld32(p + 24, sc->swap);
	/* an entry takes at least 9 bytes: n cannot make us allocate much */
	if (n > (fr->len - SC_JITMAP_SIZE) / 9)
		return pa_err_set_at(err, PA_ERR_FORMAT, pos + 24,
				     "JITMAP frame of %u bytes cannot hold %u entries", fr->len, n);
	const uint8_t *q = p + SC_JITMAP_SIZE;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *nul = end - q > 8 ? memchr(q + 8, 0, (size_t)(end - q - 8)) : NULL;
		if (!nul)
			return pa_err_set_at(err, PA_ERR_FORMAT, pos + (size_t)(q - p),
					     "JITMAP entry %u runs past its frame", i);
		if (PA_GROW(sc->scan, sc->cap_scan, sc->nr_scan + 1, 16))
			return oom(err);
		sc->scan[sc->nr_scan] = (struct jit_entry){ld64(q, sc->swap), (const char *)q + 8,
							   sc->nr_scan};
		sc->nr_scan++;
		q = nul + 1;
	}
	return 0;
}

static int scan_metadata(struct pa_syscap *sc, size_t pos, const struct frame *fr,
			 struct pa_err *err)
{
	if (fr->len < SC_METADATA_SIZE)
		return too_short(pos, fr, SC_METADATA_SIZE, err);
	const uint8_t *p = sc->data + pos;
	if (PA_GROW(sc->meta, sc->cap_meta, sc->nr_meta + 1, 16))
		return oom(err);
	struct pa_syscap_metadata *m = &sc->meta[sc->nr_meta];
	m->id = dup_field(sc, p + 24, 40);
	m->value = dup_field(sc, p + SC_METADATA_SIZE, fr->len - SC_METADATA_SIZE);
	if (!m->id || !m->value)
		return oom(err);
	sc->nr_meta++;
	return 0;
}

static int scan_mark(struct pa_syscap *sc, size_t pos, const struct frame *fr, struct pa_err *err)
{
	if (fr->len < SC_MARK_SIZE)
		return too_short(pos, fr, SC_MARK_SIZE, err);
	const uint8_t *p = sc->data + pos;
	if (PA_GROW(sc->marks, sc->cap_marks, sc->nr_marks + 1, 16))
		return oom(err);
	struct pa_syscap_mark *m = &sc->marks[sc->nr_marks];
	m->time = fr->time;
	m->duration = (int64_t)ld64(p + 24, sc->swap);
	m->pid = fr->pid;
	m->cpu = fr->cpu;
	m->group = dup_field(sc, p + 32, 24);
	m->name = dup_field(sc, p + 56, 40);
	m->message = dup_field(sc, p + SC_MARK_SIZE, fr->len - SC_MARK_SIZE);
	if (!m->group || !m->name || !m->message)
		return oom(err);
	sc->nr_marks++;
	return 0;
}

static int jit_cmp(const void *a, const void *b)
{
	const struct jit_entry *x = a, *y = b;
	int c = PA_CMP(x->addr, y->addr);
	return c ? c : PA_CMP(x->seq, y->seq);
}

/* Sorted by address and unique, the last entry in file order winning (as
 * in sysprof's own table, where a later insert replaces an earlier one). */
static int jit_finish(struct pa_syscap *sc, struct pa_err *err)
{
	size_t n = sc->nr_scan;
	if (!n)
		return 0;
	qsort(sc->scan, n, sizeof(*sc->scan), jit_cmp);
	sc->jit = malloc(n * sizeof(*sc->jit));
	if (!sc->jit)
		return oom(err);
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && sc->scan[i + 1].addr == sc->scan[i].addr)
			continue;
		sc->jit[sc->nr_jit++] = (struct pa_jit_sym){sc->scan[i].addr, sc->scan[i].name};
	}
	free(sc->scan);
	sc->scan = NULL;
	sc->jit_lo = sc->jit[0].addr;
	sc->jit_hi = sc->jit[sc->nr_jit - 1].addr;
	return 0;
}

/* Walk every frame once: lengths, counts, times, and the frames that are
 * facts about the whole capture rather than events. */
static int scan(struct pa_syscap *sc, struct pa_err *err)
{
	struct pa_syscap_info *in = &sc->info;
	bool any = false;
	for (size_t pos = SC_HEADER_SIZE; pos < sc->size;) {
		struct frame fr = {0};
		int r = frame_at(sc, pos, &fr, err);
		if (r)
			return r;
		in->frames[fr.type < PA_SYSCAP_FRAME_TYPES ? fr.type : 0]++;
		if (!any || fr.time < in->first_time)
			in->first_time = fr.time;
		if (!any || fr.time > in->last_time)
			in->last_time = fr.time;
		any = true;
		switch (fr.type) {
		case PA_SYSCAP_JITMAP:
			r = scan_jitmap(sc, pos, &fr, err);
			break;
		case PA_SYSCAP_METADATA:
			r = scan_metadata(sc, pos, &fr, err);
			break;
		case PA_SYSCAP_MARK:
			r = scan_mark(sc, pos, &fr, err);
			break;
		case PA_SYSCAP_SAMPLE: {
			struct pa_header_info *h = pa_file_header_mut(sc->f);
			uint64_t t = (uint64_t)fr.time;
			if (!h->first_sample_time || t < h->first_sample_time)
				h->first_sample_time = t;
			if (t > h->last_sample_time)
				h->last_sample_time = t;
			break;
		}
		default:
			break;
		}
		if (r)
			return r;
		pos += fr.len;
	}
	in->metadata = sc->meta;
	in->nr_metadata = (uint32_t)sc->nr_meta;
	in->marks = sc->marks;
	in->nr_marks = (uint32_t)sc->nr_marks;
	return jit_finish(sc, err);
}

/* The one evsel samples belong to: sysprof samples on a timer (its perf
 * source asks for cycles, or cpu-clock when there is no PMU; the capture
 * does not say which), and keeps no period. */
static struct pa_evsel *make_evsel(struct pa_syscap *sc, struct pa_err *err)
{
	struct pa_attr a = {
		.type = 1,   /* PERF_TYPE_SOFTWARE */
		.config = 0, /* PERF_COUNT_SW_CPU_CLOCK */
		.size = 0,
		.sample_period = 1,
		.sample_type = PA_SAMPLE_IP | PA_SAMPLE_TID | PA_SAMPLE_TIME | PA_SAMPLE_CPU |
			       PA_SAMPLE_PERIOD | PA_SAMPLE_CALLCHAIN,
		.flags = 1ull << PA_ATTR_SAMPLE_ID_ALL | 1ull << PA_ATTR_MMAP2 |
			 1ull << PA_ATTR_COMM | 1ull << PA_ATTR_TASK,
	};
	struct pa_evsel *e = pa_file_add_evsel(sc->f, &a, NULL, 0, 0, err);
	if (e)
		e->name = "cpu-clock";
	return e;
}

struct pa_syscap *pa_syscap_open(struct pa_file *f, const uint8_t *data, size_t size,
				 struct pa_err *err)
{
	if (size < SC_HEADER_SIZE) {
		pa_err_set_at(err, PA_ERR_TRUNCATED, size,
			      "sysprof capture header cut short (%zu of %u bytes)", size,
			      SC_HEADER_SIZE);
		return NULL;
	}
	struct pa_syscap *sc = calloc(1, sizeof(*sc));
	if (!sc) {
		oom(err);
		return NULL;
	}
	sc->f = f;
	sc->data = data;
	sc->size = size;
	sc->pos = SC_HEADER_SIZE;
	bool le = data[5] & 1;
	sc->swap = le == PA_HOST_BIG_ENDIAN;
	pa_file_set_foreign(f, sc->swap, SC_HEADER_SIZE, size);

	struct pa_syscap_info *in = &sc->info;
	in->version = data[4];
	in->big_endian = !le;
	in->capture_time = dup_field(sc, data + 8, 64);
	in->start_time = (int64_t)ld64(data + 72, sc->swap);
	in->end_time = (int64_t)ld64(data + 80, sc->swap);
	if (!in->capture_time) {
		oom(err);
		goto fail;
	}
	if (in->version != 1) {
		pa_err_set_at(err, PA_ERR_UNSUPPORTED, 4, "sysprof capture version %u (only 1 is known)",
			      in->version);
		goto fail;
	}
	if (scan(sc, err))
		goto fail;
	sc->evsel = make_evsel(sc, err);
	if (!sc->evsel)
		goto fail;
	return sc;
fail:
	pa_syscap_free(sc);
	return NULL;
}

void pa_syscap_free(struct pa_syscap *sc)
{
	if (!sc)
		return;
	free(sc->scan);
	free(sc->jit);
	free(sc->meta);
	free(sc->marks);
	pa_u64map_release(&sc->jit_pids);
	free(sc);
}

/* ---- events ------------------------------------------------------------------ */

/* What every event has: where it came from, and a sample_id-like trailer so
 * that the session orders it among the samples. */
static void event_init(struct pa_syscap *sc, struct pa_event *ev, uint32_t type, size_t pos,
		       const struct frame *fr)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->size = fr->len;
	ev->offset = pos;
	ev->evsel = sc->evsel;
	ev->sample.type = PA_SAMPLE_TID | PA_SAMPLE_TIME | PA_SAMPLE_CPU;
	ev->sample.pid = (uint32_t)fr->pid;
	ev->sample.tid = (uint32_t)fr->pid;
	ev->sample.time = (uint64_t)fr->time;
	ev->sample.cpu = (uint32_t)(int32_t)fr->cpu;
}

/* The comm for a PROCESS frame's string (see formats.h). */
static const char *comm_of(struct pa_syscap *sc, const char *s)
{
	size_t n = strlen(s);
	if (n <= SC_COMM_MAX && !strchr(s, '/'))
		return s;
	size_t w = strcspn(s, " ");
	const char *b = s;
	for (size_t i = 0; i < w; i++)
		if (s[i] == '/')
			b = s + i + 1;
	size_t len = (size_t)(s + w - b);
	if (!len) /* "/" or a path ending in '/': keep what there is */
		b = s, len = w ? w : n;
	if (len > SC_COMM_MAX)
		len = SC_COMM_MAX;
	char *out = scratch_alloc(pa_file_scratch(sc->f), len + 1);
	if (!out)
		return s;
	memcpy(out, b, len);
	out[len] = 0;
	return out;
}

static int conv_process(struct pa_syscap *sc, size_t pos, const struct frame *fr,
			struct pa_event *ev, struct pa_err *err)
{
	const uint8_t *p = sc->data + pos;
	if (fr->len <= SC_FRAME_SIZE)
		return too_short(pos, fr, SC_FRAME_SIZE + 1, err);
	if (!memchr(p + SC_FRAME_SIZE, 0, fr->len - SC_FRAME_SIZE))
		return pa_err_set_at(err, PA_ERR_FORMAT, pos + SC_FRAME_SIZE,
				     "PROCESS command line without its NUL");
	event_init(sc, ev, PA_REC_COMM, pos, fr);
	ev->misc = PA_MISC_COMM_EXEC;
	ev->u.comm.pid = ev->u.comm.tid = (uint32_t)fr->pid;
	ev->u.comm.comm = comm_of(sc, (const char *)p + SC_FRAME_SIZE);
	return 1;
}

static int conv_fork(struct pa_syscap *sc, size_t pos, const struct frame *fr,
		     struct pa_event *ev, struct pa_err *err)
{
	if (fr->len < SC_FORK_SIZE)
		return too_short(pos, fr, SC_FORK_SIZE, err);
	int32_t child = (int32_t)ld32(sc->data + pos + 24, sc->swap);
	if (child == fr->pid) {
		sc->info.skipped_forks++;
		return 0;
	}
	event_init(sc, ev, PA_REC_FORK, pos, fr);
	ev->u.fork.pid = ev->u.fork.tid = (uint32_t)child;
	ev->u.fork.ppid = ev->u.fork.ptid = (uint32_t)fr->pid;
	ev->u.fork.time = (uint64_t)fr->time;
	return 1;
}

static int conv_exit(struct pa_syscap *sc, size_t pos, const struct frame *fr,
		     struct pa_event *ev)
{
	event_init(sc, ev, PA_REC_EXIT, pos, fr);
	ev->u.fork.pid = ev->u.fork.tid = (uint32_t)fr->pid;
	ev->u.fork.ppid = ev->u.fork.ptid = UINT32_MAX;
	ev->u.fork.time = (uint64_t)fr->time;
	return 1;
}

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "@HEX" after the filename's NUL (sysprof >= 45): up to 20 bytes. A
 * string that is not an even run of hex digits is no build-id. */
static uint8_t parse_build_id(const uint8_t *p, const uint8_t *end, uint8_t out[20])
{
	if (p >= end || *p != '@')
		return 0;
	p++;
	size_t n = 0;
	while (p + 1 < end && n < 20) {
		int hi = hexval(p[0]), lo = hexval(p[1]);
		if (hi < 0 || lo < 0)
			break;
		out[n++] = (uint8_t)(hi << 4 | lo);
		p += 2;
	}
	bool ends = p >= end || *p == 0;
	return n && ends ? (uint8_t)n : 0;
}

static int conv_map(struct pa_syscap *sc, size_t pos, const struct frame *fr, struct pa_event *ev,
		    struct pa_err *err)
{
	if (fr->len <= SC_MAP_SIZE)
		return too_short(pos, fr, SC_MAP_SIZE + 1, err);
	const uint8_t *p = sc->data + pos, *end = p + fr->len;
	const uint8_t *name = p + SC_MAP_SIZE;
	const uint8_t *nul = memchr(name, 0, (size_t)(end - name));
	if (!nul)
		return pa_err_set_at(err, PA_ERR_FORMAT, pos + SC_MAP_SIZE,
				     "MAP file name without its NUL");
	uint64_t start = ld64(p + 24, sc->swap), stop = ld64(p + 32, sc->swap);
	if (stop < start)
		return pa_err_set_at(err, PA_ERR_FORMAT, pos + 32,
				     "MAP ends at %#llx, before its start %#llx",
				     (unsigned long long)stop, (unsigned long long)start);
	event_init(sc, ev, PA_REC_MMAP2, pos, fr);
	ev->misc = PA_MISC_USER;
	ev->u.mmap.pid = ev->u.mmap.tid = (uint32_t)fr->pid;
	ev->u.mmap.start = start;
	ev->u.mmap.len = stop - start;
	ev->u.mmap.pgoff = ld64(p + 40, sc->swap);
	ev->u.mmap.ino = ld64(p + 48, sc->swap);
	ev->u.mmap.prot = PROT_READ_EXEC;
	ev->u.mmap.flags = MAP_PRIVATE_FLAG;
	ev->u.mmap.filename = (const char *)name;
	ev->u.mmap.build_id_size = parse_build_id(nul + 1, end, ev->u.mmap.build_id);
	if (ev->u.mmap.build_id_size)
		ev->misc |= PA_MISC_MMAP_BUILD_ID;
	return 1;
}

static bool is_marker(uint64_t a)
{
	return a >= PA_CONTEXT_MAX;
}

static uint16_t cpumode_of(uint64_t ctx)
{
	switch (ctx) {
	case PA_CONTEXT_KERNEL:
		return PA_MISC_KERNEL;
	case PA_CONTEXT_HV:
		return PA_MISC_HYPERVISOR;
	case PA_CONTEXT_GUEST:
	case PA_CONTEXT_GUEST_KERNEL:
		return PA_MISC_GUEST_KERNEL;
	case PA_CONTEXT_GUEST_USER:
		return PA_MISC_GUEST_USER;
	default:
		return PA_MISC_USER;
	}
}

/* A MMAP that stands for the kernel: capture addresses are absolute. */
static int kernel_map(struct pa_syscap *sc, size_t pos, const struct frame *fr,
		      struct pa_event *ev)
{
	event_init(sc, ev, PA_REC_MMAP, pos, fr);
	ev->sample.type = 0; /* no time: kernel maps are there from the start */
	ev->misc = PA_MISC_KERNEL;
	ev->u.mmap.pid = UINT32_MAX;
	ev->u.mmap.tid = 0;
	ev->u.mmap.start = 0;
	ev->u.mmap.len = UINT64_MAX;
	ev->u.mmap.filename = "[kernel.kallsyms]_text";
	sc->kernel_map_done = true;
	return 2;
}

/* The JIT table's addresses as a map of this process, just before its
 * first sample that needs it. */
static int jit_map(struct pa_syscap *sc, size_t pos, const struct frame *fr, struct pa_event *ev,
		   struct pa_err *err)
{
	void **slot = pa_u64map_slot(&sc->jit_pids, (uint64_t)(uint32_t)fr->pid, NULL);
	if (!slot)
		return oom(err);
	*slot = sc; /* present */
	event_init(sc, ev, PA_REC_MMAP2, pos, fr);
	ev->misc = PA_MISC_USER;
	ev->u.mmap.pid = ev->u.mmap.tid = (uint32_t)fr->pid;
	ev->u.mmap.start = sc->jit_lo;
	ev->u.mmap.len = sc->jit_hi - sc->jit_lo + 1;
	ev->u.mmap.pgoff = sc->jit_lo;
	ev->u.mmap.prot = PROT_READ_EXEC;
	ev->u.mmap.flags = MAP_PRIVATE_FLAG;
	ev->u.mmap.filename = PA_JIT_DSO_NAME;
	return 2;
}

/* 1: a sample; 2: a map it needs first (the frame is read again next). */
static int conv_sample(struct pa_syscap *sc, size_t pos, const struct frame *fr,
		       struct pa_event *ev, struct pa_err *err)
{
	if (fr->len < SC_SAMPLE_SIZE)
		return too_short(pos, fr, SC_SAMPLE_SIZE, err);
	const uint8_t *p = sc->data + pos;
	uint32_t n = ld16(p + 24, sc->swap);
	uint32_t room = (fr->len - SC_SAMPLE_SIZE) / 8;
	if (n > room)
		return pa_err_set_at(err, PA_ERR_FORMAT, pos + 24,
				     "SAMPLE frame has room for %u addresses, not %u", room, n);
	const uint8_t *addrs = p + SC_SAMPLE_SIZE;
	bool markers = false;
	for (uint32_t i = 0; i < n && !markers; i++)
		markers = is_marker(ld64(addrs + 8 * i, sc->swap));
	/* at most one marker before each address */
	uint64_t *cc = scratch_alloc(pa_file_scratch(sc->f), ((size_t)n * 2 + 1) * 8);
	if (!cc)
		return oom(err);
	uint64_t ctx = 0, ip = 0, nr = 0;
	uint16_t cpumode = PA_MISC_USER;
	bool have_ip = false, kernel = false, jit = false;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = ld64(addrs + 8 * i, sc->swap);
		if (is_marker(a)) {
			cc[nr++] = ctx = a;
			continue;
		}
		if (!markers || !ctx) {
			uint64_t want = a >= SC_KERNEL_START ? PA_CONTEXT_KERNEL : PA_CONTEXT_USER;
			if (want != ctx)
				cc[nr++] = ctx = want;
		}
		cc[nr++] = a;
		kernel |= ctx == PA_CONTEXT_KERNEL;
		jit |= ctx == PA_CONTEXT_USER && sc->nr_jit && a >= sc->jit_lo && a <= sc->jit_hi;
		if (!have_ip) {
			have_ip = true;
			ip = a;
			cpumode = cpumode_of(ctx);
		}
	}
	if (kernel && !sc->kernel_map_done)
		return kernel_map(sc, pos, fr, ev);
	if (jit && !pa_u64map_get(&sc->jit_pids, (uint64_t)(uint32_t)fr->pid))
		return jit_map(sc, pos, fr, ev, err);
	event_init(sc, ev, PA_REC_SAMPLE, pos, fr);
	ev->misc = cpumode;
	ev->sample.type = sc->evsel->attr.sample_type;
	ev->sample.tid = ld32(p + 28, sc->swap);
	ev->sample.ip = ip;
	ev->sample.period = 1;
	ev->sample.callchain = cc;
	ev->sample.callchain_nr = nr;
	return 1;
}

int pa_syscap_next(struct pa_syscap *sc, struct pa_event *ev, struct pa_err *err)
{
	pa_file_scratch(sc->f)->used = 0;
	while (sc->pos < sc->size) {
		size_t pos = sc->pos;
		struct frame fr = {0};
		int r = frame_at(sc, pos, &fr, err);
		if (r)
			return r;
		switch (fr.type) {
		case PA_SYSCAP_SAMPLE:
			r = conv_sample(sc, pos, &fr, ev, err);
			break;
		case PA_SYSCAP_MAP:
			r = conv_map(sc, pos, &fr, ev, err);
			break;
		case PA_SYSCAP_PROCESS:
			r = conv_process(sc, pos, &fr, ev, err);
			break;
		case PA_SYSCAP_FORK:
			r = conv_fork(sc, pos, &fr, ev, err);
			break;
		case PA_SYSCAP_EXIT:
			r = conv_exit(sc, pos, &fr, ev);
			break;
		case PA_SYSCAP_TIMESTAMP:
		case PA_SYSCAP_JITMAP:
		case PA_SYSCAP_METADATA:
		case PA_SYSCAP_MARK:
			r = 0; /* read at open */
			break;
		default:
			pa_file_count_unknown(sc->f);
			r = 0;
			break;
		}
		if (r < 0)
			return r;
		if (r == 2) { /* synthesized: this frame again next time */
			pa_file_count_event(sc->f, ev->type);
			return 1;
		}
		sc->pos = pos + fr.len;
		if (r == 1) {
			pa_file_count_event(sc->f, ev->type);
			return 1;
		}
	}
	return 0;
}
