/*
 * test_format: text the viewer shows, formatted without a terminal. Time
 * (util/timefmt.c): exact fixed-unit times, the unit and decimals for a
 * step, and ruler ticks whose labels differ, never overlap and never run off
 * the ruler, at every zoom and position (the ruler once read "9.72 s │9.72 s
 * │9.72 s"). Names (util/utf8.c): columns and middle elision that keeps the
 * distinguishing tail. The JSON writer's buffer (util/strbuf.c): numbers
 * without printf, and text written out through a sink in pieces. Figures
 * that fit their columns: a cut one ("5..200", "20..4 KiB") reads as
 * another number.
 */
#include "testutil.h"

#include <inttypes.h>
#include <math.h>

#include "cli/texttab.h"
#include "model/op_columns.h"
#include "util/strbuf.h"
#include "util/timefmt.h"
#include "util/utf8.h"

static void test_fmt_ps_unit(void **state)
{
	char b[64];

	(void)state;
	assert_string_equal(fmt_ps_unit(b, sizeof(b), 22550200000000LL, XT_PS_S, 4), "22.5502 s");
	assert_string_equal(fmt_ps_unit(b, sizeof(b), 22550200000013LL, XT_PS_S, 12),
			    "22.550200000013 s");
	assert_string_equal(fmt_ps_unit(b, sizeof(b), -1500, XT_PS_NS, 1), "-1.5 ns");
	assert_string_equal(fmt_ps_unit(b, sizeof(b), 1005, XT_PS_NS, 3), "1.005 ns");
	assert_string_equal(fmt_ps_unit(b, sizeof(b), 7, 1, 0), "7 ps");
	assert_string_equal(fmt_ps_unit(b, sizeof(b), 3000000, XT_PS_US, 0), "3 us");
	/* Truncates, never rounds up into another tick's value. */
	assert_string_equal(fmt_ps_unit(b, sizeof(b), 1999999, XT_PS_US, 2), "1.99 us");
	/* Exact to the ns in its own unit (the details pane's durations). */
	assert_string_equal(fmt_ps_exact(b, sizeof(b), 1196759000LL), "1.196759 ms");
	assert_string_equal(fmt_ps_exact(b, sizeof(b), 2970000LL), "2.970 us");
	assert_string_equal(fmt_ps_exact(b, sizeof(b), 750), "750 ps");
	assert_string_equal(fmt_ps_exact(b, sizeof(b), -38586000LL), "-38.586 us");
}

static void test_unit(void **state)
{
	int64_t u;
	int d;

	(void)state;
	timefmt_unit(22550000000000LL, 100000000LL, &u, &d); /* 22.55 s, 100 us steps */
	assert_int_equal(u, XT_PS_S);
	assert_int_equal(d, 4);
	timefmt_unit(5000000, 500000, &u, &d); /* 5 us, 0.5 us steps */
	assert_int_equal(u, XT_PS_US);
	assert_int_equal(d, 1);
	timefmt_unit(900, 100, &u, &d);
	assert_int_equal(u, 1);
	assert_int_equal(d, 0);
}

/* A column of times that three digits show alike side by side gets the
 * decimals that tell neighbours apart, within its width; one they already
 * tell apart keeps fmt_ps. */
static void test_apart(void **state)
{
	static const int64_t conv[] = { 1635860000000LL, 1639550000000LL, 1643210000000LL,
					1646900000000LL, 1650600000000LL };
	static const int64_t far[] = { 1200000000000LL, 2400000000000LL, 3600000000000LL };
	static const int64_t same[] = { 5, 5, 5 };
	int64_t u, v[2];
	int d, i;
	char b[2][48];

	(void)state;
	timefmt_apart(conv, 5, 9, &u, &d);
	assert_int_equal(u, XT_PS_S);
	assert_int_equal(d, 3);
	for (i = 1; i < 5; i++)
		assert_string_not_equal(fmt_ps_unit(b[0], sizeof(b[0]), conv[i - 1], u, d),
					fmt_ps_unit(b[1], sizeof(b[1]), conv[i], u, d));
	assert_string_equal(fmt_ps_unit(b[0], sizeof(b[0]), conv[1], u, d), "1.639 s");
	/* 2 us apart at 22 s: 22.550002 s is 11 columns; in 9, 4 decimals */
	v[0] = 22550000000000LL;
	v[1] = v[0] + 2000000;
	timefmt_apart(v, 2, 9, &u, &d);
	assert_int_equal(u, XT_PS_S);
	assert_int_equal(d, 4);
	timefmt_apart(far, 3, 9, &u, &d);
	assert_int_equal(u, 0);
	timefmt_apart(same, 3, 9, &u, &d);
	assert_int_equal(u, 0);
	timefmt_apart(NULL, 0, 9, &u, &d);
	assert_int_equal(u, 0);
}

/* Checks one ruler: labels distinct, columns increasing with room for
 * each label, all inside [0, w). */
