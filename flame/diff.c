/* diff.c - two folded stack files side by side: FlameGraph's
 * difffolded.pl format ("STACK COUNT1 COUNT2"), by its rules (flame.h,
 * "Folded differences"). Written from the script's documented behaviour;
 * the counts follow Perl's numbers where the script relies on them (sums
 * of whole numbers are exact, fractions are doubles printed with 15
 * significant digits, -n scales with int() of the quotient). */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A Perl scalar as the script uses it: a whole number while it stays one
 * (and fits 64 bits), else a double. */
struct pnum {
	uint64_t u;
	double d;
	bool nv; /* d holds the value */
};

struct dentry {
	const char *s; /* the stack, in the arena (not NUL-terminated for the sort) */
	size_t len;
	uint64_t hash;
	struct pnum n[2];
};

struct pa_flame_diff {
	struct pa_arena arena;
	bool strip_hex;
	struct dentry *e;
	size_t ne, cap;
	uint32_t *tab; /* entry index + 1; open addressing, power-of-two size */
	size_t tab_cap;
	struct pnum total[2];
	struct pa_buf tmp; /* the stack after hex stripping */
};

static double pnum_d(const struct pnum *p)
{
	return p->nv ? p->d : (double)p->u;
}

static void pnum_add(struct pnum *a, const struct pnum *b)
{
	if (!a->nv && !b->nv && a->u <= UINT64_MAX - b->u) {
		a->u += b->u;
		return;
	}
	a->d = pnum_d(a) + pnum_d(b);
	a->nv = true;
}

/* Perl's print of a number: whole numbers as digits, others as "%.15g". */
static void pnum_put(FILE *out, const struct pnum *p)
{
	if (!p->nv)
		fprintf(out, "%llu", (unsigned long long)p->u);
	else
		fprintf(out, "%.15g", p->d);
}

/* A whole, non-negative value that fits 64 bits (Perl would use it as an
 * integer): true with *u set. */
static bool pnum_whole(const struct pnum *p, uint64_t *u)
{
	if (!p->nv) {
		*u = p->u;
		return true;
	}
	if (p->d >= 0 && p->d < 18446744073709551616.0 && (double)(uint64_t)p->d == p->d) {
		*u = (uint64_t)p->d;
		return true;
	}
	return false;
}

/* int(c * t2 / t1), evaluated as Perl does: an integer product when both
 * factors are whole and it fits, divided exactly when it divides, else in
 * doubles; int() truncates toward zero. */
static struct pnum scale(const struct pnum *c, const struct pnum *t2, const struct pnum *t1)
{
	uint64_t cu, t2u, t1u, prod;
	double q;
	if (pnum_whole(c, &cu) && pnum_whole(t2, &t2u) && !__builtin_mul_overflow(cu, t2u, &prod)) {
		if (pnum_whole(t1, &t1u) && t1u && prod % t1u == 0)
			return (struct pnum){.u = prod / t1u};
		q = (double)prod / pnum_d(t1);
	} else {
		q = pnum_d(c) * pnum_d(t2) / pnum_d(t1);
	}
	/* (counts are not negative; past 2^64 a double is a whole number) */
	if (q >= 0 && q < 18446744073709551616.0)
		return (struct pnum){.u = (uint64_t)q};
	return (struct pnum){.d = q, .nv = true};
}

