/* config: see config.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../capture/capture.h"
#include "options.h"

const char *const config_views[8] = { "overview", "timeline", "ops",	   "steps",
				       "memory",   "kernels",  "devices", "diff" };

/* The settings as data: the file's key, the variable, the default, what
 * values it takes (a range, a list, or any string) and what it does. */
struct setting {
	const char *key, *env, *def;
	uint64_t min, max;             /* numbers, when max > 0 */
	int tenths;                    /* seconds with up to three decimals, from 0.1 */
	const char *const *choices;    /* a list, when not NULL */
	const char *unit, *help;
};

static const struct setting settings[CFG_COUNT] = {
	[CFG_LOGDIR] = { "logdir", "XTOP_LOGDIR", "xtop-logdir", 0, 0, 0, NULL, "a directory",
			 "captures and saves go under it (TensorBoard's plugins/profile/RUN layout)" },
	[CFG_DURATION] = { "duration", "XTOP_DURATION", "2000", 1, 24ull * 3600 * 1000, 0, NULL,
			   "milliseconds", "how long a capture records" },
	[CFG_HOST_TRACER] = { "host_tracer", "XTOP_HOST_TRACER", "2", 0, 3, 0, NULL, "a level",
			      "host (TraceMe) tracer level of captures" },
	[CFG_DEVICE_TRACER] = { "device_tracer", "XTOP_DEVICE_TRACER", "1", 0, 1, 0, NULL, "a level",
				"device tracer level of captures" },
	[CFG_PYTHON_TRACER] = { "python_tracer", "XTOP_PYTHON_TRACER", "0", 0, 1, 0, NULL, "a level",
				"Python tracer level of captures" },
	[CFG_DEADLINE] = { "deadline", "XTOP_DEADLINE", "0", 0, 7ull * 24 * 3600 * 1000, 0, NULL,
			   "milliseconds",
			   "give up on a host after this long (0: max(60 s, 2 x duration))" },
	[CFG_VIEW] = { "view", "XTOP_VIEW", "overview", 0, 0, 0, config_views, "a view",
		       "the view the viewer opens on" },
	[CFG_EVERY] = { "top_every", "XTOP_TOP_EVERY", "5", 1, 24ull * 3600, 1, NULL, "seconds",
			"xtop top: time from one capture's start to the next's (e.g. 5 or 0.5)" },
	[CFG_TOP_DURATION] = { "top_duration", "XTOP_TOP_DURATION", "1000", 1, 24ull * 3600 * 1000,
			       0, NULL, "milliseconds", "xtop top: how long each capture records" },
};

/* Checks v for setting k; 0 or -1 with why (what it takes) in err. */
static int check(enum config_key k, const char *v, const char *where, struct xt_error *err)
{
	const struct setting *s = &settings[k];
	size_t i;

	if (strlen(v) >= sizeof(((struct config *)0)->value[0]))
		return xt_error_set(err, XT_EUSAGE, "%s: %s is longer than %zu bytes", where, s->key,
				    sizeof(((struct config *)0)->value[0]) - 1);
	if (s->tenths) {
		uint64_t ms;

		if (options_seconds(v, (double)s->max, &ms) < 0)
			return xt_error_set(err, XT_EUSAGE, "%s: %s needs %s from 0.1 to %llu, not '%s'",
					    where, s->key, s->unit, (unsigned long long)s->max, v);
		return 0;
	}

	if (s->choices) {
		for (i = 0; i < 8 && s->choices[i]; i++)
			if (!strcmp(v, s->choices[i]))
				return 0;
		return xt_error_set(err, XT_EUSAGE,
				    "%s: %s needs one of overview, timeline, ops, steps, memory, "
				    "kernels, devices, diff, not '%s'",
				    where, s->key, v);
	}
	if (s->max) {
		char *end;
		unsigned long long n;

		errno = 0;
		n = strtoull(v, &end, 10);
		if (!*v || *end || *v == '-' || errno || n < s->min || n > s->max)
			return xt_error_set(err, XT_EUSAGE, "%s: %s needs %s from %llu to %llu, not '%s'",
					    where, s->key, s->unit, (unsigned long long)s->min,
					    (unsigned long long)s->max, v);
		return 0;
	}
	if (!*v)
		return xt_error_set(err, XT_EUSAGE, "%s: %s needs %s", where, s->key, s->unit);
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* named: the path came from XTOP_CONFIG, so a missing file is the user's
 * typo, not "no settings". */
static int load_file(struct config *c, int named, struct xt_error *err)
{
	/* Not blocking: a FIFO in the file's place must not hang xtop. */
	int fd = open(c->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char buf[2048];
	int line = 0;
	struct stat st;
	FILE *f;

	if (fd < 0) {
		if (errno == ENOENT && !named)
			return 0;
		return xt_error_set(err, XT_EIO, "%s%s: %s", named ? "XTOP_CONFIG: " : "", c->path,
				    strerror(errno));
	}
	/* A device reads without blocking too: /dev/null is "no settings". */
	if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode)) ||
	    !(f = fdopen(fd, "r"))) {
		close(fd);
		return xt_error_set(err, XT_EIO, "%s: not a regular file", c->path);
	}
	c->file_found = 1;
	while (fgets(buf, sizeof(buf), f)) {
		char where[1100], *key, *val, *eq;
		size_t k;

		line++;
		snprintf(where, sizeof(where), "%s:%d", c->path, line);
		if (!strchr(buf, '\n') && !feof(f)) {
			fclose(f);
			return xt_error_set(err, XT_EUSAGE, "%s: line too long", where);
		}
		key = buf;
		/* A file an editor saved with a byte order mark. */
		if (line == 1 && !strncmp(key, "\xef\xbb\xbf", 3))
			key += 3;
		/* A comment: '#' at the line's start or after a blank, to its end. */
		for (k = 0; key[k]; k++)
			if (key[k] == '#' && (!k || isspace((unsigned char)key[k - 1]))) {
				key[k] = '\0';
				break;
			}
		key = trim(key);
		if (!*key)
			continue;
		if (!(eq = strchr(key, '='))) {
			fclose(f);
			return xt_error_set(err, XT_EUSAGE, "%s: expected 'key = value', not '%s'",
					    where, key);
		}
		*eq = '\0';
		key = trim(key);
		val = trim(eq + 1);
		for (k = 0; k < CFG_COUNT && strcmp(settings[k].key, key); k++)
			;
		if (k == CFG_COUNT) {
			fclose(f);
			return xt_error_set(err, XT_EUSAGE,
					    "%s: unknown setting '%s' (xtop --config lists them)", where,
					    key);
		}
		if (check((enum config_key)k, val, where, err) < 0) {
			fclose(f);
			return -1;
		}
		snprintf(c->value[k], sizeof(c->value[k]), "%s", val);
		snprintf(c->source[k], sizeof(c->source[k]), "%s", where);
	}
	if (ferror(f)) {
		int e = errno;

		fclose(f);
		return xt_error_set(err, XT_EIO, "%s: %s", c->path, strerror(e));
	}
	fclose(f);
	return 0;
}

