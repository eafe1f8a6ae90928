/* timefmt: see timefmt.h. */
#include "timefmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sat.h"

char *fmt_ps(char *buf, size_t n, int64_t ps)
{
	static const struct { double div; const char *unit; } u[] = {
		{ 1e12, "s" }, { 1e9, "ms" }, { 1e6, "us" }, { 1e3, "ns" },
	};
	double v = fabs((double)ps); /* -INT64_MIN has no int64 */
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (v >= u[i].div) {
			double x = (double)ps / u[i].div;

			/* 999.96 ms would print as "1000.0 ms": the next unit up. */
			if (i && fabs(x) >= 999.95) {
				x /= 1000;
				i--;
			}
			/* Seconds have no unit above: whole ones past 1000, so a
			 * time under 11 days takes at most 8 columns. */
			if (!i && fabs(x) >= 999.95)
				snprintf(buf, n, "%.0f s", x);
			else
				snprintf(buf, n, "%.*f %s", fabs(x) >= 99.995 ? 1 : 2, x, u[i].unit);
			return buf;
		}
	}
	snprintf(buf, n, "%" PRId64 " ps", ps);
	return buf;
}

/* Decimals that give v three figures ("1.23", "12.3", "123"), where the
 * figure rounds to: 9.996 is "10.0", 99.96 is "100". */
static int fig3(double v)
{
	double a = fabs(v);

	return a < 9.995 ? 2 : a < 99.95 ? 1 : 0;
}

/* v in three figures with a decimal prefix, a prefix up where rounding
 * would write a fourth figure (999.6e9 is "1.00" sep "T" unit); no prefix
 * below 999.5. Prefixes up to E. */
static char *si3(char *buf, size_t n, double v, const char *sep, const char *unit)
{
	static const char *const pre[] = { "", "K", "M", "G", "T", "P", "E" };
	int k = 0;

	while (fabs(v) >= 999.5 && k < 6) {
		v /= 1000;
		k++;
	}
	snprintf(buf, n, "%.*f%s%s%s", fig3(v), v, sep, pre[k], unit);
	return buf;
}

/* The unit for |b| bytes: up from KiB at 999.995, where "%.2f" would
 * write four whole digits ("1000.00 MiB" does not fit a column of ten). */
static double bytes_unit(double b, double up, size_t *i)
{
	*i = 0;
	while ((fabs(b) >= 1024 || (*i && fabs(b) >= up)) && *i + 1 < 6) {
		b /= 1024;
		(*i)++;
	}
	return b;
}

static const char *const byte_unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };

char *fmt_bytes(char *buf, size_t n, double b)
{
	size_t i;

	b = bytes_unit(b, 999.995, &i);
	if (i == 0 || fabs(b) >= 999.995) /* bytes, or past 999 PiB: whole */
		snprintf(buf, n, "%.0f %s", b, byte_unit[i]);
	else
		snprintf(buf, n, "%.2f %s", b, byte_unit[i]);
	return buf;
}

char *fmt_bytes_fit(char *buf, size_t n, double b, int w)
{
	size_t i;

	fmt_bytes(buf, n, b);
	if ((int)strlen(buf) <= w)
		return buf;
	b = bytes_unit(b, 999.5, &i);
	snprintf(buf, n, "%.*f %s", fig3(b), b, byte_unit[i]);
	return buf; /* "8192 PiB" past 999 PiB; 2^64 bytes, "16384 PiB", takes nine */
}