struct pa_flame_diff *pa_flame_diff_new(bool strip_hex)
{
	struct pa_flame_diff *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	pa_arena_init(&d->arena, 1 << 20);
	d->strip_hex = strip_hex;
	d->tab_cap = 1024;
	d->tab = calloc(d->tab_cap, sizeof(*d->tab));
	if (!d->tab) {
		pa_flame_diff_free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void pa_flame_diff_free(struct pa_flame_diff *d)
{
	if (!d)
		return;
	pa_arena_release(&d->arena);
	free(d->e);
	free(d->tab);
	pa_buf_release(&d->tmp);
	free(d);
}

/* (Re)build the table at cap slots. */
static int rehash(struct pa_flame_diff *d, size_t cap)
{
	uint32_t *tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (size_t k = 0; k < d->ne; k++) {
		size_t i = d->e[k].hash & (cap - 1);
		while (tab[i])
			i = (i + 1) & (cap - 1);
		tab[i] = (uint32_t)k + 1;
	}
	free(d->tab);
	d->tab = tab;
	d->tab_cap = cap;
	return 0;
}

/* The entry of a stack, made when missing (both counts 0). */
static struct dentry *entry(struct pa_flame_diff *d, const char *s, size_t len, int *rc)
{
	uint64_t h = pa_hash_bytes(s, len);
	size_t mask = d->tab_cap - 1, i = h & mask;
	for (uint32_t e; (e = d->tab[i]); i = (i + 1) & mask) {
		struct dentry *x = &d->e[e - 1];
		if (x->hash == h && x->len == len && !memcmp(x->s, s, len))
			return x;
	}
	if (d->ne >= UINT32_MAX - 1) {
		*rc = -PA_ERR_LIMIT;
		return NULL;
	}
	char *copy = pa_arena_strndup(&d->arena, s, len);
	if (!copy || PA_GROW(d->e, d->cap, d->ne + 1, 1024) ||
	    ((d->ne + 1) * 2 > d->tab_cap && rehash(d, d->tab_cap * 2))) {
		*rc = -ENOMEM;
		return NULL;
	}
	mask = d->tab_cap - 1;
	for (i = h & mask; d->tab[i]; i = (i + 1) & mask)
		;
	d->e[d->ne] = (struct dentry){.s = copy, .len = len, .hash = h};
	d->tab[i] = (uint32_t)++d->ne;
	return &d->e[d->ne - 1];
}

/* Perl's \s (5.18 on): space, \t, \n, \v, \f, \r. */
static bool perl_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_xdigit(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* "DIGITS" or "DIGITS.DIGITS*", the whole of s: its value in *n. */
static bool parse_count(const char *s, size_t len, struct pnum *n)
{
	size_t i = 0;
	while (i < len && is_digit(s[i]))
		i++;
	if (!i)
		return false;
	size_t int_end = i;
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && is_digit(s[i]))
			i++;
	}
	if (i != len)
		return false;
	uint64_t u = 0;
	bool fits = true;
	for (size_t k = 0; k < int_end && fits; k++) {
		unsigned dg = (unsigned)(s[k] - '0');
		if (u > (UINT64_MAX - dg) / 10)
			fits = false;
		else
			u = u * 10 + dg;
	}
	bool frac = false; /* digits after the point other than zeros */
	for (size_t k = int_end + 1; k < len; k++)
		frac |= s[k] != '0';
	if (fits && !frac) {
		*n = (struct pnum){.u = u};
		return true;
	}
	char buf[64], *copy = len < sizeof(buf) ? buf : malloc(len + 1);
	if (!copy)
		return false;
	memcpy(copy, s, len);
	copy[len] = 0;
	*n = (struct pnum){.d = strtod(copy, NULL), .nv = true};
	if (copy != buf)
		free(copy);
	return true;
}

int pa_flame_diff_add(struct pa_flame_diff *d, int side, const char *line, size_t len)
{
	if (!d || side < 0 || side > 1 || (len && !line))
		return -EINVAL;
	/* the script's chomp: one trailing "\n" */
	if (len && line[len - 1] == '\n')
		len--;
	/* /^(.*)\s+?(\d+(?:\.\d*)?)$/: the count is what follows the last
	 * blank, the stack what precedes that one blank (further blanks stay
	 * in the stack). A line that does not match adds nothing to the empty
	 * stack "" (the script's undef key), which then prints as " 0 0". */
	size_t ws = len;
	while (ws && !perl_space(line[ws - 1]))
		ws--;
	struct pnum n = {0};
	const char *s = line;
	size_t slen = 0;
	if (ws && parse_count(line + ws, len - ws, &n))
		slen = ws - 1;
	else
		n = (struct pnum){0};
	if (d->strip_hex && slen) {
		/* s/0x[0-9a-fA-F]+/0x.../g */
		d->tmp.len = 0;
		for (size_t i = 0; i < slen;) {
			if (i + 2 < slen && line[i] == '0' && line[i + 1] == 'x' && is_xdigit(line[i + 2])) {
				if (pa_buf_add(&d->tmp, "0x...", 5))
					return -ENOMEM;
				for (i += 2; i < slen && is_xdigit(line[i]); i++)
					;
				continue;
			}
			if (pa_buf_add(&d->tmp, line + i, 1))
				return -ENOMEM;
			i++;
		}
		s = d->tmp.data;
		slen = d->tmp.len;
	}
	int rc = 0;
	struct dentry *e = entry(d, s, slen, &rc);
	if (!e)
		return rc;
	pnum_add(&e->n[side], &n);
	pnum_add(&d->total[side], &n);
	return 0;
}

int pa_flame_diff_read(struct pa_flame_diff *d, int side, FILE *in, struct pa_err *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;
	while ((n = getline(&line, &cap, in)) > 0) {
		if ((rc = pa_flame_diff_add(d, side, line, (size_t)n))) {
			rc = pa_err_set(err, rc, "%s", pa_strerror(rc));
			break;
		}
	}
	if (!rc && ferror(in))
		rc = pa_err_set(err, -errno, "read error: %s", strerror(errno));
	free(line);
	return rc;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct dentry *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
	return c ? c : PA_CMP(x->len, y->len);
}

int pa_flame_diff_write(struct pa_flame_diff *d, FILE *out, bool normalize, struct pa_err *err)
{
	const struct pnum *t1 = &d->total[0], *t2 = &d->total[1];
	bool scale_it = normalize && pnum_d(t1) != pnum_d(t2);
	if (scale_it && pnum_d(t1) == 0 && d->ne)
		return pa_err_set(err, PA_ERR_FORMAT,
				  "cannot normalize: the baseline has no samples");
	if (d->ne) {
		qsort(d->e, d->ne, sizeof(*d->e), cmp_entry);
		/* the entries moved: index them again (more lines may follow) */
		if (rehash(d, d->tab_cap))
			return pa_err_set(err, -ENOMEM, "%s", pa_strerror(-ENOMEM));
	}
	for (size_t k = 0; k < d->ne; k++) {
		struct dentry *e = &d->e[k];
		struct pnum c1 = scale_it ? scale(&e->n[0], t2, t1) : e->n[0];
		fwrite(e->s, 1, e->len, out);
		fputc(' ', out);
		pnum_put(out, &c1);
		fputc(' ', out);
		pnum_put(out, &e->n[1]);
		fputc('\n', out);
	}
	if (fflush(out) || ferror(out))
		return pa_err_set(err, errno ? -errno : -EIO, "write error: %s",
				  strerror(errno ? errno : EIO));
	return 0;
}
