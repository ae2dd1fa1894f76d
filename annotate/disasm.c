/* disasm.c - a symbol's bytes disassembled by capstone, for the arch the
 * ELF header names (any host, any recording), written as the lines
 * objdump -l -d [-S] would give perf, so that one parser (listing.c)
 * makes both listings. */
#include "annotate/internal.h"

#include <errno.h>

#ifndef PA_HAVE_CAPSTONE
int ann_disasm_capstone(struct pa_annotate *a, const struct ann_sym *s, const char *path,
                        struct ann_listing *l, struct pa_err *err)
{
	(void)a, (void)s, (void)path, (void)l;
	return pa_err_set(err, -ENOTSUP, "pa was built without capstone: use --objdump PATH");
}
#else
#include <capstone/capstone.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A stretch of the symbol's bytes in one mode: from off (bytes from the
 * code's start) to the next one's; kind 'a' arm, 't' thumb, 'd' data (an
 * ARM ELF's mapping symbols), 0 the arch's only mode. */
struct region {
	size_t off;
	char kind;
};

/* The code's bytes in one section. objdump -d lists every code section
 * the range reaches: a symbol perf ends at the next symbol's start (_init,
 * of no size, ends where .plt.got does) runs on into the sections after
 * its own, each under its own heading. */
struct part {
	size_t off, len; /* from the code's start */
	const char *secname;
	uint64_t foff; /* where the file holds it */
};

struct code {
	uint8_t *bytes; /* [0, len): the parts' bytes at their offsets */
	size_t len;
	struct part *parts; /* at least one, from off 0, ascending */
	size_t nr_parts;
	const char *label; /* objdump's name of the code, NULL: the symbol's */
	cs_arch arch;
	cs_mode mode;
	bool x86;
	struct region *regions; /* at least one, from off 0, ascending */
	size_t nr_regions;
};

/* capstone's arch and mode for an ELF header; false: not one it knows */
static bool pick_arch(const GElf_Ehdr *eh, uint64_t start, struct code *c)
{
	bool be = eh->e_ident[EI_DATA] == ELFDATA2MSB, is64 = eh->e_ident[EI_CLASS] == ELFCLASS64;
	cs_mode endian = be ? CS_MODE_BIG_ENDIAN : CS_MODE_LITTLE_ENDIAN;
	switch (eh->e_machine) {
	case EM_X86_64:
		c->arch = CS_ARCH_X86, c->mode = CS_MODE_64, c->x86 = true;
		return true;
	case EM_386:
		c->arch = CS_ARCH_X86, c->mode = CS_MODE_32, c->x86 = true;
		return true;
	case EM_AARCH64:
		c->arch = CS_ARCH_ARM64, c->mode = CS_MODE_ARM | endian;
		return true;
	case EM_ARM:
		c->arch = CS_ARCH_ARM,
		c->mode = ((start & 1) ? CS_MODE_THUMB : CS_MODE_ARM) | endian;
		return true;
	case EM_PPC64:
		c->arch = CS_ARCH_PPC, c->mode = CS_MODE_64 | endian;
		return true;
	case EM_PPC:
		c->arch = CS_ARCH_PPC, c->mode = CS_MODE_32 | endian;
		return true;
	case EM_S390:
		c->arch = CS_ARCH_SYSZ, c->mode = CS_MODE_BIG_ENDIAN;
		return true;
	case EM_MIPS:
		c->arch = CS_ARCH_MIPS, c->mode = (is64 ? CS_MODE_MIPS64 : CS_MODE_MIPS32) | endian;
		return true;
	default:
		return false;
	}
}

/* the bytes of [start, end) from an ELF core (a kcore): perf disassembles
 * its extract of them, one segment "load0" without symbols */
static int read_core(Elf *elf, int fd, uint64_t start, uint64_t end, struct code *c,
                     const char **why)
{
	int rc = ann_core_read(elf, fd, start, end, &c->bytes, &c->len);
	if (rc == -PA_ERR_NOT_FOUND)
		*why = "no section of the binary holds the symbol";
	if (rc)
		return rc;
	if (!(c->parts = calloc(1, sizeof(*c->parts))))
		return -ENOMEM;
	c->parts[0] = (struct part){0, c->len, "load0", 0};
	c->nr_parts = 1;
	c->label = "load0";
	return 0;
}

static int cmp_part(const void *x, const void *y)
{
	const struct part *a = x, *b = y;
	return PA_CMP(a->off, b->off);
}

/* the sections of [start, end): the allocated one holding start, then the
 * code sections after it that the range reaches */
static int find_parts(Elf *elf, uint64_t start, uint64_t end, struct code *c, const char **why)
{
	size_t shstrndx, cap = 0;
	bool have_first = false;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return *why = "not an ELF file with sections", -PA_ERR_NOT_FOUND;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || !sh.sh_size ||
		    sh.sh_addr + sh.sh_size <= start || sh.sh_addr >= end)
			continue;
		bool first = sh.sh_addr <= start;
		/* (the first in header order holding start, as objdump's) */
		if (first ? have_first : !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS)
			continue;
		have_first |= first;
		if (first && sh.sh_type == SHT_NOBITS)
			return *why = "the binary holds no code there (a debug file?)",
			       -PA_ERR_NOT_FOUND;
		uint64_t from = first ? start : sh.sh_addr,
		         to = sh.sh_addr + sh.sh_size < end ? sh.sh_addr + sh.sh_size : end;
		if (PA_GROW(c->parts, cap, c->nr_parts + 1, 4))
			return -ENOMEM;
		c->parts[c->nr_parts++] =
		    (struct part){from - start, to - from, elf_strptr(elf, shstrndx, sh.sh_name),
		                  sh.sh_offset + (from - sh.sh_addr)};
	}
	/* (none: a core, whose segments the caller tries) */
	if (!c->nr_parts)
		return -PA_ERR_NOT_FOUND;
	qsort(c->parts, c->nr_parts, sizeof(*c->parts), cmp_part);
	return c->parts[0].off ? -PA_ERR_NOT_FOUND : 0;
}

