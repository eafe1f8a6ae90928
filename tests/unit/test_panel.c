/*
 * test_panel: the viewer's generic list panel (src/ui/panel.c) without a
 * terminal: rows laid out as cells, the selection kept by key across
 * refreshes, sorts and filters, tree rows sorted among their siblings and
 * folded, pager scrolling and find, columns dropped when narrow, figures
 * never cut.
 */
#include "testutil.h"

#include "ui/panel.h"
#include "ui/textview.h"
#include "ui/reaction.h"

/* A view: rows with a name, a value and a depth, in the view's order. */
struct rows {
	const char *name[16];
	int value[16];
	unsigned depth[16];
	size_t n;
};

static size_t r_count(void *ctx, int width)
{
	(void)width;
	return ((struct rows *)ctx)->n;
}
static void r_key(void *ctx, size_t i, char *buf, size_t n)
{
	snprintf(buf, n, "%s", ((struct rows *)ctx)->name[i]);
}
static void r_name(void *ctx, size_t i, char *buf, size_t n)
{
	snprintf(buf, n, "%s", ((struct rows *)ctx)->name[i]);
}
static void r_value(void *ctx, size_t i, char *buf, size_t n)
{
	snprintf(buf, n, "%d", ((struct rows *)ctx)->value[i]);
}
static int r_cmp_value(void *ctx, size_t a, size_t b)
{
	const struct rows *r = ctx;

	return r->value[b] - r->value[a]; /* bigger first */
}
static unsigned r_depth(void *ctx, size_t i)
{
	return ((struct rows *)ctx)->depth[i];
}

static const struct panel_column cols[] = {
	{ "NAME", 0, 0, 0, r_name, NULL, NULL, NULL },
	{ "VALUE", 6, 1, 0, r_value, NULL, r_cmp_value, NULL },
	{ "EXTRA", 10, 0, 1, r_value, NULL, NULL, NULL },
};
static const struct panel_ops flat_ops = { r_count, r_key, NULL, NULL, NULL, NULL };
static const struct panel_ops tree_ops = { r_count, r_key, NULL, NULL, r_depth, NULL };

/* The rendered screen: h rows of text. */
static char screen[40][256];

static void emit(void *arg, int i, const struct cellrow *r)
{
	(void)arg;
	cellrow_text(r, screen[i], sizeof(screen[i]));
}

/* The name column of every shown row, joined with ','. */
static const char *shown(struct panel *p, struct rows *r)
{
	static char buf[512];
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < p->norder; i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", i ? "," : "",
				      r->name[p->order[i]]);
	return buf;
}

static const char *selected(struct panel *p, struct rows *r)
{
	long s = panel_selected(p);

	return s < 0 ? "(none)" : r->name[s];
}

static void test_selection_follows_key(void **state)
{
	struct rows r = { { "a", "b", "c", "d", "e" }, { 1, 5, 3, 4, 2 }, { 0 }, 5 };
	struct panel p;

	(void)state;
	panel_init(&p, &flat_ops, &r, cols, 3);
	p.header = 1;
	panel_render(&p, 6, 40, emit, NULL);
	assert_string_equal(shown(&p, &r), "a,b,c,d,e");
	assert_non_null(strstr(screen[0], "NAME"));
	assert_non_null(strstr(screen[0], "VALUE"));
	assert_int_equal(panel_act(&p, ACT_DOWN), UI_REDRAW);
	panel_act(&p, ACT_DOWN);
	assert_string_equal(selected(&p, &r), "c");
	/* Sorting by VALUE moves c from the third place to the third... and
	 * keeps it selected wherever it lands. */
	assert_int_equal(panel_act(&p, ACT_SORT_NEXT), UI_REDRAW);
	assert_int_equal(p.sort, 1);
	panel_render(&p, 6, 40, emit, NULL);
	assert_string_equal(shown(&p, &r), "b,d,c,e,a");
	assert_non_null(strstr(screen[0], "VALUEv"));
	assert_string_equal(selected(&p, &r), "c");
	/* New data, c now first: still c (by key, not by index). */
	r.value[2] = 9;
	panel_render(&p, 6, 40, emit, NULL);
	assert_string_equal(shown(&p, &r), "c,b,d,e,a");
	assert_string_equal(selected(&p, &r), "c");
	assert_int_equal(p.sel, 0);
	/* c gone: the selection stays at its position. */
	r.name[2] = "x";
	r.value[2] = 0;
	panel_render(&p, 6, 40, emit, NULL);
	assert_string_equal(shown(&p, &r), "b,d,e,a,x");
	assert_string_equal(selected(&p, &r), "b");
	/* The selected row is drawn as selected, and the view's order
	 * returns when sorting goes round. */
	panel_act(&p, ACT_END);
	assert_string_equal(selected(&p, &r), "x");
	panel_fini(&p);
}

