/* test_flame.c - unit tests for flame/: merging stacks, sibling order,
 * determinism, escaping in SVG and HTML, the folded parser, limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame/flame.h"

/* ---- helpers ---- */

/* The frames as text, one per line: "depth name kind value self x". */
struct dump {
	char *text;
	size_t len;
	FILE *f;
};

static int dump_frame(void *ctx, const struct pa_flame_frame *fr)
{
	FILE *f = ctx;
	fprintf(f, "%u %.*s %d %llu %llu %llu\n", fr->depth, (int)fr->name_len, fr->name,
		(int)fr->kind, (unsigned long long)fr->value, (unsigned long long)fr->self,
		(unsigned long long)fr->x);
	return 0;
}

static char *frames_of(struct pa_flame *fg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(pa_flame_foreach_frame(fg, dump_frame, f), 0);
	fclose(f);
	return text;
}

static char *render(struct pa_flame *fg, enum pa_flame_format fmt, const struct pa_flame_opts *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	struct pa_err err = {0};
	int rc = pa_flame_write(fg, f, fmt, o, &err);
	fclose(f);
	if (rc)
		fail_msg("pa_flame_write: %s", err.msg);
	return text;
}

static void add(struct pa_flame *fg, uint64_t v, size_t n, ...)
{
	const char *frames[16];
	va_list ap;
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		frames[i] = va_arg(ap, const char *);
	va_end(ap);
	assert_int_equal(pa_flame_add_stack(fg, frames, NULL, n, v), 0);
}