/* the bytes of [start, end) from the sections holding them */
static int read_code(Elf *elf, int fd, uint64_t start, uint64_t end, struct code *c,
                     const char **why)
{
	int rc = find_parts(elf, start, end, c, why);
	if (rc == -PA_ERR_NOT_FOUND && !*why) {
		free(c->parts);
		c->parts = NULL, c->nr_parts = 0;
		return read_core(elf, fd, start, end, c, why);
	}
	if (rc)
		return rc;
	struct part *last = &c->parts[c->nr_parts - 1];
	c->len = last->off + last->len;
	if (!(c->bytes = calloc(1, c->len ? c->len : 1)))
		return -ENOMEM;
	for (size_t i = 0; i < c->nr_parts; i++) {
		const struct part *p = &c->parts[i];
		if (pread(fd, c->bytes + p->off, p->len, (off_t)p->foff) != (ssize_t)p->len)
			return *why = "cannot read the symbol's bytes", -PA_ERR_NOT_FOUND;
	}
	return 0;
}

static int cmp_region(const void *x, const void *y)
{
	const struct region *a = x, *b = y;
	return PA_CMP(a->off, b->off);
}

/* ARM: where [start, start + len) is arm code, thumb code or data, as
 * objdump reads it: the mapping symbols inside and the last one before
 * (else the function symbol's bit 0, a stripped file's thumb mark) */
static int arm_regions(Elf *elf, uint64_t start, struct code *c)
{
	char first = 0, fn = 0;
	uint64_t first_at = 0;
	size_t cap = 0;
	c->nr_regions = 1;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		GElf_Sym sym;
		for (int i = 0; (size_t)i < sh.sh_size / sh.sh_entsize && gelf_getsym(d, i, &sym);
		     i++) {
			const char *n = elf_strptr(elf, sh.sh_link, sym.st_name);
			char k = n ? pa_sym_mapping_kind(n) : 0;
			if (k == 'x') /* (A64's: not in an arm file) */
				k = 0;
			uint64_t v = sym.st_value;
			if (!k) {
				if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && (v & ~1ull) == start)
					fn = v & 1 ? 't' : 'a';
			} else if (v <= start && (!first || v >= first_at)) {
				first = k, first_at = v;
			} else if (v > start && v - start < c->len) {
				if (PA_GROW(c->regions, cap, c->nr_regions + 1, 8))
					return -ENOMEM;
				c->regions[c->nr_regions++] = (struct region){v - start, k};
			}
		}
	}
	if (!c->regions && !(c->regions = calloc(1, sizeof(*c->regions))))
		return -ENOMEM;
	c->regions[0] = (struct region){0, first ? first : fn ? fn : 'a'};
	qsort(c->regions + 1, c->nr_regions - 1, sizeof(*c->regions), cmp_region);
	return 0;
}

