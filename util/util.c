/* util.c - errors, arenas, buffers, a u64 hash map. */
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pa_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
#define PA_ERR_CASE(name, val, str)                                                                \
	case val:                                                                                  \
		return str;
		PA_ERRORS(PA_ERR_CASE)
#undef PA_ERR_CASE
	default:
		return strerror(err);
	}
}

static int err_vset(struct pa_err *e, int code, int has_off, uint64_t off, const char *fmt,
                    va_list ap)
{
	if (code > 0)
		code = -code;
	if (!e)
		return code;
	e->code = code;
	e->has_offset = has_off;
	e->offset = off;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return code;
}

int pa_err_set(struct pa_err *e, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	code = err_vset(e, code, 0, 0, fmt, ap);
	va_end(ap);
	return code;
}

int pa_err_set_at(struct pa_err *e, int code, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	code = err_vset(e, code, 1, off, fmt, ap);
	va_end(ap);
	return code;
}

void pa_err_clear(struct pa_err *e)
{
	if (e)
		memset(e, 0, sizeof(*e));
}

struct pa_arena_chunk {
	struct pa_arena_chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

void pa_arena_init(struct pa_arena *a, size_t chunk_size)
{
	a->head = NULL;
	a->chunk_size = chunk_size ? chunk_size : 64 * 1024;
	a->used_total = 0;
}

void pa_arena_release(struct pa_arena *a)
{
	struct pa_arena_chunk *c = a->head, *n;
	for (; c; c = n) {
		n = c->next;
		free(c);
	}
	a->head = NULL;
	a->used_total = 0;
}

void *pa_arena_alloc(struct pa_arena *a, size_t size)
{
	void *p = pa_arena_alloc_raw(a, size);
	if (p)
		memset(p, 0, size);
	return p;
}

void *pa_arena_alloc_raw(struct pa_arena *a, size_t size)
{
	struct pa_arena_chunk *c = a->head;
	size = (size + 7) & ~(size_t)7;
	if (!c || c->size - c->used < size) {
		size_t want = size > a->chunk_size ? size : a->chunk_size;
		c = malloc(sizeof(*c) + want);
		if (!c)
			return NULL;
		c->size = want;
		c->used = 0;
		/* An oversized block goes behind the current chunk so the
		 * current chunk's free space is not wasted. */
		if (a->head && size > a->chunk_size) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	void *p = c->data + c->used;
	c->used += size;
	a->used_total += size;
	return p;
}

char *pa_arena_strndup(struct pa_arena *a, const char *s, size_t n)
{
	char *p = pa_arena_alloc(a, n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *pa_arena_strdup(struct pa_arena *a, const char *s)
{
	return pa_arena_strndup(a, s, strlen(s));
}

char *pa_arena_expand_tabs(struct pa_arena *a, const char *s, size_t n)
{
	size_t tabs = 0, o = 0;
	for (size_t i = 0; i < n; i++)
		tabs += s[i] == '\t';
	char *out = pa_arena_alloc_raw(a, n + tabs * 7 + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\t') {
			out[o++] = s[i];
			continue;
		}
		do
			out[o++] = ' ';
		while (o % 8);
	}
	out[o] = 0;
	return out;
}

int pa_buf_grow(struct pa_buf *b, size_t extra)
{
	return PA_GROW(b->data, b->cap, b->len + extra + 1, 256);
}

int pa_buf_add(struct pa_buf *b, const void *p, size_t n)
{
	if (pa_buf_grow(b, n))
		return -ENOMEM;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
	return 0;
}

int pa_buf_addf(struct pa_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || pa_buf_grow(b, (size_t)n))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void pa_buf_release(struct pa_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void pa_hex(char *out, const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = 0;
}

static int u64map_rehash(struct pa_u64map *m, size_t cap)
{
	struct pa_u64map n = {0};
	n.keys = calloc(cap, sizeof(*n.keys));
	n.vals = calloc(cap, sizeof(*n.vals));
	n.used = calloc(cap, 1);
	n.cap = cap;
	if (!n.keys || !n.vals || !n.used) {
		pa_u64map_release(&n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		size_t j = pa_hash64(m->keys[i]) & (cap - 1);
		while (n.used[j])
			j = (j + 1) & (cap - 1);
		n.used[j] = 1;
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
	}
	n.count = m->count;
	pa_u64map_release(m);
	*m = n;
	return 0;
}

void **pa_u64map_slot(struct pa_u64map *m, uint64_t key, int *created)
{
	if ((m->count + 1) * 4 >= m->cap * 3 && u64map_rehash(m, m->cap ? m->cap * 2 : 64))
		return NULL;
	size_t j = pa_hash64(key) & (m->cap - 1);
	while (m->used[j]) {
		if (m->keys[j] == key) {
			if (created)
				*created = 0;
			return &m->vals[j];
		}
		j = (j + 1) & (m->cap - 1);
	}
	m->used[j] = 1;
	m->keys[j] = key;
	m->vals[j] = NULL;
	m->count++;
	if (created)
		*created = 1;
	return &m->vals[j];
}

void *pa_u64map_get(const struct pa_u64map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t j = pa_hash64(key) & (m->cap - 1);
	while (m->used[j]) {
		if (m->keys[j] == key)
			return m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	return NULL;
}

void pa_u64map_release(struct pa_u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

int pa_rm_rf_at(int dirfd, const char *name)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd, ret = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
			return -errno;
		return 0;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		int r = pa_rm_rf_at(fd, de->d_name);
		if (r < 0 && !ret)
			ret = r;
	}
	closedir(d);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && !ret)
		ret = -errno;
	return ret;
}

int pa_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case 0:
		break;
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1] && !(toupper((unsigned char)end[1]) == 'B' && !end[2]) &&
	    !(toupper((unsigned char)end[1]) == 'I' && toupper((unsigned char)end[2]) == 'B' &&
	      !end[3]))
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

const char *pa_fmt_size(char buf[32], uint64_t n)
{
	static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
	unsigned u = 0;
	while (u < 4 && n >= 1024) {
		n >>= 10;
		u++;
	}
	snprintf(buf, 32, "%llu %s", (unsigned long long)n, units[u]);
	return buf;
}

char *pa_vasprintf(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	return s;
}

char *pa_asprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = pa_vasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void *pa_zalloc_aligned(size_t align, size_t size)
{
	void *p = aligned_alloc(align, size);
	if (p)
		memset(p, 0, size);
	return p;
}

int pa_grow(void *arrp, size_t *cap, size_t need, size_t elem, size_t min_cap)
{
	void *p, *q;
	size_t ncap;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : (min_cap ? min_cap : 1);
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		return -ENOMEM;
	/* *arrp is some T *: read and write it as bytes (all object pointers
	 * share one representation on the targets pa supports). */
	memcpy(&p, arrp, sizeof(p));
	q = realloc(p, ncap * elem);
	if (!q)
		return -ENOMEM;
	memcpy(arrp, &q, sizeof(q));
	*cap = ncap;
	return 0;
}

size_t pa_edit_distance(const char *a, const char *b, size_t max)
{
	size_t na = strlen(a), nb = strlen(b);
	if ((na > nb ? na - nb : nb - na) > max)
		return max + 1;
	/* one row of the table, the previous row's diagonal kept aside */
	size_t small[128];
	size_t *row = nb < PA_ARRAY_SIZE(small) ? small : malloc((nb + 1) * sizeof(*row));
	if (!row)
		return max + 1;
	for (size_t j = 0; j <= nb; j++)
		row[j] = j;
	size_t best = 0;
	for (size_t i = 1; i <= na; i++) {
		size_t diag = row[0];
		row[0] = i;
		best = row[0];
		for (size_t j = 1; j <= nb; j++) {
			size_t up = row[j];
			size_t v = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			diag = up;
			if (v < best)
				best = v;
		}
		if (best > max)
			break; /* every later row is at least this far */
	}
	size_t d = best > max ? max + 1 : row[nb];
	if (row != small)
		free(row);
	return d > max ? max + 1 : d;
}

int pa_write_all(int fd, const void *p, size_t n)
{
	const unsigned char *b = p;
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_loop(int fd, unsigned char *p, size_t n, bool at, uint64_t off, size_t *got)
{
	size_t done = 0;
	int ret = 0;
	while (done < n) {
		ssize_t r = at ? pread(fd, p + done, n - done, (off_t)(off + done))
		               : read(fd, p + done, n - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			ret = -errno;
		if (r <= 0)
			break;
		done += (size_t)r;
	}
	*got = done;
	return ret;
}

int pa_read_full(int fd, void *p, size_t n, size_t *got)
{
	return read_loop(fd, p, n, false, 0, got);
}

int pa_pread_full(int fd, void *p, size_t n, uint64_t off, size_t *got)
{
	return read_loop(fd, p, n, true, off, got);
}

int pa_opts_check(const void *opts, size_t known)
{
	const unsigned char *b = opts;
	size_t sz;

	if (!opts)
		return 0;
	memcpy(&sz, opts, sizeof(sz));
	if (sz < sizeof(size_t))
		return -EINVAL;
	for (size_t i = known; i < sz; i++)
		if (b[i])
			return -E2BIG;
	return 0;
}

void pa_opts_copy(void *dst, size_t size, const void *opts)
{
	size_t sz;

	if (!opts)
		return;
	memcpy(&sz, opts, sizeof(sz));
	memcpy(dst, opts, sz < size ? sz : size);
}

size_t pa_note_next(const void *buf, size_t len, size_t off, unsigned align, bool swap,
                    struct pa_note *out)
{
	const unsigned char *b = buf;
	uint32_t w[3], dpad;

	if (!b || off > len || len - off < sizeof(w))
		return 0;
	memcpy(w, b + off, sizeof(w));
	if (swap)
		for (int i = 0; i < 3; i++)
			w[i] = __builtin_bswap32(w[i]);
	off += sizeof(w);
	out->namesz = w[0];
	out->descsz = w[1];
	out->type = w[2];
	out->name = (const char *)b + off;
	if (w[0] > len - off)
		return 0;
	off = (size_t)PA_ALIGN_UP(off + w[0], align);
	/* the padded desc size in 32 bits, as libelf has it: a wrap is an error */
	dpad = (uint32_t)PA_ALIGN_UP(w[1], align);
	if (off > len || len - off < dpad || (dpad == 0 && w[1] != 0))
		return 0;
	out->desc = b + off;
	return off + dpad;
}

size_t pa_note_gnu_build_id(const void *buf, size_t len, unsigned align, bool swap, uint8_t *out,
                            size_t max)
{
	struct pa_note nt;
	size_t off = 0, next;

	while (off < len && (next = pa_note_next(buf, len, off, align, swap, &nt)) > 0) {
		if (nt.type == PA_NT_GNU_BUILD_ID && nt.namesz == 4 && nt.descsz > 0 &&
		    memcmp(nt.name, "GNU", 4) == 0) {
			size_t n = nt.descsz < max ? nt.descsz : max;
			memcpy(out, nt.desc, n);
			return n;
		}
		off = next;
	}
	return 0;
}

int pa_index_table_grow(uint32_t **table, size_t *cap, size_t count,
                        uint64_t (*hash)(void *, uint32_t), void *ctx)
{
	if ((count + 1) * 2 < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 1024;
	uint32_t *t = calloc(ncap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < *cap; i++) {
		if (!(*table)[i])
			continue;
		size_t j = hash(ctx, (*table)[i] - 1) & (ncap - 1);
		while (t[j])
			j = (j + 1) & (ncap - 1);
		t[j] = (*table)[i];
	}
	free(*table);
	*table = t;
	*cap = ncap;
	return 0;
}

static uint64_t seq_hash_of(void *ctx, uint32_t i)
{
	return ((struct pa_seqset *)ctx)->seqs[i].hash;
}

/* Two values a step, in two lanes (the multiplies of one overlap the
 * other's): a call stack of 100 frames is hashed in ~100 cycles. */
uint64_t pa_seqset_hash(const uint32_t *v, uint32_t n)
{
	uint64_t a = 0x9e3779b97f4a7c15ull ^ n, b = 0xc2b2ae3d27d4eb4full;
	uint32_t i = 0;
	for (; i + 4 <= n; i += 4) {
		a = (a ^ (v[i] | (uint64_t)v[i + 1] << 32)) * 0xff51afd7ed558ccdull;
		b = (b ^ (v[i + 2] | (uint64_t)v[i + 3] << 32)) * 0xc4ceb9fe1a85ec53ull;
		a ^= a >> 29;
		b ^= b >> 31;
	}
	for (; i < n; i++)
		a = (a ^ v[i]) * 0xff51afd7ed558ccdull;
	return pa_hash64(a ^ pa_hash64(b));
}

void pa_seqset_prefetch(const struct pa_seqset *s, uint64_t h)
{
	if (s->tab_cap)
		__builtin_prefetch(&s->tab[h & (s->tab_cap - 1)]);
}

int pa_seqset_add(struct pa_seqset *s, const uint32_t *v, uint32_t n, uint32_t *out)
{
	return pa_seqset_add_hashed(s, v, n, pa_seqset_hash(v, n), out);
}

int pa_seqset_add_hashed(struct pa_seqset *s, const uint32_t *v, uint32_t n, uint64_t h,
                         uint32_t *out)
{
	if (pa_index_table_grow(&s->tab, &s->tab_cap, s->nr, seq_hash_of, s))
		return -ENOMEM;
	size_t mask = s->tab_cap - 1, j = h & mask;
	for (; s->tab[j]; j = (j + 1) & mask) {
		const struct pa_seq *q = &s->seqs[s->tab[j] - 1];
		if (q->hash == h && q->len == n &&
		    (!n || !memcmp(s->pool + q->off, v, n * sizeof(*v)))) {
			*out = s->tab[j] - 1;
			return 0;
		}
	}
	if (PA_GROW(s->seqs, s->cap, s->nr + 1, 256) ||
	    PA_GROW(s->pool, s->pool_cap, s->pool_len + n, 4096))
		return -ENOMEM;
	if (n)
		memcpy(s->pool + s->pool_len, v, n * sizeof(*v));
	s->seqs[s->nr] = (struct pa_seq){.off = s->pool_len, .len = n, .hash = h};
	s->pool_len += n;
	*out = (uint32_t)s->nr++;
	s->tab[j] = *out + 1;
	return 0;
}

size_t pa_seqset_bytes(const struct pa_seqset *s)
{
	return s->pool_cap * sizeof(*s->pool) + s->cap * sizeof(*s->seqs) +
	       s->tab_cap * sizeof(*s->tab);
}

void pa_seqset_drop_table(struct pa_seqset *s)
{
	free(s->tab);
	s->tab = NULL;
	s->tab_cap = 0;
}

void pa_seqset_release(struct pa_seqset *s)
{
	free(s->pool);
	free(s->seqs);
	free(s->tab);
	*s = (struct pa_seqset){0};
}

uint64_t pa_hash_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return pa_hash64(h);
}

uint64_t pa_hash_str(const char *s)
{
	return pa_hash_bytes(s, strlen(s));
}

/* ---- UTF-8 text for output formats (flame graphs, JSON) ---- */

#define UTF8_REPLACEMENT 0xFFFDu

size_t pa_utf8_next(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned c = s[0];
	if (c < 0x80) {
		*cp = c < 0x20 || c == 0x7f ? UTF8_REPLACEMENT : c;
		return 1;
	}
	size_t need;
	uint32_t v, min;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 1, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 2, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 3, v = c & 0x07, min = 0x10000;
	} else {
		*cp = UTF8_REPLACEMENT;
		return 1;
	}
	if (len <= need) {
		*cp = UTF8_REPLACEMENT;
		return 1;
	}
	for (size_t i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = UTF8_REPLACEMENT;
			return 1;
		}
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff) || v == 0xfffe || v == 0xffff) {
		*cp = UTF8_REPLACEMENT;
		return 1;
	}
	*cp = v;
	return need + 1;
}

void pa_put_utf8(FILE *out, uint32_t cp)
{
	if (cp < 0x80) {
		putc((int)cp, out);
	} else if (cp < 0x800) {
		putc((int)(0xc0 | cp >> 6), out);
		putc((int)(0x80 | (cp & 0x3f)), out);
	} else if (cp < 0x10000) {
		putc((int)(0xe0 | cp >> 12), out);
		putc((int)(0x80 | (cp >> 6 & 0x3f)), out);
		putc((int)(0x80 | (cp & 0x3f)), out);
	} else {
		putc((int)(0xf0 | cp >> 18), out);
		putc((int)(0x80 | (cp >> 12 & 0x3f)), out);
		putc((int)(0x80 | (cp >> 6 & 0x3f)), out);
		putc((int)(0x80 | (cp & 0x3f)), out);
	}
}

void pa_put_xml(FILE *out, const char *s, size_t len, size_t maxcp)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	for (size_t i = 0, n = 0; i < len && n < maxcp; n++) {
		i += pa_utf8_next(p + i, len - i, &cp);
		switch (cp) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			pa_put_utf8(out, cp);
			break;
		}
	}
}

void pa_put_json_str(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	putc('"', out);
	for (size_t i = 0; i < len;) {
		i += pa_utf8_next(p + i, len - i, &cp);
		switch (cp) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '<':
			fputs("\\u003c", out);
			break;
		case '>':
			fputs("\\u003e", out);
			break;
		case '&':
			fputs("\\u0026", out);
			break;
		case 0x2028:
			fputs("\\u2028", out);
			break;
		case 0x2029:
			fputs("\\u2029", out);
			break;
		default:
			pa_put_utf8(out, cp);
			break;
		}
	}
	putc('"', out);
}
