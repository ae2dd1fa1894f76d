/* out.c - the text's buffer, and numbers written without printf.
 *
 * Why: perf script's text for a recording of millions of samples is
 * mostly numbers and names; printf's parsing of its format was most of
 * pa script's time (bench/README.md, "pa script"). The text goes into a
 * buffer of its own, flushed with fwrite; the few rare lines (side
 * records) still use ob_printf.
 */
#include "internal.h"

#include <stdarg.h>
#include <string.h>

void ob_init(struct obuf *b, FILE *f)
{
	b->f = f;
	b->len = 0;
}

int ob_flush(struct obuf *b)
{
	if (b->len && fwrite(b->buf, 1, b->len, b->f) != b->len) {
		b->len = 0;
		return -1;
	}
	b->len = 0;
	return ferror(b->f) ? -1 : 0;
}

/* Room for n more bytes (n <= OB_SIZE), flushing first when needed. */
static char *room(struct obuf *b, size_t n)
{
	if (b->len + n > OB_SIZE)
		ob_flush(b);
	return b->buf + b->len;
}

void ob_mem(struct obuf *b, const void *p, size_t n)
{
	while (n > OB_SIZE / 2) { /* (a long name: in pieces) */
		ob_mem(b, p, OB_SIZE / 2);
		p = (const char *)p + OB_SIZE / 2;
		n -= OB_SIZE / 2;
	}
	memcpy(room(b, n), p, n);
	b->len += n;
}

void ob_str(struct obuf *b, const char *s)
{
	ob_mem(b, s, strlen(s));
}

void ob_char(struct obuf *b, char c)
{
	*room(b, 1) = c;
	b->len++;
}

void ob_pad(struct obuf *b, size_t n)
{
	while (n--)
		ob_char(b, ' ');
}

/* printf's "%*s" */
void ob_rstr(struct obuf *b, const char *s, size_t width)
{
	size_t n = strlen(s);
	if (n < width)
		ob_pad(b, width - n);
	ob_mem(b, s, n);
}

/* The digits of v in base (10 or 16) into the end of buf; returns where
 * they start. */
static char *digits(char *end, uint64_t v, unsigned base)
{
	do {
		*--end = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	return end;
}

/* n characters at s, padded to width on the left (or, left, the right) */
static void put_padded(struct obuf *b, const char *s, size_t n, size_t width, bool left)
{
	if (!left && n < width)
		ob_pad(b, width - n);
	ob_mem(b, s, n);
	if (left && n < width)
		ob_pad(b, width - n);
}

/* "%*" PRIu64 (left: "%-*" PRIu64), "%*" PRIx64 */
void ob_num(struct obuf *b, uint64_t v, unsigned base, size_t width, bool left)
{
	char buf[24];
	char *s = digits(buf + sizeof(buf), v, base);
	put_padded(b, s, (size_t)(buf + sizeof(buf) - s), width, left);
}

/* "%0*" PRIu64 */
void ob_zero_num(struct obuf *b, uint64_t v, size_t width)
{
	char buf[24];
	char *s = digits(buf + sizeof(buf), v, 10);
	while ((size_t)(buf + sizeof(buf) - s) < width)
		*--s = '0';
	ob_mem(b, s, (size_t)(buf + sizeof(buf) - s));
}

/* "%*d" of a signed value (left: "%-*d") */
void ob_int(struct obuf *b, int64_t v, size_t width, bool left)
{
	char buf[24];
	char *s = digits(buf + sizeof(buf), v < 0 ? 0 - (uint64_t)v : (uint64_t)v, 10);
	if (v < 0)
		*--s = '-';
	put_padded(b, s, (size_t)(buf + sizeof(buf) - s), width, left);
}

void ob_printf(struct obuf *b, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		ob_mem(b, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}