/* "0x1394" (or "#0x1394"): a branch target to name like objdump */
static bool target_of(const char *op, uint64_t *t)
{
	if (*op == '#')
		op++;
	if (op[0] != '0' || op[1] != 'x' || !isxdigit((unsigned char)op[2]))
		return false;
	char *e;
	*t = strtoull(op, &e, 16);
	return !*e;
}

/* objdump's operand text: no space after commas (but on arm, as objdump
 * writes it there); a branch target, the last operand, "ADDR <SYM+0xOFF>"
 * inside the symbol */
static void format_ops(const struct ann_sym *s, csh h, const cs_insn *in, cs_arch arch, char *buf,
                       size_t size)
{
	bool commas = arch == CS_ARCH_ARM || arch == CS_ARCH_ARM64;
	size_t o = 0;
	for (const char *p = in->op_str; *p && o + 1 < size; p++) {
		if (!commas && p[0] == ' ' && p > in->op_str && p[-1] == ',')
			continue;
		buf[o++] = *p;
	}
	buf[o] = 0;
	bool branch = cs_insn_group(h, in, CS_GRP_JUMP) || cs_insn_group(h, in, CS_GRP_CALL) ||
	              cs_insn_group(h, in, CS_GRP_BRANCH_RELATIVE) ||
	              (arch == CS_ARCH_SYSZ && (in->mnemonic[0] == 'j' || in->mnemonic[0] == 'b'));
	char *last = strrchr(buf, ',');
	last = last ? last + 1 : buf;
	uint64_t t;
	if (!branch || !target_of(last, &t))
		return;
	size_t keep = (size_t)(last - buf);
	if (t >= s->start && t < s->end)
		snprintf(last, size - keep, "%" PRIx64 " <%s+0x%" PRIx64 ">", t, s->sym->name,
		         t - s->start);
	else
		snprintf(last, size - keep, "%" PRIx64, t);
}

struct src_state {
	const char *file, *func;
	int line;
	unsigned discr;
};

/* objdump -l's "FUNC():" and "FILE:LINE" lines, -S's source text */
static int feed_source(struct pa_annotate *a, struct ann_src *src, const struct ann_sym *s,
                       uint64_t addr, struct src_state *st, struct ann_listing *l)
{
	const char *file, *func;
	int line, rc = 0;
	unsigned discr;
	char buf[4096];
	if (!ann_src_at(src, addr, &file, &line, &discr, &func))
		return 0;
	if (st->file && !strcmp(st->file, file) && st->line == line && st->discr == discr)
		return 0;
	if (func && (!st->func || strcmp(st->func, func))) {
		snprintf(buf, sizeof(buf), "%s():", func);
		if ((rc = ann_listing_feed(l, buf, s->start, s->end)))
			return rc;
	}
	if (discr)
		snprintf(buf, sizeof(buf), "%s:%d (discriminator %u)", file, line, discr);
	else
		snprintf(buf, sizeof(buf), "%s:%d", file, line);
	if ((rc = ann_listing_feed(l, buf, s->start, s->end)))
		return rc;
	const char *text = a->opts.no_source ? NULL : ann_src_text(src, file, line);
	if (text && !(st->file && !strcmp(st->file, file) && st->line == line))
		rc = ann_listing_feed(l, text, s->start, s->end);
	*st = (struct src_state){.file = file, .func = func, .line = line, .discr = discr};
	return rc;
}

/* Closer to objdump's AT&T text: no operand-size suffix where a register
 * operand (outside an address) or the 64-bit default gives the size, for
 * the integer instructions whose base name with a suffix is no other
 * instruction (not cmovl, setl, movq of an xmm register...). */
