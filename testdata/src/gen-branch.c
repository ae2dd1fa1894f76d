/*
 * gen-branch - write a perf.data file whose samples carry branch stacks
 * (PERF_SAMPLE_BRANCH_STACK), which perf record cannot make on a machine
 * without a hardware PMU that records branches (LBR, BRBE, ...).
 *
 *   gen-branch [--be] [--hw-index] [--callchain] SPEC OUT
 *
 * SPEC is a text file, one record a line (numbers decimal or 0x hex):
 *
 *   comm   PID TID TIME NAME
 *   mmap   PID TID TIME START LEN PGOFF PATH
 *   sample PID TID TIME IP PERIOD CPU FROM>TO:FLAGS ...
 *
 * FLAGS is "-" or letters and numbers: M mispredicted, P predicted, X in
 * transaction, A abort, cN cycles N, tN branch type N (PERF_BR_*). The file
 * is file mode, one cycles:u event with sample_id_all, the BRANCH_STACK
 * feature (and HOSTNAME, without which perf does not trust the feature
 * bits of a file of the other byte order); --be writes it big-endian (the attr's bit-field word and
 * each branch entry's flags laid out as a big-endian kernel lays them out),
 * --hw-index sets PERF_SAMPLE_BRANCH_HW_INDEX (a u64 before the entries),
 * --callchain records a call chain too (the user context and the ip).
 * Only the layout of perf's file format is known here: the oracle for what
 * the records mean is perf report itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ATTR_SIZE         128
#define HEADER_SIZE       104
#define FEAT_HOSTNAME     3
#define FEAT_BRANCH_STACK 15
#define SAMPLE_TYPE       (0x1 | 0x2 | 0x4 | 0x80 | 0x100 | 0x800) /* IP TID TIME CPU PERIOD BRANCH */
#define SAMPLE_CALLCHAIN  0x20
#define CONTEXT_USER      0xfffffffffffffe00ull

struct opts {
	bool hw_index, callchain;
};
#define BRANCH_ANY      (1u << 3)
#define BRANCH_USER     (1u << 0)
#define BRANCH_HW_INDEX (1u << 17)

struct buf {
	unsigned char *p;
	size_t len, cap;
	bool be;
};

static void put(struct buf *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("gen-branch");
			exit(1);
		}
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void put_n(struct buf *b, uint64_t v, unsigned width)
{
	unsigned char c[8];
	for (unsigned i = 0; i < width; i++)
		c[i] = b->be ? (unsigned char)(v >> (8 * (width - 1 - i)))
		             : (unsigned char)(v >> (8 * i));
	put(b, c, width);
}

static void u16(struct buf *b, uint64_t v)
{
	put_n(b, v, 2);
}
static void u32(struct buf *b, uint64_t v)
{
	put_n(b, v, 4);
}
static void u64(struct buf *b, uint64_t v)
{
	put_n(b, v, 8);
}

static void set_u64(struct buf *b, size_t off, uint64_t v)
{
	size_t len = b->len;
	b->len = off;
	u64(b, v);
	b->len = len;
}

static unsigned char revbyte(unsigned char c)
{
	unsigned char r = 0;
	for (int i = 0; i < 8; i++)
		r |= (unsigned char)(((c >> i) & 1) << (7 - i));
	return r;
}

/* the attr's bit-field word: a big-endian compiler allocates bit-fields from
 * the most significant bit, so in the file each byte's bits are reversed */
static void attr_flags(struct buf *b, uint64_t le_bits)
{
	unsigned char c[8];
	for (int i = 0; i < 8; i++) {
		c[i] = (unsigned char)(le_bits >> (8 * i));
		if (b->be)
			c[i] = revbyte(c[i]);
	}
	put(b, c, 8);
}

struct bflags {
	unsigned mispred, predicted, in_tx, abort, cycles, type;
};

/* perf_branch_entry's flags word (mispred:1 predicted:1 in_tx:1 abort:1
 * cycles:16 type:4) as the recording machine's compiler lays it out */
static uint64_t branch_flags(const struct bflags *f, bool be)
{
	if (be)
		return (uint64_t)f->mispred << 63 | (uint64_t)f->predicted << 62 |
		       (uint64_t)f->in_tx << 61 | (uint64_t)f->abort << 60 |
		       (uint64_t)f->cycles << 44 | (uint64_t)f->type << 40;
	return (uint64_t)f->mispred | (uint64_t)f->predicted << 1 | (uint64_t)f->in_tx << 2 |
	       (uint64_t)f->abort << 3 | (uint64_t)f->cycles << 4 | (uint64_t)f->type << 20;
}

