/* demangle.c - symbol demangling as perf 6.1 does it (demangle_sym() in
 * symbol-elf.c):
 *   1. libiberty cplus_demangle(name, 0), or DMGL_PARAMS|DMGL_ANSI under
 *      `perf report -v`; libiberty handles C++ and both Rust manglings;
 *   2. if that produced a legacy Rust path still ending in "::h<16 hex>",
 *      perf's own Rust pass strips the hash and unescapes "$LT$" & co;
 *   3. else, if libiberty failed: OCaml ("camlModule__fn_123"), then Java
 *      ("Lpkg/Cls;meth(I)V", return type dropped).
 * Character classes follow the kernel's <linux/ctype.h> (Latin-1 letters
 * count as alphabetic), as perf is built with it.
 */
#include "symbols/internal.h"

#include <demangle.h>
#include <stdlib.h>
#include <string.h>

/* ---- the kernel's ctype: ASCII plus Latin-1 letters ---------------------- */

static bool k_isupper(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 0xc0 && c <= 0xde && c != 0xd7);
}

static bool k_islower(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 0xdf && c != 0xf7);
}

static bool k_isalpha(unsigned char c)
{
	return k_isupper(c) || k_islower(c);
}

static bool k_isxdigit(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c - 'A' + 10;
}

/* ---- perf's legacy Rust pass (applied to libiberty's output) ------------- */

#define RUST_HASH_PREFIX     "::h"
#define RUST_HASH_PREFIX_LEN 3
#define RUST_HASH_LEN        16

static const struct {
	const char *seq;
	char c;
} rust_escapes[] = {
    {"$C$", ','},   {"$SP$", '@'},  {"$BP$", '*'},  {"$RF$", '&'},  {"$LT$", '<'},   {"$GT$", '>'},
    {"$LP$", '('},  {"$RP$", ')'},  {"$u7e$", '~'}, {"$u20$", ' '}, {"$u27$", '\''}, {"$u5b$", '['},
    {"$u5d$", ']'}, {"$u7b$", '{'}, {"$u7d$", '}'}, {"$u3b$", ';'}, {"$u2b$", '+'},  {"$u22$", '"'},
};

/* Length of the escape sequence at s, 0 if none is recognised; *c gets the
 * character it stands for. */
static size_t rust_escape(const char *s, char *c)
{
	for (size_t i = 0; i < PA_ARRAY_SIZE(rust_escapes); i++) {
		size_t n = strlen(rust_escapes[i].seq);
		if (!strncmp(s, rust_escapes[i].seq, n)) {
			*c = rust_escapes[i].c;
			return n;
		}
	}
	return 0;
}

/* "::h" + 16 lower-case hex digits using between 5 and 15 distinct digits */
static bool rust_is_prefixed_hash(const char *s)
{
	bool seen[16] = {0};
	if (strncmp(s, RUST_HASH_PREFIX, RUST_HASH_PREFIX_LEN))
		return false;
	s += RUST_HASH_PREFIX_LEN;
	for (int i = 0; i < RUST_HASH_LEN; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= '0' && c <= '9')
			seen[c - '0'] = true;
		else if (c >= 'a' && c <= 'f')
			seen[c - 'a' + 10] = true;
		else
			return false;
	}
	int count = 0;
	for (int i = 0; i < 16; i++)
		count += seen[i];
	return count >= 5 && count <= 15;
}

static bool rust_looks_like_rust(const char *s, size_t len)
{
	const char *end = s + len;
	while (s < end) {
		unsigned char c = (unsigned char)*s;
		char dummy;
		size_t n;
		if (c == '$') {
			n = rust_escape(s, &dummy);
			if (!n)
				return false;
			s += n;
		} else if (c == '.') {
			if (!strncmp(s, "...", 3))
				return false;
			s++;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		           (c >= '0' && c <= '9') || c == '_' || c == ':') {
			s++;
		} else {
			return false;
		}
	}
	return true;
}

static bool rust_is_mangled(const char *s)
{
	size_t len = strlen(s);
	if (len <= RUST_HASH_PREFIX_LEN + RUST_HASH_LEN)
		return false;
	size_t body = len - (RUST_HASH_PREFIX_LEN + RUST_HASH_LEN);
	return rust_is_prefixed_hash(s + body) && rust_looks_like_rust(s, body);
}

/* In place; stops (keeping what was written) at anything unexpected. */
static void rust_demangle_in_place(char *sym)
{
	const char *in = sym;
	char *out = sym;
	const char *end = sym + strlen(sym) - (RUST_HASH_PREFIX_LEN + RUST_HASH_LEN);

	while (in < end) {
		unsigned char c = (unsigned char)*in;
		if (c == '$') {
			char v;
			size_t n = rust_escape(in, &v);
			if (!n)
				break;
			*out++ = v;
			in += n;
		} else if (c == '_') {
			/* an underscore opening a path component before an
			 * escape was only there to make the component valid */
			if ((in == sym || in[-1] == ':') && in[1] == '$')
				in++;
			else
				*out++ = *in++;
		} else if (c == '.') {
			if (in[1] == '.') {
				*out++ = ':';
				*out++ = ':';
				in += 2;
			} else {
				*out++ = '-';
				in++;
			}
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		           (c >= '0' && c <= '9') || c == ':') {
			*out++ = *in++;
		} else {
			break;
		}
	}
	*out = '\0';
}

