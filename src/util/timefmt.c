/* timefmt: see timefmt.h. */
#include "timefmt.h"

#include <inttypes.h>
#include <stdio.h>

char *fmt_ps(char *buf, size_t n, int64_t ps)
{
	static const struct { double div; const char *unit; } u[] = {
		{ 1e12, "s" }, { 1e9, "ms" }, { 1e6, "us" }, { 1e3, "ns" },
	};
	double v = (double)(ps < 0 ? -ps : ps);
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (v >= u[i].div) {
			double x = (double)ps / u[i].div;

			snprintf(buf, n, "%.*f %s", x >= 100 || x <= -100 ? 1 : 2, x, u[i].unit);
			return buf;
		}
	}
	snprintf(buf, n, "%" PRId64 " ps", ps);
	return buf;
}

char *fmt_bytes(char *buf, size_t n, double b)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	size_t i = 0;

	while ((b >= 1024 || b <= -1024) && i + 1 < sizeof(unit) / sizeof(unit[0])) {
		b /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, n, "%.0f B", b);
	else
		snprintf(buf, n, "%.2f %s", b, unit[i]);
	return buf;
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

char *fmt_rate(char *buf, size_t n, double v)
{
	static const struct { double div; const char *p; } u[] = {
		{ 1e15, "P" }, { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "K" },
	};
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (v >= u[i].div) {
			snprintf(buf, n, "%.2f %s", v / u[i].div, u[i].p);
			return buf;
		}
	snprintf(buf, n, "%.2f ", v);
	return buf;
}
