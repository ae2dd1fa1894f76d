/* dwlines.c - a binary's DWARF line table and scopes by address, as
 * objdump -l reads them for pa annotate: the line of an instruction and
 * the innermost function holding it (an inlined one's name, through its
 * abstract origin, else the subprogram's). */
#include "symbols/symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

struct pa_dwlines {
	int fd;
	Dwarf *dw;
	/* the subprogram of the last address asked (listings go function by
	 * function): its inlined scopes are searched below it alone, not from
	 * the CU's root for each instruction (dwarf_getscopes' walk, which
	 * made most of a whole-file annotation's time) */
	Dwarf_Die sub;
	bool have_sub;
};

struct pa_dwlines *pa_dwlines_open(const char *path)
{
	struct pa_dwlines *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd >= 0)
		s->dw = dwarf_begin(s->fd, DWARF_C_READ);
	return s;
}

void pa_dwlines_free(struct pa_dwlines *s)
{
	if (!s)
		return;
	if (s->dw)
		dwarf_end(s->dw);
	if (s->fd >= 0)
		close(s->fd);
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

/* the innermost function holding addr */
static const char *scope_func(struct pa_dwlines *s, Dwarf_Die *cu, uint64_t addr)
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

bool pa_dwlines_at(struct pa_dwlines *s, uint64_t addr, const char **file, int *line,
                   unsigned *discr, const char **func)
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
