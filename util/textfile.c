/* textfile.c - source files' text by line, each file read once. */
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pa_textfile {
	char *path;
	char *buf;    /* the whole file, lines cut at their newlines */
	char **lines; /* NULL: unreadable (or empty) */
	size_t nr_lines;
};

/* f->path's text into f (left empty when it cannot be read). 0 or
 * -ENOMEM. */
static int load(struct pa_textfile *f)
{
	FILE *in = fopen(f->path, "re");
	if (!in)
		return 0;
	struct pa_buf b = {0};
	char chunk[65536];
	size_t n, cap = 0;
	int rc = 0;
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		if ((rc = pa_buf_add(&b, chunk, n)))
			goto out;
	if ((rc = pa_buf_add(&b, "", 1)))
		goto out;
	f->buf = (char *)b.data;
	b.data = NULL;
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

const char *pa_textfiles_line(struct pa_textfiles *t, const char *path, unsigned n)
{
	struct pa_textfile *f = NULL;
	for (size_t i = 0; i < t->nr && !f; i++)
		if (!strcmp(t->files[i].path, path))
			f = &t->files[i];
	if (!f) {
		if (PA_GROW(t->files, t->cap, t->nr + 1, 4))
			return NULL;
		f = &t->files[t->nr];
		memset(f, 0, sizeof(*f));
		if (!(f->path = strdup(path)))
			return NULL;
		t->nr++;
		if (load(f))
			return NULL;
	}
	return n >= 1 && n <= f->nr_lines ? f->lines[n - 1] : NULL;
}

void pa_textfiles_release(struct pa_textfiles *t)
{
	for (size_t i = 0; i < t->nr; i++) {
		free(t->files[i].path);
		free(t->files[i].buf);
		free(t->files[i].lines);
	}
	free(t->files);
	memset(t, 0, sizeof(*t));
}