static void test_filter_and_find(void **state)
{
	struct rows r = { { "alpha", "beta", "gamma", "delta", "alphabet" }, { 1, 2, 3, 4, 5 },
			  { 0 }, 5 };
	struct panel p;

	(void)state;
	panel_init(&p, &flat_ops, &r, cols, 3);
	panel_render(&p, 5, 40, emit, NULL);
	panel_act(&p, ACT_END);
	assert_string_equal(selected(&p, &r), "alphabet");
	panel_set_filter(&p, "ALPHA");
	assert_string_equal(shown(&p, &r), "alpha,alphabet");
	assert_string_equal(selected(&p, &r), "alphabet");
	/* The filter matches any column's text: "4" is delta's value. */
	panel_set_filter(&p, "4");
	assert_string_equal(shown(&p, &r), "delta");
	panel_set_filter(&p, "");
	assert_string_equal(shown(&p, &r), "alpha,beta,gamma,delta,alphabet");
	assert_string_equal(selected(&p, &r), "delta");
	assert_int_equal(panel_find(&p, "et", 1), 0);
	assert_string_equal(selected(&p, &r), "alphabet");
	assert_int_equal(panel_find(&p, "et", 1), 0); /* wraps to beta */
	assert_string_equal(selected(&p, &r), "beta");
	assert_int_equal(panel_find(&p, "nothing", 1), -1);
	assert_string_equal(selected(&p, &r), "beta");
	panel_fini(&p);
}

static void test_tree_sort_and_fold(void **state)
{
	/* Two programs; the small one first in the view's order. */
	struct rows r = { { "small", "s1", "s2", "big", "bcat", "b1", "b2", "b3" },
			  { 2, 1, 1, 90, 90, 10, 50, 30 },
			  { 0, 1, 1, 0, 1, 2, 2, 2 },
			  8 };
	struct panel p;

	(void)state;
	panel_init(&p, &tree_ops, &r, cols, 2);
	p.tree_col = 0;
	panel_render(&p, 10, 40, emit, NULL);
	assert_string_equal(shown(&p, &r), "small,s1,s2,big,bcat,b1,b2,b3");
	assert_non_null(strstr(screen[5], "    b1"));
	/* Sorted by VALUE: groups sort like rows, subtrees stay under them. */
	panel_act(&p, ACT_SORT_NEXT);
	panel_render(&p, 10, 40, emit, NULL);
	assert_string_equal(shown(&p, &r), "big,bcat,b2,b3,b1,small,s1,s2");
	assert_non_null(strstr(screen[0], "- big"));
	/* Fold big: its subtree hides, the fold is remembered by key. */
	panel_act(&p, ACT_HOME);
	assert_int_equal(panel_toggle_fold(&p), 0);
	assert_string_equal(shown(&p, &r), "big,small,s1,s2");
	panel_render(&p, 10, 40, emit, NULL);
	assert_non_null(strstr(screen[0], "+ big"));
	assert_true(panel_folded(&p, "big"));
	panel_act(&p, ACT_DOWN);
	assert_string_equal(selected(&p, &r), "small");
	assert_int_equal(panel_act(&p, ACT_DOWN), UI_REDRAW);
	assert_string_equal(selected(&p, &r), "s1");
	assert_int_equal(panel_toggle_fold(&p), -1); /* a leaf */
	/* A filter shows matching rows with their ancestors, folded or not. */
	panel_set_filter(&p, "b3");
	assert_string_equal(shown(&p, &r), "big,bcat,b3");
	panel_set_filter(&p, "");
	assert_string_equal(shown(&p, &r), "big,small,s1,s2");
	panel_fini(&p);
}