static void check_ruler(int64_t t0, int64_t t1, int w)
{
	struct timefmt_tick tk[64];
	size_t n = timefmt_ticks(t0, t1, w, tk, 64), i, j;

	if (w >= 58 && n < 2)
		fail_msg("[%lld, %lld) w %d: %zu ticks", (long long)t0, (long long)t1, w, n);
	for (i = 0; i < n; i++) {
		int len = (int)strlen(tk[i].label);

		assert_true(tk[i].x >= 0);
		assert_true(tk[i].x + 1 + len <= w);
		if (i + 1 < n && tk[i + 1].x < tk[i].x + len + 2)
			fail_msg("[%lld, %lld) w %d: '%s' at %d runs into '%s' at %d", (long long)t0,
				 (long long)t1, w, tk[i].label, tk[i].x, tk[i + 1].label, tk[i + 1].x);
		for (j = 0; j < i; j++)
			if (!strcmp(tk[i].label, tk[j].label))
				fail_msg("[%lld, %lld) w %d: two ticks read '%s'", (long long)t0,
					 (long long)t1, w, tk[i].label);
	}
}

static void test_ticks_every_zoom(void **state)
{
	static const int64_t at[] = { 0, 9720000000000LL, 22546499975450LL, 490469870000LL,
				      -3000000 };
	static const int widths[] = { 20, 40, 58, 98, 152, 178 };
	size_t p, k;
	int64_t span;

	(void)state;
	for (p = 0; p < sizeof(at) / sizeof(at[0]); p++)
		for (span = 98150000000000LL; span >= 10; span /= 2)
			for (k = 0; k < sizeof(widths) / sizeof(widths[0]); k++)
				check_ruler(at[p], at[p] + span, widths[k]);
}

static void test_ticks_deep_zoom_uses_offsets(void **state)
{
	struct timefmt_tick tk[64];
	size_t n;

	(void)state;
	/* 50 ps at 22.5502 s on 178 columns: a full time, then offsets. */
	n = timefmt_ticks(22550200000000LL, 22550200000050LL, 178, tk, 64);
	assert_true(n >= 3);
	assert_string_equal(tk[0].label, "22.550200000000 s");
	assert_true(tk[1].label[0] == '+');
	assert_non_null(strstr(tk[1].label, " ps"));
	/* The TPU profile zoomed to 3.68 ms: full times in ms steps. */
	n = timefmt_ticks(22544000000000LL, 22547680000000LL, 58, tk, 64);
	assert_true(n >= 3);
	assert_string_equal(tk[0].label, "22.544 s");
	assert_string_equal(tk[1].label, "22.545 s");
}

/* A figure, or '-' where it is not known (never 0). */
static void test_fmt_known(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(fmt_ps_known(b, sizeof(b), 1500000, 1), "1.50 us");
	assert_string_equal(fmt_ps_known(b, sizeof(b), 0, 0), "-");
	assert_string_equal(fmt_percent(b, sizeof(b), 12.34), "12.3%");
	assert_string_equal(fmt_percent(b, sizeof(b), NAN), "-");
}

static void test_utf8_elide(void **state)
{
	char b[64];

	(void)state;
	assert_int_equal(utf8_width("a\u2026b"), 3);
	assert_int_equal(utf8_width("\xff\xfe"), 2); /* broken bytes: one column each */
	/* A word inside a longer text, by its bytes: "ab\u00e9" is 4 bytes, 3 columns. */
	assert_int_equal(utf8_width_n("ab\u00e9 cd", 4), 3);
	assert_int_equal(utf8_width_n("ab\u00e9 cd", 100), 6); /* stops at the end */
	assert_int_equal(utf8_width_n("ab", 0), 0);
	/* A name that fits its columns but not the buffer is cut between
	 * characters: "a\u00e9\u00e9" in 4 bytes is "a\u00e9", in 3 bytes "a". */
	{
		char o[8];

		assert_string_equal(utf8_elide(o, 4, "a\u00e9\u00e9", 10, "~"), "a\u00e9");
		assert_string_equal(utf8_elide(o, 3, "a\u00e9\u00e9", 10, "~"), "a");
	}
	assert_string_equal(utf8_elide(b, sizeof(b), "short", 10, "~"), "short");
	/* A third head, two thirds tail: thread ids stay readable. */
	assert_string_equal(utf8_elide(b, sizeof(b), "switchto-default-SDomainT/3118839", 19, "~"),
			    "switch~ainT/3118839");
	assert_string_equal(utf8_elide(b, sizeof(b), "switchto-default-SDomainT/3118840", 19,
				       "\u2026"),
			    "switch\u2026ainT/3118840");
	assert_int_equal(utf8_width(b), 19);
	/* Multi-byte characters are never cut. */
	utf8_elide(b, sizeof(b), "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9", 5, "~");
	assert_int_equal(utf8_width(b), 5);
	assert_string_equal(b, "\u00e9~\u00e9\u00e9\u00e9");
	assert_string_equal(utf8_elide(b, sizeof(b), "abcdef", 1, "~"), "~");
	assert_string_equal(utf8_elide(b, sizeof(b), "abcdef", 0, "~"), "");
	/* A small buffer: shorter, still whole characters. */
	utf8_elide(b, 8, "abcdefghijklmnop", 12, "\u2026");
	assert_true(strlen(b) < 8);
}