static void att_mnemonic(const char *mn, const char *ops, char *out, size_t size)
{
	static const char *const bases[] = {"mov", "add",  "sub", "and", "or",   "xor",
	                                    "cmp", "test", "lea", "inc", "dec",  "neg",
	                                    "not", "shl",  "shr", "sar", "sal",  "rol",
	                                    "ror", "imul", "adc", "sbb", "xchg", "movabs"};
	static const char *const stack[] = {"push", "pop", "call", "ret", "jmp"};
	snprintf(out, size, "%s", mn);
	size_t n = strlen(mn);
	if (n < 3 || !strchr("bwlq", mn[n - 1]) || strstr(ops, "%xmm") || strstr(ops, "%mm") ||
	    strstr(ops, "%ymm"))
		return;
	bool reg = false;
	int depth = 0;
	for (const char *p = ops; *p; p++) {
		depth += (*p == '(') - (*p == ')');
		reg |= *p == '%' && !depth;
	}
	for (size_t i = 0; i < PA_ARRAY_SIZE(stack); i++)
		if (strlen(stack[i]) == n - 1 && !strncmp(mn, stack[i], n - 1) &&
		    (mn[n - 1] == 'q' || mn[n - 1] == 'l'))
			out[n - 1] = 0;
	for (size_t i = 0; reg && i < PA_ARRAY_SIZE(bases); i++)
		if (strlen(bases[i]) == n - 1 && !strncmp(mn, bases[i], n - 1))
			out[n - 1] = 0;
}

/* objdump writes every number in hex: capstone's small ones ("$1",
 * "4(%rdi)", "-2(%rsi)") too */
static void att_hex(char *ops, size_t size)
{
	char out[512];
	size_t o = 0;
	int depth = 0;
	for (const char *p = ops; *p && o + 4 < sizeof(out); p++) {
		depth += (*p == '(') - (*p == ')');
		bool start = !depth && (p == ops || strchr("$,-", p[-1]));
		/* an index without its scale: objdump writes ",1" */
		if (*p == ')' && p > ops && p[-1] != ')') {
			const char *open = p;
			while (open > ops && *open != '(')
				open--;
			int commas = 0;
			for (const char *q = open; q < p; q++)
				commas += *q == ',';
			if (commas == 1 && strchr(open, '%') && strchr(strchr(open, ','), '%') &&
			    strchr(open, ',') < p && o + 3 < sizeof(out))
				o += (size_t)snprintf(out + o, sizeof(out) - o, ",1");
		}
		if (start && isdigit((unsigned char)*p) && !isalnum((unsigned char)p[1])) {
			o += (size_t)snprintf(out + o, sizeof(out) - o, "0x%c", *p);
			continue;
		}
		out[o++] = *p;
	}
	out[o] = 0;
	snprintf(ops, size, "%s", out);
}

/* objdump's long x86 nops (padding): a segment prefix is a word before
 * the name ("cs nopw 0x0(%rax,%rax,1)", not capstone's "%cs:" operand),
 * and each operand-size prefix but the one nopw needs a "data16" */
static void nop_prefixes(const cs_insn *in, bool att, char *mn, size_t size, char *ops)
{
	static const struct {
		uint8_t byte;
		const char *name;
	} segs[] = {{0x2e, "cs"}, {0x3e, "ds"}, {0x26, "es"},
	            {0x36, "ss"}, {0x64, "fs"}, {0x65, "gs"}};
	char pre[64] = "";
	const char *seg = NULL;
	int data16 = -(!strcmp(mn, "nopw"));
	for (size_t i = 0; i < in->size; i++) {
		size_t k = 0;
		while (k < PA_ARRAY_SIZE(segs) && segs[k].byte != in->bytes[i])
			k++;
		if (k < PA_ARRAY_SIZE(segs))
			seg = segs[k].name;
		else if (in->bytes[i] == 0x66)
			data16++;
		else
			break;
	}
	if (!strcmp(mn, "nop") && in->bytes[in->size - 1] == 0x90 && data16 > 0) {
		/* 66 90: objdump's "xchg %ax,%ax" */
		data16--;
		snprintf(mn, size, "xchg");
		strcpy(ops, att ? "%ax,%ax" : "ax,ax");
	}
	if (!seg && data16 <= 0)
		return;
	for (int i = 0; i < data16; i++)
		strcat(pre, "data16 ");
	if (seg) {
		strcat(pre, seg);
		strcat(pre, " ");
		/* the operand loses its segment: "%cs:" (AT&T) or "cs:" (Intel) */
		char *at = strstr(ops, seg);
		if (at && at[2] == ':') {
			char *from = at > ops && at[-1] == '%' ? at - 1 : at;
			memmove(from, at + 3, strlen(at + 3) + 1);
		}
	}
	char tmp[64];
	snprintf(tmp, sizeof(tmp), "%s%s", pre, mn);
	snprintf(mn, size, "%s", tmp);
}