static void add_folded(struct pa_flame *fg, const char *line)
{
	struct pa_err err = {0};
	if (pa_flame_add_folded(fg, line, strlen(line), &err))
		fail_msg("'%s': %s", line, err.msg);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* ---- merging ---- */

static void test_merge(void **state)
{
	(void)state;
	struct pa_flame *fg = pa_flame_new();
	assert_non_null(fg);
	add(fg, 3, 3, "a", "b", "c");
	add(fg, 2, 3, "a", "b", "d");
	add(fg, 1, 2, "a", "e");
	add(fg, 4, 2, "a", "b"); /* b's self */
	add(fg, 5, 3, "a", "b", "c");
	assert_int_equal(pa_flame_total(fg), 15);
	char *t = frames_of(fg);
	assert_string_equal(t, "0 all 0 15 0 0\n"
			       "1 a 0 15 0 0\n"
			       "2 b 0 14 4 0\n"
			       "3 c 0 8 8 0\n"
			       "3 d 0 2 2 8\n"
			       "2 e 0 1 1 14\n");
	free(t);
	assert_int_equal(pa_flame_frame_count(fg), 6);
	pa_flame_free(fg);
}

/* The same function on two paths is two frames; same name, other kind too. */
static void test_merge_paths_and_kinds(void **state)
{
	(void)state;
	struct pa_flame *fg = pa_flame_new();
	const char *s1[] = {"p", "x", "read"}, *s2[] = {"p", "y", "read"};
	uint8_t k_user[] = {0, 0, 0}, k_kern[] = {0, 0, PA_FLAME_KERNEL};
	assert_int_equal(pa_flame_add_stack(fg, s1, k_user, 3, 1), 0);
	assert_int_equal(pa_flame_add_stack(fg, s1, k_kern, 3, 2), 0);
	assert_int_equal(pa_flame_add_stack(fg, s2, k_user, 3, 4), 0);
	char *t = frames_of(fg);
	assert_string_equal(t, "0 all 0 7 0 0\n"
			       "1 p 0 7 0 0\n"
			       "2 x 0 3 0 0\n"
			       "3 read 0 1 1 0\n"
			       "3 read 1 2 2 1\n"
			       "2 y 0 4 0 3\n"
			       "3 read 0 4 4 3\n");
	free(t);
	pa_flame_free(fg);
}

/* ---- ordering and determinism ---- */

static void test_order_bytes(void **state)
{
	(void)state;
	struct pa_flame *fg = pa_flame_new();
	/* byte order: "B" < "_" < "a" < "foo" < "foo_bar" < "\xc3\xa9" */
	const char *names[] = {"\xc3\xa9", "foo_bar", "foo", "a", "_", "B"};
	for (size_t i = 0; i < 6; i++)
		add(fg, 1, 2, "root", names[i]);
	char *t = frames_of(fg);
	assert_string_equal(t, "0 all 0 6 0 0\n"
			       "1 root 0 6 0 0\n"
			       "2 B 0 1 1 0\n"
			       "2 _ 0 1 1 1\n"
			       "2 a 0 1 1 2\n"
			       "2 foo 0 1 1 3\n"
			       "2 foo_bar 0 1 1 4\n"
			       "2 \xc3\xa9 0 1 1 5\n");
	free(t);
	/* adding after a write: more value for existing frames moves x */
	add(fg, 2, 2, "root", "B");
	t = frames_of(fg);
	assert_non_null(strstr(t, "2 B 0 3 3 0\n2 _ 0 1 1 3\n"));
	free(t);
	/* adding after a write re-sorts */
	add(fg, 1, 2, "root", "0");
	t = frames_of(fg);
	assert_non_null(strstr(t, "1 root 0 9 0 0\n2 0 0 1 1 0\n2 B 0 3 3 1\n"));
	free(t);
	pa_flame_free(fg);
}

static struct pa_flame *build(bool reverse)
{
	static const char *const lines[] = {
	    "prog;main;zeta;leaf 3",  "prog;main;alpha 7", "prog;main;alpha;x_[k] 2",
	    "other;start;run_[j] 5",  "prog;main;mid 1",   "other;start;inl_[i] 2",
	    "prog;main;zeta;leaf2 4", "prog;main;alpha 1",
	};
	struct pa_flame *fg = pa_flame_new();
	size_t n = sizeof(lines) / sizeof(lines[0]);
	for (size_t i = 0; i < n; i++)
		add_folded(fg, lines[reverse ? n - 1 - i : i]);
	return fg;
}

static void test_deterministic(void **state)
{
	(void)state;
	struct pa_flame *a = build(false), *b = build(true);
	struct pa_flame_opts o = {.sz = sizeof(o), .title = "t"};
	for (int fmt = PA_FLAME_SVG; fmt <= PA_FLAME_HTML; fmt++) {
		char *x = render(a, fmt, &o), *y = render(b, fmt, &o), *z = render(a, fmt, &o);
		assert_string_equal(x, y);
		assert_string_equal(x, z);
		free(x);
		free(y);
		free(z);
	}
	char *t = frames_of(a);
	assert_string_equal(t, "0 all 0 25 0 0\n"
			       "1 other 0 7 0 0\n"
			       "2 start 0 7 0 0\n"
			       "3 inl 3 2 2 0\n"
			       "3 run 2 5 5 2\n"
			       "1 prog 0 18 0 7\n"
			       "2 main 0 18 0 7\n"
			       "3 alpha 0 10 8 7\n"
			       "4 x 1 2 2 7\n"
			       "3 mid 0 1 1 17\n"
			       "3 zeta 0 7 0 18\n"
			       "4 leaf 0 3 3 18\n"
			       "4 leaf2 0 4 4 21\n");
	free(t);
	pa_flame_free(a);
	pa_flame_free(b);
}

/* ---- escaping ---- */

static void test_escape_svg(void **state)
{
	(void)state;
	struct pa_flame *fg = pa_flame_new();
	add(fg, 5, 3, "prog", "std::vector<int>::push_back", "operator<<");
	add(fg, 5, 3, "prog", "a&b\"c'd", "bad\xff\x01utf8]]>");
	struct pa_flame_opts o = {.sz = sizeof(o), .title = "<T&>"};
	char *svg = render(fg, PA_FLAME_SVG, &o);
	assert_non_null(
	    strstr(svg, "<title>std::vector&lt;int&gt;::push_back (5 samples, 50.00%)"));
	assert_non_null(strstr(svg, "<title>operator&lt;&lt; (5 samples, 50.00%)"));
	assert_non_null(strstr(svg, "<title>a&amp;b&quot;c&#39;d (5 samples"));
	/* invalid byte and control character: U+FFFD each */
	assert_non_null(strstr(svg, "bad\xef\xbf\xbd\xef\xbf\xbdutf8]]&gt;"));
	assert_non_null(strstr(svg, ">&lt;T&amp;&gt;</text>"));
	assert_null(strstr(svg, "<int>"));
	assert_null(strstr(svg, "operator<<"));
	assert_null(strstr(svg, "\xff"));
	/* the only CDATA end is the script's own */
	assert_int_equal(count(svg, "]]>"), 1);
	free(svg);
	pa_flame_free(fg);
}

static void test_escape_html(void **state)
{
	(void)state;
	struct pa_flame *fg = pa_flame_new();
	add(fg, 5, 3, "prog", "std::vector<int>::push_back", "operator<<");
	add(fg, 5, 2, "prog", "</script><script>alert(1)</script>\\\"\xe2\x80\xa8");
	struct pa_flame_opts o = {.sz = sizeof(o), .title = "</title><b>", .unit = "ns\""};
	char *html = render(fg, PA_FLAME_HTML, &o);
	assert_non_null(strstr(html, "\"std::vector\\u003cint\\u003e::push_back\""));
	assert_non_null(strstr(html, "\"operator\\u003c\\u003c\""));
	assert_non_null(strstr(html, "\"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"
				     "\\u003c/script\\u003e\\\\\\\"\\u2028\""));
	assert_non_null(strstr(html, "<title>&lt;/title&gt;&lt;b&gt;</title>"));
	assert_non_null(strstr(html, "\"unit\": \"ns\\\"\""));
	/* exactly the page's own script elements */
	assert_int_equal(count(html, "</script>"), 2);
	assert_int_equal(count(html, "<script>"), 2);
	assert_null(strstr(html, "<int>"));
	free(html);
	pa_flame_free(fg);
}

/* ---- the folded parser ---- */

static void test_folded_lines(void **state)
{
	(void)state;
	struct pa_flame *fg = pa_flame_new();
	add_folded(fg, "java;Interp;LFoo::bar_[j];inl_[i];sys_read_[k] 7\n");
	add_folded(fg, "java;Interp;LFoo::bar_[j] 3\r\n");
	add_folded(fg, "my prog;do stuff(int, char);x_[w]\t2");       /* spaces in names, tab */
	add_folded(fg, "my prog;do stuff(int, char);x_[w]   1   \n"); /* several blanks */
	add_folded(fg, "");
	add_folded(fg, "   \n");
	add_folded(fg, "zero;count 0");
	add_folded(fg, " 4");       /* no frames: the root only */
	add_folded(fg, "k;_[k] 1"); /* a name that is only the suffix */
	char *t = frames_of(fg);
	assert_string_equal(t, "0 all 0 18 4 0\n"
			       "1 java 0 10 0 0\n"
			       "2 Interp 0 10 0 0\n"
			       "3 LFoo::bar 2 10 3 0\n"
			       "4 inl 3 7 0 0\n"
			       "5 sys_read 1 7 7 0\n"
			       "1 k 0 1 0 10\n"
			       "2  1 1 1 10\n"
			       "1 my prog 0 3 0 11\n"
			       "2 do stuff(int, char) 0 3 0 11\n"
			       "3 x_[w] 0 3 3 11\n");
	free(t);
	pa_flame_free(fg);
}

static void test_folded_errors(void **state)
{
	(void)state;
	static const struct {
		const char *line, *msg;
	} bad[] = {
	    {"a;b;c", "no count"},       {"12", "no count"},
	    {"a;b 1.5", "whole number"}, {"a;b 12x", "whole number"},
	    {"a;b -3", "whole number"},  {"a;b 99999999999999999999", "too large"},
	};
	struct pa_flame *fg = pa_flame_new();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pa_err err = {0};
		assert_int_not_equal(
		    pa_flame_add_folded(fg, bad[i].line, strlen(bad[i].line), &err), 0);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("'%s': got '%s'", bad[i].line, err.msg);
	}
	assert_int_equal(pa_flame_total(fg), 0);
	/* the total may not overflow; the graph stays as it was */
	add_folded(fg, "a 18446744073709551615");
	struct pa_err err = {0};
	assert_int_equal(pa_flame_add_folded(fg, "b 1", 3, &err), -PA_ERR_LIMIT);
	assert_int_equal(pa_flame_total(fg), UINT64_MAX);
	char *t = frames_of(fg);
	assert_string_equal(t, "0 all 0 18446744073709551615 0 0\n1 a 0 18446744073709551615 "
			       "18446744073709551615 0\n");
	free(t);
	pa_flame_free(fg);
}