/* strbuf_add_i64 prints what printf does, INT64_MIN included. */
static void test_strbuf_i64(void **state)
{
	static const int64_t v[] = { 0, 1, -1, 9, 10, -10, 1234567890123LL, INT64_MAX, INT64_MIN };
	struct strbuf sb;
	char want[64];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		strbuf_init(&sb);
		strbuf_puts(&sb, "x=");
		strbuf_add_i64(&sb, v[i]);
		snprintf(want, sizeof(want), "x=%" PRId64, v[i]);
		assert_string_equal(sb.buf, want);
		assert_int_equal(sb.len, strlen(want));
		strbuf_fini(&sb);
		/* and into a buffer of STRBUF_I64_MAX bytes */
		{
			char b[STRBUF_I64_MAX];

			assert_int_equal(strbuf_fmt_i64(b, v[i]), strlen(want) - 2);
			assert_string_equal(b, want + 2);
		}
	}
	/* Digits go two at a time: every length, each side of every power
	 * of ten, both signs, and a literal key before each. */
	{
		uint64_t p10 = 1;
		int d, k;

		strbuf_init(&sb);
		for (d = 0; d < 19; d++, p10 *= 10)
			for (k = -1; k <= 1; k++) {
				int64_t x = (int64_t)(p10 + (uint64_t)k);

				strbuf_reset(&sb);
				strbuf_lit(&sb, ",\"k\":");
				strbuf_add_i64(&sb, x);
				strbuf_add_i64(&sb, -x);
				snprintf(want, sizeof(want), ",\"k\":%" PRId64 "%" PRId64, x, -x);
				assert_string_equal(sb.buf, want);
				assert_int_equal(sb.len, strlen(want));
			}
		strbuf_fini(&sb);
	}
}

/* Through a sink, the text comes out whole and in order however it was
 * added (pieces larger than the buffer too), and the buffer stays small. */
static void test_strbuf_sink(void **state)
{
	struct strbuf sb, want;
	FILE *f = tmpfile();
	char *got;
	size_t i, n;

	(void)state;
	assert_non_null(f);
	strbuf_init(&sb);
	strbuf_init(&want);
	strbuf_set_sink(&sb, f);
	for (i = 0; i < 200000; i++) {
		strbuf_addf(&sb, "[%zu]", i);
		strbuf_addf(&want, "[%zu]", i);
		strbuf_add_i64(&sb, (int64_t)i * -7);
		strbuf_add_i64(&want, (int64_t)i * -7);
		strbuf_json_str(&sb, "q\"\n", 3);
		strbuf_json_str(&want, "q\"\n", 3);
		if (i % 50000 == 0) {
			char big[300000];

			memset(big, 'a' + (int)(i / 50000), sizeof(big));
			strbuf_add(&sb, big, sizeof(big));
			strbuf_add(&want, big, sizeof(big));
		}
	}
	strbuf_flush(&sb);
	assert_true(sb.cap < (size_t)1 << 20);
	assert_int_equal(ftell(f), (long)want.len);
	rewind(f);
	got = malloc(want.len);
	n = fread(got, 1, want.len, f);
	assert_int_equal(n, want.len);
	assert_memory_equal(got, want.buf, want.len);
	free(got);
	fclose(f);
	strbuf_fini(&sb);
	strbuf_fini(&want);
}

/* Each figure within the widths the tables give it, at every magnitude and
 * at the rounding edges where one more digit would appear. */
