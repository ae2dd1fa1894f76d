/* test_srcinfo_query.c - a small driver over pa_srcinfo for tests and for
 * comparing with addr2line / perf by hand (symbols/srcline_oracle.py).
 *
 *   test_srcinfo_query [-d DEBUG_FILE] ELF [OFF...]
 *
 * Prints "# objdump-offset HEX" (what pa adds to a file offset to get the
 * address addr2line is asked), then for each OFF (hex file offset; read
 * from stdin, one per line, when none is given) one line:
 *   OFF<TAB>SRCLINE<TAB>NAME@SRCLINE|NAME@SRCLINE...
 * where SRCLINE is "-" when addr2line would have no answer, and the third
 * column lists pa_srcinfo_frames() innermost first.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"

static void query(struct pa_srcinfo *s, uint64_t off)
{
	struct pa_srcinfo_frame fr[64];
	const char *line = pa_srcinfo_line(s, off, NULL);
	size_t n = pa_srcinfo_frames(s, off, fr, 64);
	printf("%" PRIx64 "\t%s\t", off, line ? line : "-");
	for (size_t i = 0; i < n && i < 64; i++)
		printf("%s%s@%s", i ? "|" : "", fr[i].name, fr[i].srcline);
	printf("\n");
}

int main(int argc, char **argv)
{
	const char *dbg = NULL;
	int i = 1;
	if (i + 1 < argc && !strcmp(argv[i], "-d")) {
		dbg = argv[i + 1];
		i += 2;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: %s [-d DEBUG_FILE] ELF [OFF...]\n", argv[0]);
		return 2;
	}
	struct pa_err err = {0};
	struct pa_srcinfo *s = pa_srcinfo_open(argv[i], dbg, &err);
	if (!s) {
		fprintf(stderr, "open failed: %s\n", err.msg);
		return 1;
	}
	printf("# objdump-offset %" PRIx64 "\n", pa_srcinfo_objdump_addr(s, 0));
	if (i + 1 < argc) {
		for (int k = i + 1; k < argc; k++)
			query(s, strtoull(argv[k], NULL, 16));
	} else {
		char buf[128];
		while (fgets(buf, sizeof(buf), stdin))
			query(s, strtoull(buf, NULL, 16));
	}
	pa_srcinfo_free(s);
	return 0;
}