static void test_folded_stream(void **state)
{
	(void)state;
	static const char text[] = "a;b 1\n\na;c 2\na;d\n";
	FILE *in = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct pa_flame *fg = pa_flame_new();
	struct pa_err err = {0};
	assert_int_equal(pa_flame_read_folded(fg, in, &err), -PA_ERR_FORMAT);
	fclose(in);
	assert_true(err.has_offset);
	assert_int_equal(err.offset, 13); /* where "a;d" starts */
	assert_non_null(strstr(err.msg, "line 4:"));
	pa_flame_free(fg);

	static const char good[] = "x;y 1\nx;z 2";
	in = fmemopen((void *)good, sizeof(good) - 1, "r");
	fg = pa_flame_new();
	assert_int_equal(pa_flame_read_folded(fg, in, &err), 0);
	fclose(in);
	assert_int_equal(pa_flame_total(fg), 3);
	pa_flame_free(fg);

	static const char bin[] = "PERF\0ILE2";
	in = fmemopen((void *)bin, sizeof(bin) - 1, "r");
	fg = pa_flame_new();
	assert_int_equal(pa_flame_read_folded(fg, in, &err), -PA_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "binary"));
	fclose(in);
	pa_flame_free(fg);
}

/* ---- arguments, options, limits ---- */