static void test_pager(void **state)
{
	struct rows r = { { "l0", "l1", "l2", "l3", "l4", "l5", "l6", "l7", "l8", "l9" },
			  { 0 }, { 0 }, 10 };
	struct panel p;

	(void)state;
	panel_init(&p, &flat_ops, &r, cols, 1);
	p.pager = 1;
	panel_render(&p, 4, 20, emit, NULL);
	assert_int_equal(panel_selected(&p), -1);
	assert_string_equal(screen[0], " l0                 ");
	panel_act(&p, ACT_DOWN);
	panel_render(&p, 4, 20, emit, NULL);
	assert_string_equal(screen[0], " l1                 ");
	panel_act(&p, ACT_END);
	panel_render(&p, 4, 20, emit, NULL);
	assert_int_equal(p.top, 6);
	assert_string_equal(screen[3], " l9                 ");
	panel_act(&p, ACT_PAGE_DOWN); /* already at the end: stays */
	assert_int_equal(p.top, 6);
	panel_act(&p, ACT_HOME);
	assert_int_equal(p.top, 0);
	assert_int_equal(panel_find(&p, "l5", 1), 0);
	assert_int_equal(p.top, 5);
	panel_fini(&p);
}

/* Find on a pager's last page: the draw keeps the page whole (top 6 for a
 * match on l7), and the next find goes on from the match, not the top
 * (which found l7 again, for ever), then wraps. */
static void test_pager_find_last_page(void **state)
{
	struct rows r = { { "l0", "l1x", "l2", "l3", "l4", "l5", "l6", "l7x", "l8x", "l9" },
			  { 0 }, { 0 }, 10 };
	struct panel p;

	(void)state;
	panel_init(&p, &flat_ops, &r, cols, 1);
	p.pager = 1;
	panel_render(&p, 4, 20, emit, NULL);
	assert_int_equal(panel_find(&p, "x", 1), 0);
	assert_int_equal(p.top, 1);
	assert_int_equal(panel_find(&p, "x", 1), 0);
	assert_int_equal(p.top, 7);
	panel_render(&p, 4, 20, emit, NULL);
	assert_int_equal(p.top, 6); /* the last page, whole */
	assert_int_equal(panel_find(&p, "x", 1), 0);
	assert_int_equal(p.top, 8);
	panel_render(&p, 4, 20, emit, NULL);
	assert_int_equal(panel_find(&p, "x", 1), 0);
	assert_int_equal(p.top, 1); /* wrapped */
	panel_fini(&p);
}

static void test_narrow(void **state)
{
	struct rows r = { { "a_very_long_name_that_will_not_fit/12345" }, { 7 }, { 0 }, 1 };
	struct panel p;

	(void)state;
	panel_init(&p, &flat_ops, &r, cols, 3);
	p.header = 1;
	/* Wide: all three columns. */
	panel_render(&p, 2, 60, emit, NULL);
	assert_non_null(strstr(screen[0], "EXTRA"));
	/* 24 columns: EXTRA (droppable) goes, the name is shortened in the
	 * middle and keeps its tail. */
	panel_render(&p, 2, 24, emit, NULL);
	assert_null(strstr(screen[0], "EXTRA"));
	assert_non_null(strstr(screen[0], "VALUE"));
	assert_non_null(strstr(screen[1], "~"));
	assert_non_null(strstr(screen[1], "/12345"));
	assert_non_null(strstr(screen[1], "     7"));
	assert_int_equal((int)strlen(screen[1]), 24);
	panel_fini(&p);
}

/* A figure too wide for its column shows "#" across it, never cut in the
 * middle ("12~890" would read as another number). */
static void test_figure_never_cut(void **state)
{
	struct rows r = { { "a_very_long_name_that_will_not_fit/12345" }, { 1234567890 }, { 0 },
			  1 };
	struct panel p;

	(void)state;
	panel_init(&p, &flat_ops, &r, cols, 3);
	panel_render(&p, 1, 60, emit, NULL);
	assert_non_null(strstr(screen[0], "######"));
	assert_null(strstr(screen[0], "~890"));
	/* EXTRA, ten wide, holds the same figure whole. */
	assert_non_null(strstr(screen[0], "###### 1234567890"));
	r.value[0] = 123456;
	panel_render(&p, 1, 60, emit, NULL);
	assert_non_null(strstr(screen[0], "123456"));
	assert_null(strstr(screen[0], "#"));
	panel_fini(&p);
}