static int parse_flags(const char *s, struct bflags *f)
{
	memset(f, 0, sizeof(*f));
	if (!strcmp(s, "-"))
		return 0;
	while (*s) {
		char c = *s++;
		char *end;
		switch (c) {
		case 'M':
			f->mispred = 1;
			break;
		case 'P':
			f->predicted = 1;
			break;
		case 'X':
			f->in_tx = 1;
			break;
		case 'A':
			f->abort = 1;
			break;
		case 'c':
		case 't': {
			unsigned long v = strtoul(s, &end, 0);
			if (end == s)
				return -1;
			s = end;
			if (c == 'c')
				f->cycles = (unsigned)(v & 0xffff);
			else
				f->type = (unsigned)(v & 0xf);
			break;
		}
		default:
			return -1;
		}
	}
	return 0;
}

/* the sample_id_all trailer of a non-sample record: TID TIME CPU */
static void trailer(struct buf *b, uint64_t pid, uint64_t tid, uint64_t time)
{
	u32(b, pid);
	u32(b, tid);
	u64(b, time);
	u32(b, 0);
	u32(b, 0);
}

static void rec_header(struct buf *b, size_t *at, unsigned type, unsigned misc)
{
	*at = b->len;
	u32(b, type);
	u16(b, misc);
	u16(b, 0); /* size, patched by rec_end */
}

static void rec_end(struct buf *b, size_t at)
{
	size_t len = b->len;
	b->len = at + 6;
	u16(b, len - at);
	b->len = len;
}

static void put_name(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1, pad = (8 - n % 8) % 8;
	static const char zero[8];
	put(b, s, n);
	put(b, zero, pad);
}

static uint64_t num(const char *tok, int line)
{
	char *end;
	errno = 0;
	uint64_t v = strtoull(tok ? tok : "", &end, 0);
	if (!tok || *end || errno) {
		fprintf(stderr, "gen-branch: line %d: bad number '%s'\n", line, tok ? tok : "");
		exit(1);
	}
	return v;
}

static void sample(struct buf *b, char *save, int line, const struct opts *o)
{
	uint64_t f[6];
	for (int i = 0; i < 6; i++)
		f[i] = num(strtok_r(NULL, " \t\n", &save), line);
	uint64_t from[64], to[64], flags[64];
	size_t n = 0;
	for (char *tok; (tok = strtok_r(NULL, " \t\n", &save));) {
		char *gt = strchr(tok, '>'), *colon = strchr(tok, ':');
		struct bflags bf;
		if (!gt || !colon || colon < gt || n == 64) {
			fprintf(stderr, "gen-branch: line %d: bad branch '%s'\n", line, tok);
			exit(1);
		}
		*gt = *colon = 0;
		if (parse_flags(colon + 1, &bf)) {
			fprintf(stderr, "gen-branch: line %d: bad flags '%s'\n", line, colon + 1);
			exit(1);
		}
		from[n] = num(tok, line);
		to[n] = num(gt + 1, line);
		flags[n++] = branch_flags(&bf, b->be);
	}
	size_t at;
	rec_header(b, &at, 9, 2 /* PERF_RECORD_MISC_USER */);
	u64(b, f[3]); /* ip */
	u32(b, f[0]); /* pid */
	u32(b, f[1]); /* tid */
	u64(b, f[2]); /* time */
	u32(b, f[5]); /* cpu */
	u32(b, 0);
	u64(b, f[4]); /* period */
	if (o->callchain) {
		u64(b, 2);
		u64(b, CONTEXT_USER);
		u64(b, f[3]);
	}
	u64(b, n);
	if (o->hw_index)
		u64(b, n ? n - 1 : 0);
	for (size_t i = 0; i < n; i++) {
		u64(b, from[i]);
		u64(b, to[i]);
		/* the flags word is one u64 of the machine's order */
		u64(b, flags[i]);
	}
	rec_end(b, at);
}

