/* source.c - source lines of a binary's instructions: its DWARF line
 * table and scopes through libdw (the innermost function, inlined or
 * not, as objdump -l names it), and the source files' text. */
#include "annotate/internal.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct src_file {
	char *name;
	char *buf;    /* the whole file, lines cut at their newlines */
	char **lines; /* NULL: unreadable */
	size_t nr_lines;
};

struct ann_src {
	int fd;
	Dwarf *dw;
	/* the subprogram of the last address asked (listings go function by
	 * function): its inlined scopes are searched below it alone, not from
	 * the CU's root for each instruction (dwarf_getscopes' walk, which
	 * made most of a whole-file annotation's time) */
	Dwarf_Die sub;
	bool have_sub;
	struct src_file *files;
	size_t nr_files, cap_files;
};

struct ann_src *ann_src_open(const char *path)
{
	struct ann_src *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd >= 0)
		s->dw = dwarf_begin(s->fd, DWARF_C_READ);
	return s;
}

void ann_src_free(struct ann_src *s)
{
	if (!s)
		return;
	if (s->dw)
		dwarf_end(s->dw);
	if (s->fd >= 0)
		close(s->fd);
	for (size_t i = 0; i < s->nr_files; i++) {
		free(s->files[i].name);
		free(s->files[i].buf);
		free(s->files[i].lines);
	}
	free(s->files);
	free(s);
}

/* the innermost inlined subroutine below die (through lexical blocks)
 * whose code holds addr, NULL when none */
static const char *inlined_below(Dwarf_Die *die, uint64_t addr)
{
	Dwarf_Die child;
	if (dwarf_child(die, &child))
		return NULL;
	do {
		int tag = dwarf_tag(&child);
		if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
		    dwarf_haspc(&child, addr) > 0) {
			const char *inner = inlined_below(&child, addr);
			if (inner || tag == DW_TAG_lexical_block)
				return inner;
			return dwarf_diename(&child);
		}
	} while (!dwarf_siblingof(&child, &child));
	return NULL;
}

/* the innermost function holding addr: an inlined one's name (through
 * its abstract origin), else the subprogram's */
static const char *scope_func(struct ann_src *s, Dwarf_Die *cu, uint64_t addr)
{
	if (s->have_sub && dwarf_haspc(&s->sub, addr) > 0) {
		const char *name = inlined_below(&s->sub, addr);
		return name ? name : dwarf_diename(&s->sub);
	}
	Dwarf_Die *scopes = NULL;
	const char *name = NULL;
	int n = dwarf_getscopes(cu, addr, &scopes);
	s->have_sub = false;
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (!name && (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine))
			name = dwarf_diename(&scopes[i]);
		if (tag == DW_TAG_subprogram && !s->have_sub) {
			s->sub = scopes[i];
			s->have_sub = true;
		}
	}
	free(scopes);
	return name;
}

bool ann_src_at(struct ann_src *s, uint64_t addr, const char **file, int *line, unsigned *discr,
                const char **func)
{
	Dwarf_Die cu;
	if (!s || !s->dw || !dwarf_addrdie(s->dw, addr, &cu))
		return false;
	Dwarf_Line *ln = dwarf_getsrc_die(&cu, addr);
	if (!ln)
		return false;
	*file = dwarf_linesrc(ln, NULL, NULL);
	if (!*file || dwarf_lineno(ln, line))
		return false;
	if (dwarf_linediscriminator(ln, discr))
		*discr = 0;
	*func = scope_func(s, &cu, addr);
	return true;
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
