/* fuzz_symbols.h - what the symbol-table harnesses check after a load. */
#ifndef PA_FUZZ_SYMBOLS_H
#define PA_FUZZ_SYMBOLS_H

#include "fuzz_common.h"
#include "symbols/symbols.h"

#include <string.h>

/* Walk every symbol and look each one up by its start and last byte: the
 * table's invariants (sorted keys, lookups that find a covering symbol). */
static inline void fuzz_check_symtab(const struct pa_symtab *t, const uint8_t *data, size_t size)
{
	size_t n = pa_symtab_count(t);
	uint64_t h = n + fuzz_touch_str(pa_symtab_origin(t)) + (uint64_t)pa_symtab_elf_type(t);
	uint64_t prev_key = 0;
	size_t idlen = 0;
	const uint8_t *id = pa_symtab_build_id(t, &idlen);
	if (idlen > 20)
		fuzz_fail("build-id of %zu bytes", idlen);
	h += fuzz_touch(id, idlen) + fuzz_touch_str(pa_symtab_symbol_file(t));
	for (size_t i = 0; i < n; i++) {
		const struct pa_sym *s = pa_symtab_at(t, i);
		if (!s || !s->name)
			fuzz_fail("symbol %zu of %zu missing", i, n);
		if (pa_sym_index(t, s) != i)
			fuzz_fail("pa_sym_index(%zu) = %zu", i, pa_sym_index(t, s));
		uint64_t key = pa_sym_key(t, s);
		if (i && key < prev_key)
			fuzz_fail("symbols out of order at %zu", i);
		prev_key = key;
		h += fuzz_touch_str(s->name) + fuzz_touch_str(pa_sym_module(t, s));
		/* Not checked: that some symbol covers the start. perf's lookup
		 * walks one search path, so where symbols overlap (labels,
		 * reused JIT ranges, ends that wrapped around) it can miss, and
		 * pa returns what perf returns. */
		h += (uint64_t)(uintptr_t)pa_symtab_find_offset(t, key);
		h += (uint64_t)(uintptr_t)pa_symtab_find(t, s->start);
		if (s->end > s->start)
			h += (uint64_t)(uintptr_t)pa_symtab_find(t, s->end - 1);
		uint64_t va;
		if (pa_symtab_offset_to_vaddr(t, key, &va) == 0)
			h += va;
	}
	if (pa_symtab_at(t, n))
		fuzz_fail("pa_symtab_at(count) is not NULL");
	/* a few addresses taken from the input itself */
	for (size_t i = 0; i + 8 <= size && i < 256; i += 8) {
		uint64_t a;
		memcpy(&a, data + i, 8);
		h += (uint64_t)(uintptr_t)pa_symtab_find(t, a);
		h += (uint64_t)(uintptr_t)pa_symtab_find_offset(t, a);
	}
	fuzz_sink += h;
}

#endif
