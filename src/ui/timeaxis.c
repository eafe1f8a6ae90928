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
	return xt_ps_sub(abs_ps, timeaxis_origin(a)); /* modulo 2^64, as times are */
}

char *timeaxis_fmt(const struct app *a, char *buf, size_t n, int64_t abs_ps)
{
	return fmt_ps(buf, n, timeaxis_rel(a, abs_ps));
}

char *timeaxis_fmt_exact(const struct app *a, char *buf, size_t n, int64_t abs_ps)
{
	return fmt_ps_exact(buf, n, timeaxis_rel(a, abs_ps));
}