char *fmt_count(char *buf, size_t n, uint64_t v)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), i, o = 0;

	for (i = 0; i < len && (size_t)o + 1 < n; i++) {
		if (i && (len - i) % 3 == 0 && (size_t)o + 2 < n)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

char *fmt_count_fit(char *buf, size_t n, uint64_t v, int w)
{
	fmt_count(buf, n, v);
	if ((int)strlen(buf) > w && (double)v >= 999.5)
		si3(buf, n, (double)v, "", "");
	return buf;
}

char *fmt_rate(char *buf, size_t n, double v, const char *sep, const char *unit)
{
	/* Past 999 P no figure is real (a hostile stat), and none fits a
	 * column. */
	if (!isfinite(v) || v < 0 || v >= 999.5e15) {
		snprintf(buf, n, "-");
		return buf;
	}
	return si3(buf, n, v, sep, unit);
}

char *fmt_ps_exact(char *buf, size_t n, int64_t ps)
{
	int64_t unit;
	int dec;

	timefmt_unit(xt_sat_abs(ps), XT_PS_NS, &unit, &dec);
	if (unit < XT_PS_NS)
		dec = 0;
	return fmt_ps_unit(buf, n, ps, unit, dec);
}

char *fmt_ps_unit(char *buf, size_t n, int64_t ps, int64_t unit, int dec)
{
	static const char *const names[] = { "ps", "ns", "us", "ms", "s" };
	uint64_t a = ps < 0 ? (uint64_t)0 - (uint64_t)ps : (uint64_t)ps, ip, frac, div = 1;
	int k, u = 0;
	int64_t x;

	for (x = 1; x < unit && u < 4; x *= 1000)
		u++;
	if (unit < 1)
		unit = 1;
	if (dec > 12)
		dec = 12; /* a second has 12 decimal places of ps */
	for (k = 0; k < dec; k++)
		div *= 10;
	ip = a / (uint64_t)unit;
	frac = a % (uint64_t)unit;
	if (dec > 0 && (uint64_t)unit >= div) {
		char digits[24];

		/* dec digits of frac / (unit / div), leading zeros kept. */
		frac /= (uint64_t)unit / div;
		for (k = dec; k-- > 0; frac /= 10)
			digits[k] = (char)('0' + frac % 10);
		digits[dec] = '\0';
		snprintf(buf, n, "%s%" PRIu64 ".%s %s", ps < 0 ? "-" : "", ip, digits, names[u]);
	} else {
		snprintf(buf, n, "%s%" PRIu64 " %s", ps < 0 ? "-" : "", ip, names[u]);
	}
	return buf;
}

void timefmt_unit(int64_t maxabs, int64_t step, int64_t *unit, int *dec)
{
	int64_t u = XT_PS_S, r;

	while (u > 1 && maxabs < u)
		u /= 1000;
	*unit = u;
	*dec = 0;
	if (step <= 0)
		return;
	for (r = u; r > 1 && step % r; r /= 10)
		(*dec)++;
}

void timefmt_apart(const int64_t *v, size_t n, int w, int64_t *unit, int *dec)
{
	char a[48], b[48];
	int64_t gap = INT64_MAX, lo = 0, hi = 0, step = 1;
	size_t i;
	int alike = 0;

	*unit = 0;
	*dec = 0;
	for (i = 0; i < n; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
		if (i && v[i] != v[i - 1]) {
			/* unsigned: no overflow between far apart extremes */
			uint64_t d = v[i] > v[i - 1] ? (uint64_t)v[i] - (uint64_t)v[i - 1]
						     : (uint64_t)v[i - 1] - (uint64_t)v[i];

			if (d < (uint64_t)gap)
				gap = (int64_t)d;
			if (!alike && !strcmp(fmt_ps(a, sizeof(a), v[i - 1]), fmt_ps(b, sizeof(b), v[i])))
				alike = 1;
		}
	}
	if (!alike || gap == INT64_MAX || lo == INT64_MIN)
		return;
	while (step <= gap / 10)
		step *= 10;
	timefmt_unit(-lo > hi ? -lo : hi, step, unit, dec);
	while (*dec > 0 && ((int)strlen(fmt_ps_unit(a, sizeof(a), lo, *unit, *dec)) > w ||
			    (int)strlen(fmt_ps_unit(b, sizeof(b), hi, *unit, *dec)) > w))
		(*dec)--;
}

char *fmt_ps_apart(char *buf, size_t n, int64_t ps, int64_t unit, int dec)
{
	return unit ? fmt_ps_unit(buf, n, ps, unit, dec) : fmt_ps(buf, n, ps);
}

static int64_t nice_step(int64_t raw)
{
	int64_t p = 1;

	while (p <= INT64_MAX / 10 && p * 10 <= raw)
		p *= 10;
	if (raw <= p)
		return p;
	if (raw <= 2 * p)
		return 2 * p;
	if (raw <= 5 * p)
		return 5 * p;
	return 10 * p;
}


/* The ticks for one tick spacing (a tick about every `every` columns);
 * *dropped counts the ticks left out because their labels would have run
 * into the previous one. */
static size_t ticks_every(int64_t t0, int64_t t1, int w, int every, struct timefmt_tick *out,
			  size_t max, int *dropped)
{
	int64_t span = t1 - t0, step, first, t, unit, ounit;
	int dec, odec, full = 1, next_free = 0;
	size_t n = 0;

	step = nice_step(span / (w / every > 0 ? w / every : 1));
	if (step < 1)
		step = 1;
	/* The first multiple of step at or after t0 (floor division). */
	first = t0 / step * step;
	if (first < t0)
		first += step;
	timefmt_unit(xt_sat_abs(t0) > xt_sat_abs(t1) ? xt_sat_abs(t0) : xt_sat_abs(t1), step, &unit,
		     &dec);
	timefmt_unit(span, step, &ounit, &odec);
	/* Full times when the longest fits between two ticks with a space. */
	{
		char b[48];
		int64_t cols = (int64_t)((__int128)step * w / span);

		fmt_ps_unit(b, sizeof(b),
			    xt_sat_abs(t0) > xt_sat_abs(t1) ? -xt_sat_abs(t0) - step
							    : xt_sat_abs(t1) + step,
			    unit, dec);
		full = (int64_t)strlen(b) + 2 <= cols;
	}
	for (t = first; t < t1 && n < max; t += step) {
		int x = (int)((__int128)(t - t0) * w / span), len;
		char *l = out[n].label;

		if (x < next_free || x >= w) {
			(*dropped)++;
			continue;
		}
		if (full || !n) {
			fmt_ps_unit(l, sizeof(out[n].label), t, unit, dec);
		} else {
			/* Offsets from the first tick, in the unit of the span. */
			l[0] = '+';
			fmt_ps_unit(l + 1, sizeof(out[n].label) - 1, t - first, ounit, odec);
		}
		len = (int)strlen(l);
		if (x + 1 + len > w)
			break; /* a cut label could be read as another time */
		out[n].x = x;
		next_free = x + len + 2;
		n++;
	}
	return n;
}

size_t timefmt_ticks(int64_t t0, int64_t t1, int w, struct timefmt_tick *out, size_t max)
{
	/* A tick about every 10 columns when the labels fit that, else 12;
	 * closer (8, 6) only when wider spacing leaves fewer than two. */
	static const int every[] = { 10, 12, 8, 6 };
	size_t n = 0, k, best = 0, nbest = 0;
	int dropped;

	/* Far times (a hostile file's) get no ticks: the steps below and
	 * the widest label stay within int64 for times within +-2^61. */
	if (w <= 0 || t1 <= t0 || !max || t0 < -(INT64_C(1) << 61) || t1 > INT64_C(1) << 61)
		return 0;
	for (k = 0; k < sizeof(every) / sizeof(every[0]); k++) {
		dropped = 0;
		n = ticks_every(t0, t1, w, every[k], out, max, &dropped);
		if (n >= 2 && (!dropped || k == 1))
			return n;
		if (n > nbest) {
			nbest = n;
			best = k;
		}
	}
	dropped = 0;
	return ticks_every(t0, t1, w, every[best], out, max, &dropped);
}

char *fmt_pct_change(char *buf, size_t n, double pct)
{
	if (pct > -0.05 && pct < 0.05)
		snprintf(buf, n, "0.0%%");
	else if (pct >= 999999.5)
		snprintf(buf, n, ">+1e6%%"); /* no figure says more, and it fits */
	else if (pct <= -999999.5)
		snprintf(buf, n, "<-1e6%%"); /* below -100 %: a negative base */
	else
		snprintf(buf, n, fabs(pct) >= 999.95 ? "%+.0f%%" : "%+.1f%%", pct);
	return buf;
}

char *fmt_ps_change(char *buf, size_t n, int64_t d)
{
	char t[24];

	if (!d) {
		snprintf(buf, n, "0");
		return buf;
	}
	/* -INT64_MIN does not exist: the magnitude as unsigned, then shown. */
	fmt_ps(t, sizeof(t), d < 0 ? (d == INT64_MIN ? INT64_MAX : -d) : d);
	snprintf(buf, n, "%c%s", d < 0 ? '-' : '+', t);
	return buf;
}

int fmt_is_unit(const char *s)
{
	static const char *const units[] = { "ps", "ns", "us", "ms", "s", "B", "KiB", "MiB", "GiB",
					     "TiB" };
	size_t i, n = 0;

	while (s[n] && s[n] != ' ' && s[n] != ',' && s[n] != ';' && s[n] != ')')
		n++;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i]) == n && !strncmp(s, units[i], n))
			return 1;
	return 0;
}

const char *fmt_word_end(const char *s)
{
	for (;;) {
		while (*s && *s != ' ')
			s++;
		if (*s == ' ' && fmt_is_unit(s + 1))
			s++;
		else
			return s;
	}
}

char *fmt_ps_known(char *buf, size_t n, int64_t ps, int known)
{
	if (!known) {
		snprintf(buf, n, "-");
		return buf;
	}
	return fmt_ps(buf, n, ps);
}

char *fmt_percent(char *buf, size_t n, double pct)
{
	if (isnan(pct))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f%%", pct);
	return buf;
}

char *fmt_pct_change_or_new(char *buf, size_t n, double pct, double new_)
{
	if (!isnan(pct))
		return fmt_pct_change(buf, n, pct);
	snprintf(buf, n, "%s", new_ == 0 ? "-" : "new");
	return buf;
}
