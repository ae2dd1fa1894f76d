/* test_symbols_query.c - a small driver over symbols/ for tests and for
 * comparing with perf by hand.
 *
 *   test_symbols_query [-p] [-n] [-M] elf|kallsyms|map FILE [ADDR...]
 *
 * Each ADDR (hex; read from stdin, one per line, when none is given) is
 * resolved with pa_symtab_find_offset() and printed as "ADDR NAME+0xOFF" or
 * "ADDR [unknown]"; for ELF tables ADDR is a file offset.
 * -p demangles with parameters, -n disables demangling, -M ignores
 * MiniDebugInfo. With -d the whole table is dumped instead
 * ("START END BIND TYPE NAME [MODULE]"), preceded by "# origin ...".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/symbols.h"

static void resolve(const struct pa_symtab *t, uint64_t a)
{
	const struct pa_sym *s = pa_symtab_find_offset(t, a);
	if (!s) {
		printf("%" PRIx64 " [unknown]\n", a);
		return;
	}
	printf("%" PRIx64 " %s+0x%" PRIx64 "\n", a, s->name, a - pa_sym_key(t, s));
}

int main(int argc, char **argv)
{
	struct pa_sym_opts o = PA_SYM_OPTS_INIT;
	bool dump = false;
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-p"))
			o.demangle_params = true;
		else if (!strcmp(argv[i], "-n"))
			o.demangle = false;
		else if (!strcmp(argv[i], "-M"))
			o.no_minidebuginfo = true;
		else if (!strcmp(argv[i], "-d"))
			dump = true;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: %s [-p] [-n] [-M] [-d] elf|kallsyms|map FILE [ADDR...]\n",
		        argv[0]);
		return 2;
	}
	struct pa_err err = {0};
	struct pa_symtab *t;
	if (!strcmp(argv[i], "elf"))
		t = pa_symtab_load_elf(argv[i + 1], &o, &err);
	else if (!strcmp(argv[i], "kallsyms"))
		t = pa_symtab_load_kallsyms(argv[i + 1], &o, &err);
	else
		t = pa_symtab_load_perf_map(argv[i + 1], &o, &err);
	if (!t) {
		fprintf(stderr, "load failed: %s\n", err.msg);
		return 1;
	}
	if (dump) {
		printf("# origin %s file %s\n", pa_symtab_origin(t), pa_symtab_symbol_file(t));
		for (size_t k = 0; k < pa_symtab_count(t); k++) {
			const struct pa_sym *s = pa_symtab_at(t, k);
			const char *m = pa_sym_module(t, s);
			printf("%" PRIx64 " %" PRIx64 " %u %u %s%s%s\n", s->start, s->end,
			       s->binding, s->type, s->name, m ? " " : "", m ? m : "");
		}
	} else if (i + 2 < argc) {
		for (int k = i + 2; k < argc; k++)
			resolve(t, strtoull(argv[k], NULL, 16));
	} else {
		char line[256];
		while (fgets(line, sizeof(line), stdin))
			resolve(t, strtoull(line, NULL, 16));
	}
	pa_symtab_free(t);
	return 0;
}