static void test_bad_arguments(void **state)
{
	(void)state;
	struct pa_flame *fg = pa_flame_new();
	const char *frames[] = {"a", NULL};
	uint8_t kinds[] = {9};
	assert_int_equal(pa_flame_add_stack(fg, frames, kinds, 1, 1), -EINVAL);
	assert_int_equal(pa_flame_add_stack(fg, frames, NULL, 2, 1), -EINVAL);
	assert_int_equal(pa_flame_add_stack(fg, NULL, NULL, 1, 1), -EINVAL);
	assert_int_equal(pa_flame_add_stack(fg, frames, NULL, 1, 0), 0); /* nothing */
	assert_int_equal(pa_flame_total(fg), 0);
	assert_int_equal(pa_flame_frame_count(fg), 1);

	assert_int_equal(pa_flame_format_from_path("x/out.SVG"), PA_FLAME_SVG);
	assert_int_equal(pa_flame_format_from_path("out.htm"), PA_FLAME_HTML);
	assert_int_equal(pa_flame_format_from_path("out.html"), PA_FLAME_HTML);
	assert_int_equal(pa_flame_format_from_path("a.svg/out"), PA_FLAME_FMT_NONE);
	assert_int_equal(pa_flame_format_from_path("out"), PA_FLAME_FMT_NONE);
	enum pa_flame_palette pal;
	assert_int_equal(pa_flame_palette_from_name("io", &pal), 0);
	assert_int_equal(pal, PA_FLAME_PAL_IO);
	assert_int_equal(pa_flame_palette_from_name("rainbow", &pal), -EINVAL);

	/* options: a larger struct with an unknown field set is refused */
	struct {
		struct pa_flame_opts o;
		uint64_t future;
	} big = {.o = {.sz = sizeof(big)}, .future = 1};
	struct pa_err err = {0};
	FILE *f = fopen("/dev/null", "w");
	assert_int_not_equal(pa_flame_write(fg, f, PA_FLAME_SVG, &big.o, &err), 0);
	big.future = 0;
	assert_int_equal(pa_flame_write(fg, f, PA_FLAME_SVG, &big.o, &err), 0);
	struct pa_flame_opts o = {.sz = sizeof(o), .minwidth = 101};
	assert_int_not_equal(pa_flame_write(fg, f, PA_FLAME_HTML, &o, &err), 0);
	o = (struct pa_flame_opts){.sz = sizeof(o), .width = 20};
	assert_int_not_equal(pa_flame_write(fg, f, PA_FLAME_SVG, &o, &err), 0);
	assert_int_not_equal(pa_flame_write(fg, f, PA_FLAME_FMT_NONE, NULL, &err), 0);
	fclose(f);
	pa_flame_free(fg);
}

