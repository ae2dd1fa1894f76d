/* text.c - the text formats: /proc/kallsyms and /tmp/perf-PID.map.
 *
 * Both parsers follow perf 6.1 byte for byte, quirks included:
 * - kallsyms (tools/lib/symbol/kallsyms.c + map__process_kallsym_symbol()):
 *   "HEX TYPE NAME\n", NAME running to the end of the line (so a module
 *   symbol's name is "sym\t[module]" until the table is frozen); a line
 *   that does not start with hex digits and a space is skipped together
 *   with whatever follows its first bad character up to the next newline;
 *   names longer than 512 bytes are cut and their rest parsed as a new line.
 *   Types t/T/w/W (functions) and d/D/b/B (data) are kept, names starting
 *   with '$' (ARM local labels) are not. All get size 0; then
 *   fixup_end(kallsyms) and fixup_duplicate.
 * - perf maps (dso__load_perf_map()): per line, the last character is
 *   dropped (the newline - or the last letter of an unterminated last line),
 *   START and SIZE are read with strtoull(,16) (so "0x", spaces and signs
 *   are accepted), one separator character is skipped after each, lines
 *   too short for a name are ignored. No fixups at all.
 */
#include "symbols/internal.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PA_KSYM_NAME_LEN 512

/* A byte reader with perf's io.h semantics (eof sticks once seen). */
struct rd {
	FILE *f;
	bool eof;
	size_t pos, len;
	unsigned char buf[65536];
};

static int rd_get(struct rd *r)
{
	if (r->pos == r->len) {
		r->len = r->eof ? 0 : fread(r->buf, 1, sizeof(r->buf), r->f);
		r->pos = 0;
		if (!r->len) {
			r->eof = true;
			return -1;
		}
	}
	return r->buf[r->pos++];
}

static void rd_to_eol(struct rd *r)
{
	int c;
	while ((c = rd_get(r)) >= 0 && c != '\n')
		;
}

/* perf's io__get_hex(): -2 if the first character is not hex (consumed),
 * -1 at EOF, else the character after the number. */
static int rd_hex(struct rd *r, uint64_t *v)
{
	bool first = true;
	*v = 0;
	for (;;) {
		int c = rd_get(r);
		if (c < 0)
			return c;
		if (c >= '0' && c <= '9')
			*v = (*v << 4) | (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v = (*v << 4) | (uint64_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v = (*v << 4) | (uint64_t)(c - 'A' + 10);
		else if (first)
			return -2;
		else
			return c;
		first = false;
	}
}

static bool ksym_keep(char type)
{
	int u = toupper((unsigned char)type);
	return u == 'T' || u == 'W' || u == 'D' || u == 'B';
}

static uint8_t ksym_binding(char type)
{
	if (type == 'W')
		return STB_WEAK;
	return isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL;
}

static uint8_t ksym_type(char type)
{
	int l = tolower((unsigned char)type);
	return (l == 't' || l == 'w') ? STT_FUNC : STT_OBJECT;
}

static FILE *open_text(const char *path, struct pa_err *err, int *rc)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		*rc = -errno;
		pa_err_set(err, *rc, "'%s': %s", path, pa_strerror(*rc));
	}
	return f;
}

struct pa_symtab *pa_symtab_load_kallsyms(const char *path, const struct pa_sym_opts *opts,
                                          struct pa_err *err)
{
	struct pa_sym_opts o;
	struct pa_symb b;
	struct pa_symtab *t = NULL;
	FILE *f = NULL;
	struct rd *rp = NULL;
	int rc;
	char name[PA_KSYM_NAME_LEN + 1];

	pa_symb_init(&b);
	if ((rc = pa_sym_opts_read(opts, &o, err)))
		goto fail;
	if (!(f = open_text(path, err, &rc)))
		goto fail;
	if (!(t = pa_symtab_new(PA_SYMTAB_KALLSYMS))) {
		rc = pa_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}

