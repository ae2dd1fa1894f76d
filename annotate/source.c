/* source.c - source lines of a binary's instructions (symbols/'
 * pa_dwlines: its DWARF line table and scopes) and the source files' text
 * (util's pa_textfiles). */
#include "annotate/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ann_src {
	struct pa_dwlines *dw;
	struct pa_textfiles text;
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
	pa_textfiles_release(&s->text);
	free(s);
}

bool ann_src_at(struct ann_src *s, uint64_t addr, const char **file, int *line, unsigned *discr,
                const char **func)
{
	return s && pa_dwlines_at(s->dw, addr, file, line, discr, func);
}

const char *ann_src_text(struct ann_src *s, const char *file, int n)
{
	return n < 1 ? NULL : pa_textfiles_line(&s->text, file, (unsigned)n);
}