/* The raw bytes objdump shows on an instruction's line, the rest on lines
 * of their own below it. */
#define RAW_PER_LINE 7

static int feed_insn(struct pa_annotate *a, const struct ann_sym *s, csh h, const cs_insn *in,
                     cs_arch arch, struct ann_listing *l)
{
	char ops[512], raw[128] = "", line[1024], mn[64];
	format_ops(s, h, in, arch, ops, sizeof(ops));
	snprintf(mn, sizeof(mn), "%s", in->mnemonic);
	if (arch == CS_ARCH_X86 && !(a->opts.style && !strcmp(a->opts.style, "intel"))) {
		att_mnemonic(in->mnemonic, ops, mn, sizeof(mn));
		att_hex(ops, sizeof(ops));
	}
	if (arch == CS_ARCH_X86 && !strncmp(mn, "nop", 3))
		nop_prefixes(in, !(a->opts.style && !strcmp(a->opts.style, "intel")), mn,
		             sizeof(mn), ops);
	if (a->opts.asm_raw) {
		size_t o = 0;
		for (size_t i = 0; i < in->size && i < RAW_PER_LINE; i++)
			o += (size_t)snprintf(raw + o, sizeof(raw) - o, "%02x ", in->bytes[i]);
		snprintf(raw + o, sizeof(raw) - o, "%*s\t", o < 21 ? (int)(21 - o) : 0, "");
	}
	if (*ops)
		snprintf(line, sizeof(line), "%" PRIx64 ":\t%s%-6s %s", in->address, raw, mn, ops);
	else
		snprintf(line, sizeof(line), "%" PRIx64 ":\t%s%s", in->address, raw, mn);
	int rc = ann_listing_feed(l, line, s->start, s->end);
	/* objdump's lines of the bytes past the first 7 (x86's long
	 * instructions), each at its address */
	for (size_t i = RAW_PER_LINE; a->opts.asm_raw && !rc && i < in->size; i += RAW_PER_LINE) {
		size_t o = (size_t)snprintf(line, sizeof(line), "%" PRIx64 ":\t", in->address + i);
		for (size_t k = i; k < in->size && k < i + RAW_PER_LINE; k++)
			o += (size_t)snprintf(line + o, sizeof(line) - o, "%02x ", in->bytes[k]);
		rc = ann_listing_feed(l, line, s->start, s->end);
	}
	return rc;
}

/* Samples fall on instructions' starts: an instruction decoded at
 * [at, end) that holds one inside is a misreading (capstone 4 does not
 * know every extension, AVX-512 among them, and steps on byte by byte
 * from there); *next: the first sampled address after at, or at. */
