/* options: see options.h. Long-only options return 1000 + their index. */
#include "options.h"

#include <string.h>

void options_build(const struct xt_option *t, struct option *lo, char *so, size_t sn)
{
	size_t i, k = 0;

	if (sn)
		so[k++] = ':'; /* report missing arguments as ':' */
	for (i = 0; t[i].id; i++) {
		lo[i].name = t[i].name;
		lo[i].has_arg = t[i].has_arg ? required_argument : no_argument;
		lo[i].flag = NULL;
		lo[i].val = t[i].shortopt ? t[i].shortopt : 1000 + (int)i;
		if (t[i].shortopt && k + 3 < sn) {
			so[k++] = t[i].shortopt;
			if (t[i].has_arg)
				so[k++] = ':';
		}
	}
	memset(&lo[i], 0, sizeof(lo[i]));
	so[k] = '\0';
}

int options_id(const struct xt_option *t, int c)
{
	size_t i;

	for (i = 0; t[i].id; i++)
		if ((t[i].shortopt && c == t[i].shortopt) || c == 1000 + (int)i)
			return t[i].id;
	return 0;
}

void options_usage(FILE *f, const char *usage, const char *about, const struct xt_option *t)
{
	size_t i;

	fprintf(f, "usage: %s\n", usage);
	if (about)
		fprintf(f, "%s\n", about);
	fputc('\n', f);
	for (i = 0; t[i].id; i++) {
		char left[64];

		if (t[i].shortopt)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", t[i].shortopt, t[i].name,
				 t[i].arg ? " " : "", t[i].arg ? t[i].arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", t[i].name, t[i].arg ? " " : "",
				 t[i].arg ? t[i].arg : "");
		fprintf(f, "  %-24s %s\n", left, t[i].help);
	}
}