static void test_empty(void **state)
{
	(void)state;
	struct pa_flame *fg = pa_flame_new();
	char *svg = render(fg, PA_FLAME_SVG, NULL), *html = render(fg, PA_FLAME_HTML, NULL);
	assert_non_null(strstr(svg, "No samples"));
	assert_int_equal(count(svg, "<g data-x"), 0);
	assert_non_null(strstr(html, "\"frames\": []"));
	free(svg);
	free(html);
	pa_flame_free(fg);
}

static void test_minwidth(void **state)
{
	(void)state;
	struct pa_flame *fg = pa_flame_new();
	add(fg, 990, 2, "big", "bigchild");
	add(fg, 10, 3, "small", "smallchild", "smallgrandchild");
	struct pa_flame_opts o = {.sz = sizeof(o), .minwidth = 5};
	char *html = render(fg, PA_FLAME_HTML, &o), *svg = render(fg, PA_FLAME_SVG, &o);
	assert_non_null(strstr(html, "\"bigchild\""));
	assert_null(strstr(html, "small"));
	assert_null(strstr(svg, "small"));
	free(html);
	free(svg);
	/* defaults: HTML keeps everything, SVG drops under 0.1 pixel */
	add(fg, 1, 2, "tiny", "tinychild"); /* 1/1001 of 1180 pixels: kept */
	html = render(fg, PA_FLAME_HTML, NULL);
	svg = render(fg, PA_FLAME_SVG, NULL);
	assert_non_null(strstr(html, "smallgrandchild"));
	assert_non_null(strstr(svg, "tinychild"));
	free(html);
	free(svg);
	struct pa_flame *g2 = pa_flame_new();
	add(g2, 1000000, 1, "huge");
	add(g2, 1, 1, "speck");
	svg = render(g2, PA_FLAME_SVG, NULL);
	html = render(g2, PA_FLAME_HTML, NULL);
	assert_null(strstr(svg, "speck"));
	assert_non_null(strstr(html, "speck"));
	free(svg);
	free(html);
	pa_flame_free(g2);
	pa_flame_free(fg);
}

/* Deep and wide trees: no recursion, no quadratic sibling handling. */
static void test_deep_and_wide(void **state)
{
	(void)state;
	enum { DEEP = 200000, WIDE = 200000 };
	struct pa_flame *fg = pa_flame_new();
	const char **frames = malloc(DEEP * sizeof(*frames));
	char(*names)[16] = malloc(WIDE * sizeof(*names));
	for (size_t i = 0; i < DEEP; i++)
		frames[i] = "f";
	assert_int_equal(pa_flame_add_stack(fg, frames, NULL, DEEP, 1), 0);
	for (size_t i = 0; i < WIDE; i++) {
		snprintf(names[i], sizeof(names[i]), "w%07zu", (i * 7919) % WIDE);
		const char *st[] = {"wide", names[i]};
		assert_int_equal(pa_flame_add_stack(fg, st, NULL, 2, 1), 0);
	}
	assert_int_equal(pa_flame_frame_count(fg), 1 + DEEP + 1 + WIDE);
	char *html = render(fg, PA_FLAME_HTML, NULL);
	/* siblings in order: the first and the last of the wide ones */
	char *first = strstr(html, "\"w0000000\""), *last = strstr(html, "\"w0199999\"");
	assert_non_null(first);
	assert_non_null(last);
	assert_true(first < last);
	assert_non_null(strstr(html, "200000,1,0,0,1")); /* the deepest frame */
	free(html);
	free(frames);
	free(names);
	pa_flame_free(fg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_merge),         cmocka_unit_test(test_merge_paths_and_kinds),
	    cmocka_unit_test(test_order_bytes),   cmocka_unit_test(test_deterministic),
	    cmocka_unit_test(test_escape_svg),    cmocka_unit_test(test_escape_html),
	    cmocka_unit_test(test_folded_lines),  cmocka_unit_test(test_folded_errors),
	    cmocka_unit_test(test_folded_stream), cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_empty),         cmocka_unit_test(test_minwidth),
	    cmocka_unit_test(test_deep_and_wide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
