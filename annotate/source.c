/* source.c - source lines of a binary's instructions (symbols/'
 * pa_dwlines: its DWARF line table and scopes) and the source files' text. */
#include "annotate/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct src_file {
	char *name;
	char *buf;    /* the whole file, lines cut at their newlines */
	char **lines; /* NULL: unreadable */
	size_t nr_lines;
};

struct ann_src {
	struct pa_dwlines *dw;
	struct src_file *files;
	size_t nr_files, cap_files;
};

struct ann_src *ann_src_open(const char *path)
{
	struct ann_src *s = calloc(1, sizeof(*s));
	if (s && !(s->dw = pa_dwlines_open(path))) {
		free(s);
		return NULL;
	}
	return s;
}

void ann_src_free(struct ann_src *s)
{
	if (!s)
		return;
	pa_dwlines_free(s->dw);
	for (size_t i = 0; i < s->nr_files; i++) {
		free(s->files[i].name);
		free(s->files[i].buf);
		free(s->files[i].lines);
	}
	free(s->files);
	free(s);
}

bool ann_src_at(struct ann_src *s, uint64_t addr, const char **file, int *line, unsigned *discr,
                const char **func)
{
	return s && pa_dwlines_at(s->dw, addr, file, line, discr, func);
}

static int load_file(struct src_file *f)
{
	FILE *in = fopen(f->name, "re");
	if (!in)
		return 0;
	struct pa_buf b = {0};
	char chunk[65536];
	size_t n;
	int rc = 0;
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		if ((rc = pa_buf_add(&b, chunk, n)))
			goto out;
	if ((rc = pa_buf_add(&b, "", 1)))
		goto out;
	f->buf = (char *)b.data;
	b.data = NULL;
	size_t cap = 0;
	for (char *p = f->buf; *p;) {
		char *nl = strchr(p, '\n');
		if (PA_GROW(f->lines, cap, f->nr_lines + 1, 256)) {
			rc = -ENOMEM;
			goto out;
		}
		f->lines[f->nr_lines++] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
out:
	pa_buf_release(&b);
	fclose(in);
	return rc;
}

const char *ann_src_text(struct ann_src *s, const char *file, int n)
{
	struct src_file *f = NULL;
	for (size_t i = 0; i < s->nr_files && !f; i++)
		if (!strcmp(s->files[i].name, file))
			f = &s->files[i];
	if (!f) {
		if (PA_GROW(s->files, s->cap_files, s->nr_files + 1, 4))
			return NULL;
		f = &s->files[s->nr_files];
		memset(f, 0, sizeof(*f));
		if (!(f->name = strdup(file)))
			return NULL;
		s->nr_files++;
		load_file(f);
	}
	if (n < 1 || (size_t)n > f->nr_lines)
		return NULL;
	return f->lines[n - 1];
}
