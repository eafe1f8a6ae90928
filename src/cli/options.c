/* options: see options.h. Long-only options return 1000 + their index. */
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"

/* One line on stderr, "xtop: " first: what the user typed is shown with
 * its control characters escaped (an option's text may hold a newline). */
void options_say(const char *fmt, ...)
{
	char line[2048];
	struct xt_error e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	xt_error_set(&e, 0, "%s", line);
	fprintf(stderr, "xtop: %s\n", e.msg);
}

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

/* The help column: option lines fit 80 columns (an SSH terminal), the help
 * text wrapped at blanks, its later lines under its first. */
enum { HELP_COL = 27, HELP_WIDTH = 80 };

/* Prints help text h from column HELP_COL (on the next line when the option
 * already reached it), wrapped. */
static void help_wrap(FILE *f, const char *h, int own_line)
{
	const size_t room = HELP_WIDTH - HELP_COL;
	int first = 1;

	if (own_line)
		fprintf(f, "\n%*s", HELP_COL, "");
	else
		fputc(' ', f);
	while (*h) {
		size_t n = strlen(h), cut = n;

		if (n > room) {
			/* the last blank that fits; a longer word stands alone */
			for (cut = room; cut > 0 && h[cut] != ' '; cut--)
				;
			if (!cut)
				cut = strcspn(h, " ");
		}
		if (!first)
			fprintf(f, "%*s", HELP_COL, "");
		fprintf(f, "%.*s\n", (int)cut, h);
		first = 0;
		h += cut;
		while (*h == ' ')
			h++;
	}
	if (first)
		fputc('\n', f);
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
		fprintf(f, "  %-24s", left);
		help_wrap(f, t[i].help, strlen(left) > 24);
	}
}

int options_number(const char *opt, const char *v, unsigned long long min, unsigned long long max,
		   const char *what, unsigned long long *out)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 10);
	if (*v >= '0' && *v <= '9' && !*end && !errno && x >= min && x <= max) {
		*out = x;
		return 0;
	}
	if (max == OPTIONS_NO_MAX)
		options_say("%s needs %s, %llu or more, not '%s'", opt, what, min, v);
	else if (max == min + 1)
		options_say("%s needs %s, %llu or %llu, not '%s'", opt, what, min, max, v);
	else
		options_say("%s needs %s from %llu to %llu, not '%s'", opt, what, min, max,
			v);
	return -1;
}

/* The table entry getopt_long's optopt stands for, or NULL. */
static const struct xt_option *entry_of(const struct xt_option *t, int opt)
{
	size_t i;

	for (i = 0; t[i].id; i++)
		if ((t[i].shortopt && opt == t[i].shortopt) || opt == 1000 + (int)i)
			return &t[i];
	return NULL;
}

void options_error(const struct xt_option *t, int c, char *const *argv, const char *cmd)
{
	const char *arg = argv[optind - 1];

	if (c == ':') {
		const struct xt_option *o = entry_of(t, optopt);

		if (o)
			options_say("--%s needs a value (%s: %s)", o->name, o->arg ? o->arg : "",
				o->help);
		else
			options_say("option '%s' needs a value (see %s --help)", arg, cmd);
		return;
	}
	if (optopt && arg[0] == '-' && arg[1] == '-' && entry_of(t, optopt)) {
		/* "--json=1": a known option that takes no value. */
		options_say("--%s takes no value (see %s --help)", entry_of(t, optopt)->name,
			cmd);
		return;
	}
	if (optopt && !(arg[0] == '-' && arg[1] == '-')) {
		/* A short option, maybe inside a group like -jq. */
		options_say("unknown option '-%c' (see %s --help)", optopt, cmd);
		return;
	}
	/* A long one; "--name=value" is named without its value. */
	options_say("unknown option '%.*s' (see %s --help)", (int)strcspn(arg, "="), arg,
		cmd);
}

int options_seconds(const char *v, double max_s, uint64_t *ms)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(v, &end);
	if (*v < '0' || *v > '9' || *end || errno || !(s >= 0.1) || s > max_s)
		return -1;
	*ms = (uint64_t)llround(s * 1000);
	return 0;
}

int options_stdout_done(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("xtop: stdout");
		return -1;
	}
	return 0;
}