static bool straddles(const struct ann_sym *s, uint64_t at, uint64_t end, uint64_t *next)
{
	size_t lo = 0, hi = s->nr_addrs;
	uint64_t off = at - s->start;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->addrs[mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	*next = lo < s->nr_addrs ? s->start + s->addrs[lo].off : at;
	return lo < s->nr_addrs && *next < end;
}

/* The zeros at p that objdump folds into "...": 8 bytes or more (whole
 * words, unless they reach the end), or fewer than 3 at the end; 0: none */
static size_t zero_run(const uint8_t *p, size_t len)
{
	size_t z = 0;
	while (z < len && !p[z])
		z++;
	if (z == len && z < 3)
		return z;
	if (z < 8)
		return 0;
	return z == len ? z : z & ~(size_t)3;
}

/* One decoder's state over a symbol's code. */
struct dec {
	struct pa_annotate *a;
	const struct ann_sym *s;
	const struct code *c;
	struct ann_src *src;
	struct src_state st;
	struct ann_listing *l;
	csh h;
	cs_insn *in;
	uint64_t base; /* the code's first address */
};

/* objdump's lines for an ARM data stretch: a word each 4 bytes */
static int feed_data(struct dec *d, size_t from, size_t to)
{
	bool be = d->c->mode & CS_MODE_BIG_ENDIAN;
	int rc = 0;
	for (size_t o = from; o < to && !rc; o += 4) {
		const uint8_t *b = d->c->bytes + o;
		char line[64];
		if (to - o < 4) {
			snprintf(line, sizeof(line), "%" PRIx64 ":\t.byte\t0x%02x", d->base + o,
			         b[0]);
			o -= 3; /* one byte at a time */
		} else {
			/* (the word as the target reads it: the file's byte order) */
			uint32_t w = be ? (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
			                : (uint32_t)b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0];
			snprintf(line, sizeof(line), "%" PRIx64 ":\t.word\t0x%08" PRIx32,
			         d->base + o, w);
		}
		rc = ann_listing_feed(d->l, line, d->s->start, d->s->end);
	}
	return rc;
}

/* capstone over the bytes [from, to) */
static int decode(struct dec *d, size_t from, size_t to)
{
	const struct code *c = d->c;
	const uint8_t *code = c->bytes + from;
	size_t len = to - from, z;
	uint64_t addr = d->base + from;
	int rc = 0;
	while (len && !rc) {
		if ((z = zero_run(code, len))) {
			code += z, len -= z, addr += z;
			rc = ann_listing_feed(d->l, "\t...", d->s->start, d->s->end);
			continue;
		}
		uint64_t at = addr, next;
		bool ok = cs_disasm_iter(d->h, &code, &len, &addr, d->in);
		if (ok && !straddles(d->s, at, addr, &next)) {
			if (!(d->src && (rc = feed_source(d->a, d->src, d->s, at, &d->st, d->l))))
				rc = feed_insn(d->a, d->s, d->h, d->in, c->arch, d->l);
			continue;
		}
		/* objdump's "(bad)"; what follows it from the next sampled
		 * address on (one is always an instruction's start), else
		 * from the next byte */
		char bad[64];
		snprintf(bad, sizeof(bad), "%" PRIx64 ":\t(bad)", at);
		rc = ann_listing_feed(d->l, bad, d->s->start, d->s->end);
		if (!ok || next <= at)
			next = at + 1;
		if (next - d->base >= to)
			break;
		code = c->bytes + (next - d->base);
		len = to - (size_t)(next - d->base);
		addr = next;
	}
	return rc;
}

/* the regions (modes) of one part, each decoded */
static int decode_part(struct dec *d, const struct part *p)
{
	const struct code *c = d->c;
	int rc = 0;
	for (size_t r = 0; r < c->nr_regions && !rc; r++) {
		size_t from = c->regions[r].off,
		       to = r + 1 < c->nr_regions ? c->regions[r + 1].off : c->len;
		char k = c->regions[r].kind;
		from = from > p->off ? from : p->off;
		to = to < p->off + p->len ? to : p->off + p->len;
		if (from >= to)
			continue;
		if (k == 'd') {
			rc = feed_data(d, from, to);
			continue;
		}
		if (k)
			cs_option(d->h, CS_OPT_MODE,
			          (k == 't' ? CS_MODE_THUMB : CS_MODE_ARM) |
			              (c->mode & CS_MODE_BIG_ENDIAN));
		rc = decode(d, from, to);
	}
	return rc;
}

/* objdump's heading of a later section, its first address named from
 * the symbol as the branch targets inside the symbol are */
static int feed_section(struct dec *d, const struct part *p)
{
	char buf[1024];
	int rc;
	snprintf(buf, sizeof(buf), "Disassembly of section %s:", p->secname ? p->secname : "?");
	if ((rc = ann_listing_feed(d->l, "", d->s->start, d->s->end)) ||
	    (rc = ann_listing_feed(d->l, buf, d->s->start, d->s->end)) ||
	    (rc = ann_listing_feed(d->l, "", d->s->start, d->s->end)))
		return rc;
	snprintf(buf, sizeof(buf), "%016" PRIx64 " <%s+0x%zx>:", d->base + p->off, d->s->sym->name,
	         p->off);
	return ann_listing_feed(d->l, buf, d->s->start, d->s->end);
}

static int run_capstone(struct pa_annotate *a, const struct ann_sym *s, const struct code *c,
                        struct ann_src *src, struct ann_listing *l, struct pa_err *err)
{
	struct dec d = {.a = a, .s = s, .c = c, .src = src, .l = l};
	int rc = 0;
	if (cs_open(c->arch, c->mode, &d.h) != CS_ERR_OK)
		return pa_err_set(err, -PA_ERR_UNSUPPORTED,
		                  "annotate: capstone cannot open the arch");
	cs_option(d.h, CS_OPT_DETAIL, CS_OPT_ON);
	if (c->x86)
		cs_option(d.h, CS_OPT_SYNTAX,
		          a->opts.style && !strcmp(a->opts.style, "intel") ? CS_OPT_SYNTAX_INTEL
		                                                           : CS_OPT_SYNTAX_ATT);
	d.base = s->start & (c->arch == CS_ARCH_ARM ? ~1ull : ~0ull);
	if (!(d.in = cs_malloc(d.h))) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->nr_parts && !rc; i++)
		if (!(i && (rc = feed_section(&d, &c->parts[i]))))
			rc = decode_part(&d, &c->parts[i]);
out:
	if (rc == -ENOMEM)
		pa_err_set(err, rc, "annotate: %s", strerror(ENOMEM));
	if (d.in)
		cs_free(d.in, 1);
	cs_close(&d.h);
	return rc;
}