	rp = malloc(sizeof(*rp));
	if (!rp) {
		rc = pa_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	rp->f = f;
	rp->eof = false;
	rp->pos = rp->len = 0;
	while (!rp->eof) {
		uint64_t start;
		if (rd_hex(rp, &start) != ' ') {
			rd_to_eol(rp);
			continue;
		}
		int type = rd_get(rp);
		if (rd_get(rp) != ' ') {
			rd_to_eol(rp);
			continue;
		}
		size_t i;
		for (i = 0; i < sizeof(name); i++) {
			int c = rd_get(rp);
			if (c < 0 || c == '\n')
				break;
			name[i] = (char)c;
		}
		if (i == sizeof(name))
			i--; /* perf writes its terminator over the last byte */
		name[i] = '\0';
		if (type < 0 || !ksym_keep((char)type) || name[0] == '$')
			continue;
		const char *nm = pa_arena_strndup(&t->arena, name, i);
		if (!nm || pa_symb_insert(&b, start, start, 0, ksym_binding((char)type),
		                          ksym_type((char)type), nm)) {
			rc = pa_err_set(err, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	if (ferror(f)) {
		rc = pa_err_set(err, -EIO, "'%s': read error", path);
		goto fail;
	}
	pa_symb_fixup_end(&b, true);
	pa_symb_fixup_duplicate(&b);
	t->origin = "kallsyms";
	t->symfile = pa_arena_strdup(&t->arena, path);
	if (!t->symfile || pa_symtab_freeze(t, &b, true)) {
		rc = pa_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	pa_symb_release(&b);
	free(rp);
	fclose(f);
	return t;
fail:
	pa_symb_release(&b);
	free(rp);
	if (f)
		fclose(f);
	pa_symtab_free(t);
	errno = rc < 0 ? -rc : EINVAL;
	return NULL;
}

struct pa_symtab *pa_symtab_load_perf_map(const char *path, const struct pa_sym_opts *opts,
                                          struct pa_err *err)
{
	struct pa_sym_opts o;
	struct pa_symb b;
	struct pa_symtab *t = NULL;
	FILE *f = NULL;
	char *line = NULL;
	size_t cap = 0;
	int rc;

	pa_symb_init(&b);
	if ((rc = pa_sym_opts_read(opts, &o, err)))
		goto fail;
	if (!(f = open_text(path, err, &rc)))
		goto fail;
	if (!(t = pa_symtab_new(PA_SYMTAB_PERF_MAP))) {
		rc = pa_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}

	for (;;) {
		ssize_t got = getline(&line, &cap, f);
		if (got < 0)
			break;
		if (got > INT32_MAX)
			continue;
		int line_len = (int)got;
		line[--line_len] = '\0';

		char *end;
		uint64_t start = strtoull(line, &end, 16);
		int len = (int)(end - line);
		len++;
		if (len + 2 >= line_len)
			continue;
		uint64_t size = strtoull(line + len, &end, 16);
		len = (int)(end - line);
		len++;
		if (len + 2 >= line_len)
			continue;
		const char *nm = pa_arena_strdup(&t->arena, line + len);
		if (!nm || pa_symb_insert(&b, start, start, size, STB_GLOBAL, STT_FUNC, nm)) {
			rc = pa_err_set(err, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	if (ferror(f)) {
		rc = pa_err_set(err, -EIO, "'%s': read error", path);
		goto fail;
	}
	t->origin = "perf-map";
	t->symfile = pa_arena_strdup(&t->arena, path);
	if (!t->symfile || pa_symtab_freeze(t, &b, false)) {
		rc = pa_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	free(line);
	pa_symb_release(&b);
	fclose(f);
	return t;
fail:
	free(line);
	pa_symb_release(&b);
	if (f)
		fclose(f);
	pa_symtab_free(t);
	errno = rc < 0 ? -rc : EINVAL;
	return NULL;
}