static void test_figures_fit(void **state)
{
	static const double edge[] = { 1, 1.5, 9.995, 9.9999, 99.95, 99.996, 999.4, 999.5, 999.95,
				       999.996, 1000, 1023.99, 1024 };
	char b[64];
	double p;
	size_t k;

	(void)state;
	assert_string_equal(fmt_ps(b, sizeof(b), 999950000000LL), "1.00 s");
	assert_string_equal(fmt_ps(b, sizeof(b), 999960000LL), "1.00 ms");
	assert_string_equal(fmt_ps(b, sizeof(b), 99996000LL), "100.0 us");
	assert_string_equal(fmt_ps(b, sizeof(b), 100993200000000000LL), "100993 s");
	assert_string_equal(fmt_ps(b, sizeof(b), -999960000LL), "-1.00 ms");
	assert_string_equal(fmt_ps(b, sizeof(b), 272400000LL), "272.4 us");
	assert_string_equal(fmt_bytes(b, sizeof(b), 1000.0 * 1048576), "0.98 GiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), 301.51 * 1048576), "301.51 MiB");
	assert_string_equal(fmt_bytes(b, sizeof(b), 1023), "1023 B");
	assert_string_equal(fmt_bytes_fit(b, sizeof(b), 213236, 9), "208 KiB");
	assert_string_equal(fmt_bytes_fit(b, sizeof(b), 213236, 10), "208.24 KiB");
	assert_string_equal(fmt_bytes_fit(b, sizeof(b), 98324, 9), "96.02 KiB");
	assert_string_equal(fmt_bytes_fit(b, sizeof(b), 98324, 8), "96.0 KiB");
	assert_string_equal(fmt_bytes_fit(b, sizeof(b), 1536, 9), "1.50 KiB");
	assert_string_equal(fmt_bytes_fit(b, sizeof(b), 0, 9), "0 B");
	assert_string_equal(fmt_count_fit(b, sizeof(b), 99999, 6), "99,999");
	assert_string_equal(fmt_count_fit(b, sizeof(b), 127300, 6), "127K");
	assert_string_equal(fmt_count_fit(b, sizeof(b), 127300, 7), "127,300");
	assert_string_equal(fmt_count_fit(b, sizeof(b), 5092000, 6), "5.09M");
	assert_string_equal(fmt_count_fit(b, sizeof(b), 999999, 6), "1.00M");
	assert_string_equal(fmt_count_fit(b, sizeof(b), UINT64_MAX, 6), "18.4E");
	assert_string_equal(fmt_pct_change(b, sizeof(b), 1234.4), "+1234%");
	assert_string_equal(fmt_pct_change(b, sizeof(b), 99900), "+99900%");
	assert_string_equal(fmt_pct_change(b, sizeof(b), 2e6), ">+1e6%");
	assert_string_equal(fmt_pct_change(b, sizeof(b), -99.96), "-100.0%");
	assert_string_equal(fmt_pct_change(b, sizeof(b), -1e7), "<-1e6%");
	/* No percent: "new" from nothing, "-" for 0 -> 0 (diff and its view). */
	assert_string_equal(fmt_pct_change_or_new(b, sizeof(b), NAN, 5), "new");
	assert_string_equal(fmt_pct_change_or_new(b, sizeof(b), NAN, 0), "-");
	assert_string_equal(fmt_pct_change_or_new(b, sizeof(b), 12.34, 5), "+12.3%");
	assert_string_equal(fmt_bytes(b, sizeof(b), 8192.0 * 1125899906842624.0), "8192 PiB");
	assert_string_equal(fmt_ps(b, sizeof(b), 950400000000000000LL), "950400 s"); /* 11 days */
	for (p = 1; p < 1e6; p *= 10)
		for (k = 0; k < sizeof(edge) / sizeof(edge[0]); k++) {
			double v = p * edge[k];
			int64_t ps = (int64_t)(v * 1e6); /* up to 1.02e14 ps: 102 s */
			uint64_t c = (uint64_t)(v * 1e9);

			assert_true(strlen(fmt_ps(b, sizeof(b), ps)) <= 8);
			assert_true(strlen(fmt_ps(b, sizeof(b), -ps)) <= 9);
			assert_true(strlen(fmt_bytes(b, sizeof(b), v * 1e9)) <= 10);
			assert_true(strlen(fmt_bytes_fit(b, sizeof(b), v * 1e9, 9)) <= 9);
			assert_true(strlen(fmt_bytes_fit(b, sizeof(b), v * 1e9, 0)) <= 8);
			assert_true(strlen(fmt_count_fit(b, sizeof(b), c, 6)) <= 6);
			assert_true(strlen(fmt_count_fit(b, sizeof(b), c, 3)) <= 5);
			assert_true(strlen(fmt_pct_change(b, sizeof(b), v)) <= 8);
			assert_true(strlen(fmt_pct_change(b, sizeof(b), -v / 1e4)) <= 8);
		}
}

/* %DEV: never "0.0%" for an op that took time (the TPU's broadcast.2,
 * 4.44 ms of 1.3 ks), never over five characters. */
static void test_op_percent(void **state)
{
	char b[16];

	(void)state;
	assert_string_equal(op_percent_text(b, sizeof(b), 0.0), "0.0%");
	assert_string_equal(op_percent_text(b, sizeof(b), 0.0003), "<0.1%");
	assert_string_equal(op_percent_text(b, sizeof(b), 0.049), "<0.1%");
	assert_string_equal(op_percent_text(b, sizeof(b), 0.05), "0.1%");
	assert_string_equal(op_percent_text(b, sizeof(b), 12.34), "12.3%");
	assert_string_equal(op_percent_text(b, sizeof(b), 99.94), "99.9%");
	assert_string_equal(op_percent_text(b, sizeof(b), 100.0), "100%");
}

/* The op profile's fixed columns, viewer and report alike: no cell wider
 * than its column, for an op with all the time, millions of occurrences,
 * huge rates and intensities. */
static void test_op_cells_fit(void **state)
{
	static const double edge[] = { 0, 1, 9.995, 99.95, 99.996, 999.5, 999.96, 1e5, 123456.7, 1e9 };
	struct xt_op_row r;
	char b[256];
	size_t c, k, j;

	(void)state;
	for (k = 0; k < sizeof(edge) / sizeof(edge[0]); k++)
		for (j = 0; j < 3; j++) {
			double m = j == 0 ? 1 : j == 1 ? 1e3 : 1e12;

			memset(&r, 0, sizeof(r));
			r.name = r.category = r.program = "op";
			r.self_ps = r.total_ps = (int64_t)fmin(edge[k] * m * 1e3, 9e17) + 1; /* 10 days */
			r.occurrences = (uint64_t)fmin(edge[k] * m, 1e19) + 1; /* < 2^64 */
			r.percent = edge[k] < 100 ? edge[k] : 100;
			r.flops_per_s = r.hbm_bytes_per_s = edge[k] * m * 1e6;
			r.flops_utilization = r.hbm_bw_utilization = edge[k] < 1 ? edge[k] : 1;
			r.intensity = edge[k] * m;
			for (c = 0; c < op_ncolumns; c++) {
				if (!op_columns[c].width)
					continue;
				op_columns[c].format(&r, b, sizeof(b));
				if ((int)strlen(b) > op_columns[c].width)
					fail_msg("%s: \"%s\" wider than %d", op_columns[c].name, b,
						 op_columns[c].width);
			}
		}
	r.percent = 99.96;
	op_columns[op_column_find("%DEV")].format(&r, b, sizeof(b));
	assert_string_equal(b, "100%");
	r.occurrences = 127300;
	op_columns[op_column_find("OCC")].format(&r, b, sizeof(b));
	assert_string_equal(b, "127K");
	/* A share under the peak never reads as the peak (the H100 scan's
	 * broadcast fusion at 0.99687 of its HBM read "100%"). */
	{
		static const struct {
			double frac;
			const char *text;
		} share[] = { { 0.99687, "99.6%" }, { 0.99999, "99.9%" }, { 1, "100%" }, { 0.994, "99%" } };

		for (k = 0; k < sizeof(share) / sizeof(share[0]); k++) {
			r.hbm_bw_utilization = share[k].frac;
			op_columns[op_column_find("%PKB")].format(&r, b, sizeof(b));
			assert_string_equal(b, share[k].text);
		}
	}
}

/* Names alike at both ends (the V100 profile's dropout ops, one per layer
 * and replica) read alike when elided in the middle: each then keeps the
 * place where it differs, between two marks. */
static void test_elide_apart(void **state)
{
	static const char *const layer[] = { "17", "22", "4", "1", "11", "2", "1", "15" };
	static const char *const rep[] = { "6", "6", "4", "4", "4", "4", "6", "6" };
	enum { K = 10, N = 256, W = 38 };
	char buf[K][N], *out[K], name[K][256];
	const char *s[K];
	size_t i, j;

	(void)state;
	for (i = 0; i < 8; i++)
		snprintf(name[i], sizeof(name[i]),
			 "replica_%s/bert_span_labeler/bert_encoder_1/transformer/layer_%s/"
			 "self_attention/dropout_3/dropout/random_uniform/RandomUniform",
			 rep[i], layer[i]);
	/* One the same as another, and one that already reads apart. */
	snprintf(name[8], sizeof(name[8]), "%s", name[0]);
	snprintf(name[9], sizeof(name[9]), "MemcpyH2D");
	for (i = 0; i < K; i++) {
		s[i] = name[i];
		out[i] = buf[i];
		utf8_elide(out[i], N, s[i], W, "~");
	}
	assert_string_equal(out[0], out[1]); /* the plain elision: all alike */
	utf8_elide_apart(out, N, s, K, W, "~");
	for (i = 0; i < K; i++) {
		assert_true(utf8_width(out[i]) <= W);
		for (j = 0; j < i; j++)
			if (strcmp(s[i], s[j]))
				assert_string_not_equal(out[i], out[j]);
	}
	assert_string_equal(out[0], out[8]);
	assert_string_equal(out[9], "MemcpyH2D");
	assert_non_null(strstr(out[0], "layer_17"));
	assert_non_null(strstr(out[3], "layer_1/"));
	/* The plain elision's head, the layer, a shorter tail. */
	assert_string_equal(out[0], "replica_6/be~layer_17/self_at~mUniform");
	/* Multibyte letters: whole characters, the same columns. */
	for (i = 0; i < 3; i++) {
		snprintf(name[i], sizeof(name[i]), "é/ééééééééééééééééééééé/layer_%zu/ééééééééééééééééé/op",
			 i + 1);
		s[i] = name[i];
		utf8_elide(out[i], N, s[i], 20, "…");
	}
	utf8_elide_apart(out, N, s, 3, 20, "…");
	for (i = 0; i < 3; i++) {
		char want[8];

		snprintf(want, sizeof(want), "_%zu/", i + 1);
		assert_int_equal(utf8_width(out[i]), 20);
		assert_non_null(strstr(out[i], want));
	}
	assert_string_not_equal(out[0], out[1]);
	/* Too narrow for three parts: unchanged. */
	utf8_elide(out[0], N, s[0], 8, "~");
	utf8_elide(out[1], N, s[1], 8, "~");
	strcpy(buf[2], out[0]);
	utf8_elide_apart(out, N, s, 2, 8, "~");
	assert_string_equal(out[0], buf[2]);
}

/* Names alike at both ends but for their instance numbers, of two kinds
 * (the H100 scan's dynamic slices and dynamic update slices): at 21
 * columns every one read "loop_dy~slice_fusion.N", unique by its number
 * but hiding its kind. Where the plain elision hides where a kind differs,
 * it now shows it; two of one kind differ by their numbers, as before.
 * At 23 columns too (in the viewer, where the column's width made the
 * plain elisions differ by a letter, "…c_slice_" and "…e_slice_"), the
 * update ones say "update". */
static void test_elide_apart_kinds(void **state)
{
	static const char *const names[] = {
		"loop_dynamic_update_slice_fusion.6", "loop_dynamic_slice_fusion.4",
		"loop_dynamic_update_slice_fusion.3", "loop_dynamic_slice_fusion.5",
		"loop_dynamic_update_slice_fusion.7", "loop_add_fusion.1", "loop_add_fusion.12",
	};
	enum { K = sizeof(names) / sizeof(names[0]), N = 128, W = 21 };
	char buf[K][N], *out[K];
	size_t i;

	(void)state;
	for (i = 0; i < K; i++) {
		out[i] = buf[i];
		utf8_elide(out[i], N, names[i], W, "~");
	}
	assert_string_equal(out[0], "loop_d~slice_fusion.6"); /* the kind hidden */
	utf8_elide_apart(out, N, names, K, W, "~");
	for (i = 0; i < K; i++) {
		assert_true(utf8_width(out[i]) <= W);
		if (i < 5)
			assert_non_null(strstr(out[i], i % 2 ? "slice" : "update"));
	}
	assert_string_equal(out[0], "loop_d~ic_update~on.6");
	/* A slice's tail shows where it differs (its "slice" after "dynamic_"):
	 * it keeps its plain elision. */
	assert_string_equal(out[1], "loop_d~slice_fusion.4");
	/* Names that fit, and kinds that differ before the head ends, stay. */
	assert_string_equal(out[5], "loop_add_fusion.1");
	assert_string_equal(out[6], "loop_add_fusion.12");
	for (i = 0; i < K; i++)
		utf8_elide(out[i], N, names[i], 23, "~");
	assert_string_equal(out[2], "loop_dy~_slice_fusion.3");
	utf8_elide_apart(out, N, names, K, 23, "~");
	for (i = 0; i < 5; i += 2)
		assert_non_null(strstr(out[i], "update"));
	assert_string_equal(out[1], "loop_dy~_slice_fusion.4");
}

/* The V100 profile's dropout kernels, as the kernel table names them
 * ("KERNEL (OP)"): per replica the encoder's own dropout and four in each
 * of 24 layers. At 61-109 columns 48 read alike (the layer hidden): their
 * second window went to where each differs from the group's ends, which
 * tells only the encoder's own dropout apart; now to where its neighbours
 * differ (the layer) when that tells more apart. And at 101 a layer's
 * "dropout_2" lost its digit under the mark between two windows. */
static void test_elide_apart_outlier(void **state)
{
	static const char kern[] =
		"void tensorflow::functor::FillPhiloxRandomKernelLaunch<tensorflow::random::"
		"UniformDistribution<tensorflow::random::PhiloxRandom, Eigen::half> >(unsigned "
		"long long const*, tensorflow::random::PhiloxRandom, long long)";
	static const char *const drop[] = { "dropout", "dropout_1", "dropout_2",
					    "self_attention/dropout_3" };
	enum { K = 2 * (1 + 24 * 4), N = 512 };
	static char name[K][N], buf[K][N];
	char *out[K];
	const char *s[K];
	size_t i, j, k = 0;
	int r, l, d, w;

	(void)state;
	for (r = 4; r <= 6; r += 2) {
		snprintf(name[k++], N, "%s (replica_%d/bert_span_labeler/bert_encoder_1/dropout/"
				       "dropout/random_uniform/RandomUniform)", kern, r);
		for (l = 0; l < 24; l++)
			for (d = 0; d < 4; d++)
				snprintf(name[k++], N,
					 "%s (replica_%d/bert_span_labeler/bert_encoder_1/transformer/"
					 "layer_%d/%s/dropout/random_uniform/RandomUniform)",
					 kern, r, l, drop[d]);
	}
	assert_int_equal(k, K);
	for (w = 40; w <= 140; w++) {
		for (i = 0; i < K; i++) {
			s[i] = name[i];
			out[i] = buf[i];
			utf8_elide(out[i], N, s[i], w, "..");
		}
		utf8_elide_apart(out, N, s, K, w, "..");
		for (i = 0; i < K; i++) {
			assert_true(utf8_width(out[i]) <= w);
			for (j = 0; j < i; j++)
				if (strcmp(out[i], out[j]) == 0)
					fail_msg("at %d columns, \"%s\" for two: %s and %s", w, out[i],
						 s[j] + sizeof(kern), s[i] + sizeof(kern));
		}
	}
}

/* A valid UTF-8 string: every sequence whole. */
static int utf8_valid(const char *s)
{
	while (*s) {
		size_t l = utf8_len(s);

		if (l == 1 && (unsigned char)*s >= 0x80)
			return 0;
		s += l;
	}
	return 1;
}

/*
 * utf8_elide_apart's promises over many columns of generated names (path
 * components with numbers in two places, ASCII and two-byte letters), at
 * widths 4-60 and with the viewer's and the report's marks: every text
 * within w columns and whole characters; the same text reads the same; two
 * whose plain elisions differ still differ. A buffer too small for the
 * three-part form leaves the plain elision, never half of one.
 */
static void test_elide_apart_promises(void **state)
{
	static const char *const marks[] = { "~", "\xe2\x80\xa6", ".." };
	static const char *const words[] = { "replica", "layer", "\xc3\xa9t\xc3\xa9", "dropout" };
	enum { K = 40, N = 512 };
	char name[K][200], buf[K][N], def[K][N], *out[K];
	const char *s[K];
	unsigned long seed = 12345;
	size_t i, j;
	int run;

	(void)state;
	for (run = 0; run < 600; run++) {
		const char *mark = marks[run % 3];
		int w = 4 + run % 57, nn = 2 + run % (K - 1);
		size_t n = run % 7 == 6 ? 24 : N; /* now and then too small */

		for (i = 0; i < (size_t)nn; i++) {
			unsigned a, b;

			seed = seed * 6364136223846793005UL + 1442695040888963407UL;
			a = (unsigned)(seed >> 33) % 8;
			b = (unsigned)(seed >> 40) % 30;
			snprintf(name[i], sizeof(name[i]), "%s_%u/bert_encoder/%s/%s_%u/%s/tail_%s",
				 words[(seed >> 20) % 4], a, words[(seed >> 24) % 4],
				 words[(seed >> 28) % 4], b, words[(seed >> 50) % 4],
				 (seed >> 60) % 2 ? "x" : "RandomUniform");
			s[i] = name[i];
			out[i] = buf[i];
			if (run % 3 == 2)
				tt_elide(out[i], n, s[i], w); /* the report's, with ".." */
			else
				utf8_elide(out[i], n, s[i], w, mark);
			memcpy(def[i], out[i], strlen(out[i]) + 1);
		}
		utf8_elide_apart(out, n, s, (size_t)nn, w, mark);
		for (i = 0; i < (size_t)nn; i++) {
			assert_true(strlen(out[i]) < n);
			assert_true(utf8_width(out[i]) <= w);
			/* (the report's tt_elide itself may cut a letter into
			 * a buffer too small: only a whole plain elision counts) */
			if (utf8_valid(def[i]) && !utf8_valid(out[i]))
				fail_msg("run %d w %d n %zu mark %s: [%s] def [%s] of [%s]", run, w, n,
					 mark, out[i], def[i], s[i]);
			for (j = 0; j < i; j++) {
				if (!strcmp(s[i], s[j]))
					assert_string_equal(out[i], out[j]);
				else if (strcmp(def[i], def[j]))
					assert_string_not_equal(out[i], out[j]);
			}
		}
	}
}

/* Kernels of one op in two replicas and 24 layers: the replica and the
 * layer sit far apart in the middle, and each row shows both. */
/* Two programs' ops of one name beside another op of the first program
 * (the MI300X attention profile, the report at 80 columns): each program
 * shows, not only the one whose tail is alike ("jit__redu..input_reduce_
 * fusion" beside "jit__reduce_sum/input.._fusion" hid that it is max). */
static void test_elide_apart_each_shows(void **state)
{
	enum { K = 4, N = 128, W = 30 };
	const char *s[K] = { "jit__reduce_max/input_reduce_fusion", "jit__reduce_sum/input_reduce_fusion",
			     "jit__reduce_max/loop_convert_fusion", "loop_reduce_fusion" };
	char buf[K][N], *out[K];
	size_t i;

	(void)state;
	for (i = 0; i < K; i++) {
		out[i] = buf[i];
		tt_elide(out[i], N, s[i], W);
	}
	utf8_elide_apart(out, N, s, K, W, "..");
	assert_string_equal(out[0], "jit__reduce_max/input.._fusion");
	assert_string_equal(out[1], "jit__reduce_sum/input.._fusion");
	assert_string_equal(out[2], "jit__redu..loop_convert_fusion");
	assert_string_equal(out[3], "loop_reduce_fusion");
}

static void test_elide_apart_two_places(void **state)
{
	enum { K = 48, N = 256, W = 34 };
	char name[K][256], buf[K][N], *out[K];
	const char *s[K];
	size_t i, j;

	(void)state;
	for (i = 0; i < K; i++) {
		snprintf(name[i], sizeof(name[i]),
			 "void tensorflow::functor::FillPhiloxRandomKernel (replica_%zu/bert_span_"
			 "labeler/bert_encoder_1/transformer/layer_%zu/self_attention/dropout_3/"
			 "dropout/random_uniform/RandomUniform)",
			 (size_t)(i % 2 ? 6 : 4), i / 2);
		s[i] = name[i];
		out[i] = buf[i];
		tt_elide(out[i], N, s[i], W); /* the report's plain elision */
	}
	utf8_elide_apart(out, N, s, K, W, "..");
	for (i = 0; i < K; i++) {
		assert_true(utf8_width(out[i]) <= W);
		for (j = 0; j < i; j++)
			assert_string_not_equal(out[i], out[j]);
	}
}

/* Kernels of one kernel in two replicas, six layers and three dropouts
 * of each layer: three places far apart, each shown in its own window at
 * the report's 80-column width and wider; and a replica that only a wide
 * column hides. */
static void test_elide_apart_three_places(void **state)
{
	static const char *const drop[] = { "self_attention/dropout_3", "dropout_1", "dropout" };
	static const int widths[] = { 34, 38, 50, 58, 78 };
	enum { K = 36, N = 256 };
	char name[K][256], buf[K][N], *out[K];
	const char *s[K];
	size_t i, j, x;

	(void)state;
	for (i = 0; i < K; i++) {
		snprintf(name[i], sizeof(name[i]),
			 "void tensorflow::functor::FillPhiloxRandomKernel (replica_%zu/bert_span_"
			 "labeler/bert_encoder_1/transformer/layer_%zu/%s/dropout/random_uniform/"
			 "RandomUniform)",
			 (size_t)(i % 2 ? 6 : 4), i / 6, drop[(i / 2) % 3]);
		s[i] = name[i];
		out[i] = buf[i];
	}
	for (x = 0; x < sizeof(widths) / sizeof(widths[0]); x++) {
		for (i = 0; i < K; i++)
			tt_elide(out[i], N, s[i], widths[x]);
		utf8_elide_apart(out, N, s, K, widths[x], "..");
		for (i = 0; i < K; i++) {
			assert_true(utf8_width(out[i]) <= widths[x]);
			for (j = 0; j < i; j++)
				if (!strcmp(out[i], out[j]))
					fail_msg("w %d: [%s] for both\n%s\n%s", widths[x], out[i], s[i],
						 s[j]);
		}
	}
	for (i = 0; i < 2; i++) {
		snprintf(name[i], sizeof(name[i]),
			 "void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::"
			 "TensorAssignOp<Eigen::half>>> (replica_%d/bert_span_labeler/bert_encoder_1/"
			 "transformer/layer_9/self_attention/key/add/Cast)",
			 i ? 6 : 4);
		s[i] = name[i];
		tt_elide(out[i], N, s[i], 118);
	}
	assert_string_equal(out[0], out[1]);
	utf8_elide_apart(out, N, s, 2, 118, "..");
	assert_string_not_equal(out[0], out[1]);
	assert_non_null(strstr(out[1], "replica_6/bert_span_labeler/"));
	assert_true(utf8_width(out[1]) <= 118);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_fmt_ps_unit),
		TU_TEST(test_unit),
		TU_TEST(test_apart),
		TU_TEST(test_ticks_every_zoom),
		TU_TEST(test_ticks_deep_zoom_uses_offsets),
		TU_TEST(test_fmt_known),
		TU_TEST(test_figures_fit),
		TU_TEST(test_op_cells_fit),
		TU_TEST(test_op_percent),
		TU_TEST(test_utf8_elide),
		TU_TEST(test_elide_apart),
		TU_TEST(test_elide_apart_kinds),
		TU_TEST(test_elide_apart_outlier),
		TU_TEST(test_elide_apart_promises),
		TU_TEST(test_elide_apart_each_shows),
		TU_TEST(test_elide_apart_two_places),
		TU_TEST(test_elide_apart_three_places),
		TU_TEST(test_strbuf_i64),
		TU_TEST(test_strbuf_sink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
