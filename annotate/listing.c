/* listing.c - a symbol's lines as perf 6.1 parses objdump's output
 * (symbol__disassemble, symbol__parse_objdump_line). */
#include "annotate/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ann_listing_init(struct ann_listing *l)
{
	memset(l, 0, sizeof(*l));
	pa_arena_init(&l->arena, 64 << 10);
}

void ann_listing_release(struct ann_listing *l)
{
	free(l->v);
	pa_arena_release(&l->arena);
	memset(l, 0, sizeof(*l));
}

/* perf's strim() then expand_tabs(): into the arena */
static char *clean(struct ann_listing *l, const char *raw)
{
	size_t n = strlen(raw);
	while (n && isspace((unsigned char)raw[n - 1]))
		n--;
	while (n && isspace((unsigned char)*raw)) {
		raw++;
		n--;
	}
	return pa_arena_expand_tabs(&l->arena, raw, n);
}

/* perf's file_lineno regex, "^/[^:]+:([0-9]+)": the line number or -1 */
static int file_lineno(const char *s)
{
	if (s[0] != '/')
		return -1;
	const char *c = strchr(s, ':');
	if (!c || c - s < 2 || !isdigit((unsigned char)c[1]))
		return -1;
	return atoi(c + 1);
}

/* perf's test in delete_last_nop: an instruction named (its first word)
 * nop, nopl or nopw; any other line with one of them between spaces */
static bool is_nop(const char *s, bool insn)
{
	static const char *const nops[] = {"nop", "nopl", "nopw"};
	for (size_t i = 0; i < PA_ARRAY_SIZE(nops); i++) {
		size_t n = strlen(nops[i]);
		if (insn) {
			while (isspace((unsigned char)*s))
				s++;
			if (!strncmp(s, nops[i], n) && (!s[n] || isspace((unsigned char)s[n])))
				return true;
		} else {
			char pat[8];
			snprintf(pat, sizeof(pat), " %s ", nops[i]);
			if (strstr(s, pat))
				return true;
		}
	}
	return false;
}

int ann_listing_feed(struct ann_listing *l, const char *raw, uint64_t start, uint64_t end)
{
	char *s = clean(l, raw);
	if (!s)
		return -ENOMEM;
	int nr = file_lineno(s);
	if (nr >= 0) {
		l->line_nr = nr;
		return 0;
	}
	int64_t off = -1;
	char *tmp;
	errno = 0;
	unsigned long long ip = strtoull(s, &tmp, 16);
	if (s != tmp && tmp[0] == ':' && tmp[1]) {
		if (ip >= start && ip < end) {
			off = (int64_t)(ip - start);
			s = tmp + 1;
		}
	}
	if (PA_GROW(l->v, l->cap, l->n + 1, 64))
		return -ENOMEM;
	l->v[l->n++] = (struct ann_line){
	    .off = off, .line_nr = l->line_nr, .text = s, .nop = is_nop(s, off >= 0)};
	l->line_nr++;
	return 0;
}

void ann_listing_drop_last_nops(struct ann_listing *l)
{
	while (l->n && l->v[l->n - 1].nop)
		l->n--;
}