/* Row r of tv's text at its last width, into b. */
static const char *tv_row_text(const struct textview *tv, size_t r, char *b, size_t n)
{
	const struct tv_row *w = &tv->rows[r];

	snprintf(b, n, "%.*s", (int)w->len, tv->lines[w->line].text + w->off);
	return b;
}

/* The details pane's wrap: at a space, else after a '/', ',' or the end
 * of a "::" in the row's second half (an op's scopes, a C++ name), else
 * where the row is full; a figure keeps its unit. */
static void test_textview_wrap(void **state)
{
	struct textview tv;
	char b[128];

	(void)state;
	memset(&tv, 0, sizeof(tv));
	textview_add(&tv, 0, 0, 2, "%s", "replica_4/bert_span_labeler/transformer/layer_17/dropout_1");
	assert_int_equal(textview_rows(&tv, 40), 2);
	assert_string_equal(tv_row_text(&tv, 0, b, sizeof(b)),
			    "replica_4/bert_span_labeler/transformer/");
	assert_string_equal(tv_row_text(&tv, 1, b, sizeof(b)), "layer_17/dropout_1");
	textview_clear(&tv);
	textview_add(&tv, 0, 0, 0, "%s", "void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator");
	assert_int_equal(textview_rows(&tv, 40), 2);
	assert_string_equal(tv_row_text(&tv, 0, b, sizeof(b)), "void Eigen::internal::");
	textview_clear(&tv);
	textview_add(&tv, 0, 0, 0, "%s", "void Eigen::internal::Eigen<Eigen::TensorEvaluator<Eigen::half");
	assert_int_equal(textview_rows(&tv, 40), 2);
	assert_string_equal(tv_row_text(&tv, 0, b, sizeof(b)), "void Eigen::internal::Eigen<Eigen::");
	/* A space in the second half wins; a figure keeps its unit. */
	textview_clear(&tv);
	textview_add(&tv, 0, 0, 0, "%s", "the step took a/b/c 189.17 ms in all");
	assert_int_equal(textview_rows(&tv, 26), 2);
	assert_string_equal(tv_row_text(&tv, 0, b, sizeof(b)), "the step took a/b/c");
	/* Nowhere to break: the row is full. */
	textview_clear(&tv);
	textview_add(&tv, 0, 0, 0, "%s", "abcdefghijklmnopqrstuvwxyz");
	assert_int_equal(textview_rows(&tv, 10), 3);
	assert_string_equal(tv_row_text(&tv, 0, b, sizeof(b)), "abcdefghij");
	textview_fini(&tv);
}

/* One textview serves help, messages and i: a new text's find starts from
 * its top, not from the row the last text's find went to. */
static void test_textview_find_anew(void **state)
{
	struct textview tv;
	struct panel *p;
	int k;

	(void)state;
	memset(&tv, 0, sizeof(tv));
	for (k = 0; k < 2; k++) {
		textview_clear(&tv);
		textview_add(&tv, 0, 0, 0, "%s", "keys");
		textview_add(&tv, 0, 0, 0, "%s", "Tab next view");
		textview_add(&tv, 0, 0, 0, "%s", "S-Tab previous view");
		textview_rows(&tv, 40);
		p = textview_panel(&tv);
		panel_refresh(p, 40);
		p->height = 20;
		assert_int_equal(panel_find(p, "Tab", 1), 0);
		assert_int_equal(p->top, 1);
	}
	textview_fini(&tv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_selection_follows_key),
		TU_TEST(test_filter_and_find),
		TU_TEST(test_tree_sort_and_fold),
		TU_TEST(test_pager),
		TU_TEST(test_pager_find_last_page),
		TU_TEST(test_textview_find_anew),
		TU_TEST(test_narrow),
		TU_TEST(test_figure_never_cut),
		TU_TEST(test_textview_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