int config_load(struct config *c, struct xt_error *err)
{
	const char *p = getenv("XTOP_CONFIG"), *x = getenv("XDG_CONFIG_HOME"), *h = getenv("HOME");
	size_t k;
	int n = 0;

	memset(c, 0, sizeof(*c));
	for (k = 0; k < CFG_COUNT; k++) {
		snprintf(c->value[k], sizeof(c->value[k]), "%s", settings[k].def);
		snprintf(c->source[k], sizeof(c->source[k]), "default");
	}
	if (p && *p)
		n = snprintf(c->path, sizeof(c->path), "%s", p);
	else if (x && *x)
		n = snprintf(c->path, sizeof(c->path), "%s/xtop/config", x);
	else if (h && *h)
		n = snprintf(c->path, sizeof(c->path), "%s/.config/xtop/config", h);
	if (n >= (int)sizeof(c->path))
		return xt_error_set(err, XT_EUSAGE, "the config file's path is longer than %zu bytes "
				    "(XTOP_CONFIG, XDG_CONFIG_HOME or HOME)", sizeof(c->path) - 1);
	if (c->path[0] && load_file(c, p && *p, err) < 0)
		return -1;
	for (k = 0; k < CFG_COUNT; k++) {
		const char *v = getenv(settings[k].env);

		if (!v || !*v)
			continue;
		if (check((enum config_key)k, v, settings[k].env, err) < 0)
			return -1;
		snprintf(c->value[k], sizeof(c->value[k]), "%s", v);
		snprintf(c->source[k], sizeof(c->source[k]), "%s", settings[k].env);
	}
	return 0;
}

const char *config_str(const struct config *c, enum config_key k)
{
	return c->value[k];
}

uint64_t config_num(const struct config *c, enum config_key k)
{
	return strtoull(c->value[k], NULL, 10);
}

uint64_t config_ms(const struct config *c, enum config_key k)
{
	uint64_t ms = 0;

	(void)options_seconds(c->value[k], (double)settings[k].max, &ms); /* checked on load */
	return ms;
}

void config_print(FILE *f, const struct config *c)
{
	size_t k;

	fprintf(f, "config file: %s (%s)\n", c->path[0] ? c->path : "none (no $HOME)",
		c->file_found ? "read" : "not there");
	fprintf(f, "each setting from: the command line, then $XTOP_*, then the file, then the "
		   "default\n\n");
	for (k = 0; k < CFG_COUNT; k++)
		fprintf(f, "%-14s = %-16s (%s)\n    %s; %s\n", settings[k].key, c->value[k],
			c->source[k], settings[k].help, settings[k].env);
}

int config_view_named(const char *s)
{
	int i;

	for (i = 0; i < 8; i++)
		if (!strcmp(s, config_views[i]))
			return i;
	return -1;
}

int config_view(const struct config *c)
{
	int v = config_view_named(c->value[CFG_VIEW]);

	return v < 0 ? 0 : v;
}

void config_capture_opts(const struct config *c, struct capture_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->duration_ms = config_num(c, CFG_DURATION);
	o->host_tracer = (unsigned)config_num(c, CFG_HOST_TRACER);
	o->device_tracer = (unsigned)config_num(c, CFG_DEVICE_TRACER);
	o->python_tracer = (unsigned)config_num(c, CFG_PYTHON_TRACER);
	o->deadline_ms = config_num(c, CFG_DEADLINE);
	o->logdir = config_str(c, CFG_LOGDIR);
}

void config_set(struct config *c, enum config_key k, const char *v, const char *source)
{
	snprintf(c->value[k], sizeof(c->value[k]), "%s", v);
	snprintf(c->source[k], sizeof(c->source[k]), "%s", source);
}