/* ---- OCaml ----------------------------------------------------------------- */

static char *ocaml_demangle(const char *sym)
{
	if (strncmp(sym, "caml", 4) || !k_isupper((unsigned char)sym[4]))
		return NULL;
	size_t len = strlen(sym);
	char *res = malloc(len + 1);
	if (!res)
		return NULL;
	size_t i = 4, j = 0;
	while (i < len) {
		if (sym[i] == '_' && sym[i + 1] == '_') {
			res[j++] = '.';
			i += 2;
		} else if (sym[i] == '$' && k_isxdigit((unsigned char)sym[i + 1]) &&
		           k_isxdigit((unsigned char)sym[i + 2])) {
			res[j++] = (char)((hexval((unsigned char)sym[i + 1]) << 4) |
			                  hexval((unsigned char)sym[i + 2]));
			i += 3;
		} else {
			res[j++] = sym[i++];
		}
	}
	res[j] = '\0';
	return res;
}

/* ---- Java (openJDK signatures as written by perf's JIT support) ----------- */

enum { J_PREFIX, J_CLASS, J_FUNC, J_TYPE, J_CTYPE };

/* A fixed-size output like perf's: at most max-1 characters. */
struct jbuf {
	char *p;
	size_t len, max;
};

static void jput(struct jbuf *b, const char *s)
{
	while (*s && b->len + 1 < b->max)
		b->p[b->len++] = *s++;
}

static const char *java_base_type(char c)
{
	switch (c) {
	case 'B':
		return "byte";
	case 'C':
		return "char";
	case 'D':
		return "double";
	case 'F':
		return "float";
	case 'I':
		return "int";
	case 'J':
		return "long";
	case 'S':
		return "short";
	case 'Z':
		return "boolean";
	default:
		return NULL;
	}
}

static char *java_demangle(const char *str)
{
	const char *ret = strrchr(str, ')');
	if (!ret)
		return NULL;
	size_t max = strlen(str) * 3 + 1;
	struct jbuf b = {.p = malloc(max), .len = 0, .max = max};
	if (!b.p)
		return NULL;

	int mode = J_PREFIX, array = 0, narg = 0;
	for (const char *q = str; q != ret + 1; q++) {
		if (b.len == max - 1)
			break;
		char c = *q;
		const char *base = java_base_type(c);
		if (c == 'L') {
			if (mode == J_PREFIX || mode == J_TYPE) {
				if (mode == J_TYPE) {
					if (narg)
						jput(&b, ", ");
					narg++;
				}
				mode = mode == J_PREFIX ? J_CLASS : J_CTYPE;
			} else {
				b.p[b.len++] = c;
			}
		} else if (base || c == 'V') {
			if (mode == J_TYPE) {
				if (base && narg)
					jput(&b, ", ");
				jput(&b, base ? base : "void");
				while (array--)
					jput(&b, "[]");
				array = 0;
				if (base)
					narg++;
			} else {
				b.p[b.len++] = c;
			}
		} else if (c == '[') {
			if (mode != J_TYPE)
				goto error;
			array++;
		} else if (c == '(') {
			if (mode != J_FUNC)
				goto error;
			b.p[b.len++] = c;
			mode = J_TYPE;
		} else if (c == ')') {
			if (mode != J_TYPE)
				goto error;
			b.p[b.len++] = c;
			narg = 0;
		} else if (c == ';') {
			if (mode != J_CLASS && mode != J_CTYPE)
				goto error;
			if (k_isalpha((unsigned char)q[1]) && mode == J_CLASS)
				jput(&b, ".");
			mode = mode == J_CLASS ? J_FUNC : J_TYPE;
		} else if (c == '/') {
			if (mode != J_CLASS && mode != J_CTYPE)
				goto error;
			jput(&b, ".");
		} else {
			b.p[b.len++] = c;
		}
	}
	b.p[b.len] = '\0';
	return b.p;
error:
	free(b.p);
	return NULL;
}

/* ---- entry points ---------------------------------------------------------- */

char *pa_sym_demangle(const char *name, bool params)
{
	char *d = cplus_demangle(name, params ? (DMGL_PARAMS | DMGL_ANSI) : DMGL_NO_OPTS);
	if (d) {
		if (rust_is_mangled(d))
			rust_demangle_in_place(d);
		return d;
	}
	d = ocaml_demangle(name);
	if (!d)
		d = java_demangle(name);
	return d;
}

const char *pa_sym_name_arena(struct pa_arena *a, const char *name, bool demangle, bool params)
{
	char *d = demangle ? pa_sym_demangle(name, params) : NULL;
	if (!d)
		return pa_arena_strdup(a, name);
	char *c = pa_arena_strdup(a, d);
	free(d);
	return c;
}