static void spec_line(struct buf *b, char *s, int line, const struct opts *o)
{
	char *save = NULL, *kind = strtok_r(s, " \t\n", &save);
	size_t at;
	if (!kind || kind[0] == '#')
		return;
	if (!strcmp(kind, "sample")) {
		sample(b, save, line, o);
	} else if (!strcmp(kind, "comm")) {
		uint64_t pid = num(strtok_r(NULL, " \t\n", &save), line);
		uint64_t tid = num(strtok_r(NULL, " \t\n", &save), line);
		uint64_t time = num(strtok_r(NULL, " \t\n", &save), line);
		char *name = strtok_r(NULL, " \t\n", &save);
		rec_header(b, &at, 3, 0);
		u32(b, pid);
		u32(b, tid);
		put_name(b, name ? name : "");
		trailer(b, pid, tid, time);
		rec_end(b, at);
	} else if (!strcmp(kind, "mmap")) {
		uint64_t v[6];
		for (int i = 0; i < 6; i++)
			v[i] = num(strtok_r(NULL, " \t\n", &save), line);
		char *path = strtok_r(NULL, " \t\n", &save);
		rec_header(b, &at, 1, 2);
		u32(b, v[0]);
		u32(b, v[1]);
		u64(b, v[3]);
		u64(b, v[4]);
		u64(b, v[5]);
		put_name(b, path ? path : "");
		trailer(b, v[0], v[1], v[2]);
		rec_end(b, at);
	} else {
		fprintf(stderr, "gen-branch: line %d: unknown record '%s'\n", line, kind);
		exit(1);
	}
}

static void file_header(struct buf *b, const struct opts *o)
{
	put(b, b->be ? "2ELIFREP" : "PERFILE2", 8);
	u64(b, HEADER_SIZE);
	u64(b, ATTR_SIZE + 16);
	u64(b, HEADER_SIZE); /* attrs: right after the header */
	u64(b, ATTR_SIZE + 16);
	u64(b, 0); /* data: patched */
	u64(b, 0);
	u64(b, 0); /* event_types */
	u64(b, 0);
	u64(b, 1ull << FEAT_HOSTNAME | 1ull << FEAT_BRANCH_STACK); /* adds_features[0..3] */
	u64(b, 0);
	u64(b, 0);
	u64(b, 0);
	/* the attr */
	u32(b, 0); /* PERF_TYPE_HARDWARE */
	u32(b, ATTR_SIZE);
	u64(b, 0); /* cycles */
	u64(b, 4000);
	u64(b, SAMPLE_TYPE | (o->callchain ? SAMPLE_CALLCHAIN : 0));
	u64(b, 0); /* read_format */
	/* disabled, inherit, exclude_kernel, exclude_hv, comm, mmap,
	 * sample_id_all: bits 0 1 5 6 9 8 18 */
	attr_flags(b, 1 | 2 | 1 << 5 | 1 << 6 | 1 << 8 | 1 << 9 | 1ull << 18);
	u32(b, 0); /* wakeup_events */
	u32(b, 0); /* bp_type */
	u64(b, 0); /* config1 */
	u64(b, 0); /* config2 */
	u64(b, BRANCH_ANY | BRANCH_USER | (o->hw_index ? BRANCH_HW_INDEX : 0));
	while (b->len < HEADER_SIZE + ATTR_SIZE)
		put(b, "", 1);
	u64(b, HEADER_SIZE + ATTR_SIZE + 16); /* ids: one */
	u64(b, 8);
	u64(b, 1);
}

int main(int argc, char **argv)
{
	struct buf b = {0};
	struct opts o = {0};
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--be"))
			b.be = true;
		else if (!strcmp(argv[i], "--hw-index"))
			o.hw_index = true;
		else if (!strcmp(argv[i], "--callchain"))
			o.callchain = true;
		else
			break;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: gen-branch [--be] [--hw-index] [--callchain] SPEC OUT\n");
		return 1;
	}
	FILE *spec = fopen(argv[i], "r");
	if (!spec) {
		perror(argv[i]);
		return 1;
	}
	file_header(&b, &o);
	size_t data = b.len;
	char line[4096];
	for (int n = 1; fgets(line, sizeof(line), spec); n++)
		spec_line(&b, line, n, &o);
	fclose(spec);
	size_t feat = b.len;
	set_u64(&b, 40, data);
	set_u64(&b, 48, feat - data);
	/* the feature table (HOSTNAME, BRANCH_STACK), then the hostname as
	 * perf writes strings: u32 length (64-byte aligned), NUL-padded */
	static const char host[64] = "gen-branch";
	u64(&b, feat + 32);
	u64(&b, 4 + sizeof(host));
	u64(&b, feat + 32 + 4 + sizeof(host));
	u64(&b, 0);
	u32(&b, sizeof(host));
	put(&b, host, sizeof(host));
	FILE *out = fopen(argv[i + 1], "wb");
	if (!out || fwrite(b.p, 1, b.len, out) != b.len || fclose(out)) {
		perror(argv[i + 1]);
		return 1;
	}
	free(b.p);
	return 0;
}