/* objdump's first lines as perf keeps them (the file's own line dropped) */
static int feed_head(const struct ann_sym *s, const char *secname, const char *label,
                     struct ann_listing *l)
{
	char buf[1024];
	int rc = 0;
	for (int i = 0; i < 3 && !rc; i++)
		rc = ann_listing_feed(l, "", s->start, s->end);
	snprintf(buf, sizeof(buf), "Disassembly of section %s:", secname ? secname : ".text");
	if (rc || (rc = ann_listing_feed(l, buf, s->start, s->end)) ||
	    (rc = ann_listing_feed(l, "", s->start, s->end)))
		return rc;
	snprintf(buf, sizeof(buf), "%016" PRIx64 " <%s>:", s->start, label ? label : s->sym->name);
	return ann_listing_feed(l, buf, s->start, s->end);
}

int ann_disasm_capstone(struct pa_annotate *a, const struct ann_sym *s, const char *path,
                        struct ann_listing *l, struct pa_err *err)
{
	struct code c = {0};
	const char *why = NULL;
	struct ann_src *src = NULL;
	Elf *elf = NULL;
	GElf_Ehdr eh;
	int rc;
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pa_err_set(err, -PA_ERR_NOT_FOUND, "'%s': %s", path, strerror(errno));
	if (!(elf = elf_begin(fd, ELF_C_READ, NULL)) || !gelf_getehdr(elf, &eh)) {
		rc = pa_err_set(err, -PA_ERR_NOT_FOUND, "'%s' is not an ELF file", path);
		goto out;
	}
	if (!pick_arch(&eh, s->start, &c)) {
		rc = pa_err_set(err, -PA_ERR_NOT_FOUND,
		                "capstone does not know the arch of '%s' "
		                "(e_machine %u)",
		                path, (unsigned)eh.e_machine);
		goto out;
	}
	uint64_t start = s->start & (c.arch == CS_ARCH_ARM ? ~1ull : ~0ull);
	if ((rc = read_code(elf, fd, start, s->end, &c, &why))) {
		if (rc == -ENOMEM)
			pa_err_set(err, rc, "annotate: %s", strerror(ENOMEM));
		else
			pa_err_set(err, rc, "%s", why);
		goto out;
	}
	if (c.arch == CS_ARCH_ARM ? arm_regions(elf, start, &c)
	                          : !(c.regions = calloc(c.nr_regions = 1, sizeof(*c.regions)))) {
		rc = pa_err_set(err, -ENOMEM, "annotate: %s", strerror(ENOMEM));
		goto out;
	}
	src = ann_src_open(path);
	if ((rc = feed_head(s, c.parts[0].secname, c.label, l))) {
		pa_err_set(err, rc, "annotate: %s", strerror(ENOMEM));
		goto out;
	}
	rc = run_capstone(a, s, &c, src, l, err);
out:
	ann_src_free(src);
	free(c.regions);
	free(c.parts);
	free(c.bytes);
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}
#endif
