/* timeaxis: see timeaxis.h. */
#include "timeaxis.h"

#include "../util/timefmt.h"
#include "app.h"

/* The profile start, as in the report and its JSON (docs/analyses.md,
 * "Time base"), so that a time read in one is found in the other. */
int64_t timeaxis_origin(const struct app *a)
{
	return a->t ? a->t->origin_ps : 0;
}

int64_t timeaxis_rel(const struct app *a, int64_t abs_ps)
{
	return abs_ps - timeaxis_origin(a);
}

char *timeaxis_fmt(const struct app *a, char *buf, size_t n, int64_t abs_ps)
{
	return fmt_ps(buf, n, timeaxis_rel(a, abs_ps));
}

char *timeaxis_fmt_exact(const struct app *a, char *buf, size_t n, int64_t abs_ps)
{
	int64_t rel = timeaxis_rel(a, abs_ps), unit;
	int dec;

	/* The unit of the value, with decimals down to 1 ns (ps below 1 ns). */
	timefmt_unit(rel < 0 ? -rel : rel, XT_PS_NS, &unit, &dec);
	if (unit < XT_PS_NS)
		dec = 0;
	return fmt_ps_unit(buf, n, rel, unit, dec);
}
