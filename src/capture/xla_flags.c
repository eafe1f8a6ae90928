/* xla_flags: see xla_flags.h. */
#include "xla_flags.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/xalloc.h"

/* XLA's CommandBufferCmdType names in its order: a set of kinds is a mask. */
static const char *const kinds[] = {
	"INVALID", "FUSION", "CUBLAS", "CUDNN", "COLLECTIVES", "CONDITIONAL",
	"WHILE", "CUSTOM_CALL", "CUBLASLT", "DYNAMIC_SLICE_FUSION",
};
#define KIND(i) (1u << (i))
#define KIND_INVALID KIND(0)
#define KIND_OTHER KIND(10) /* a kind this file does not know */
#define KINDS_DEFAULT (KIND(1) | KIND(2) | KIND(3) | KIND(7) | KIND(8) | KIND(9))

static const char CB[] = "--xla_gpu_enable_command_buffer=", GL[] = "--xla_gpu_graph_level=";

struct reading {
	unsigned kinds; /* what command buffers run as graphs */
	int set;	/* a flag above was given at all */
};

/* XLA's blanks between flags (not absl's, which also strip \v \f). */
static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static size_t skip_blanks(const char *s, size_t len, size_t i)
{
	while (i < len && blank(s[i]))
		i++;
	return i;
}

/* One kind's mask, by name in any case; 0 for an empty name (XLA rejects
 * it, keeping what it changed before). */
static unsigned kind_of(const char *s, size_t n)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i]) == n && !strncasecmp(kinds[i], s, n))
			return KIND(i);
	return KIND_OTHER;
}

/* The next comma-separated value of [*p, end), blanks stripped, into
 * [*v, *v + *n), as absl::StrSplit and StripAsciiWhitespace give them;
 * 0 after the last. */
static int next_value(const char **p, const char *end, const char **v, size_t *n)
{
	const char *b = *p, *e;

	if (!b)
		return 0;
	e = memchr(b, ',', (size_t)(end - b));
	*p = e ? e + 1 : NULL;
	if (!e)
		e = end;
	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	*v = b;
	*n = (size_t)(e - b);
	return 1;
}

/* --xla_gpu_enable_command_buffer=v: empty clears the set; a list of kinds
 * replaces it; a list of +KIND/-KIND changes it; a mix (which XLA refuses)
 * changes nothing. */
static void set_kinds(unsigned *set, const char *s)
{
	const char *end = s + strlen(s), *p, *v;
	size_t n, total = 0, incr = 0;
	unsigned k = *set, after_first = 0;
	int first = 1;

	if (s == end) {
		*set = 0;
		return;
	}
	for (p = s; next_value(&p, end, &v, &n);) {
		total++;
		incr += n && (*v == '+' || *v == '-');
	}
	if (incr && incr != total)
		return;
	for (p = s; next_value(&p, end, &v, &n);) {
		unsigned bit;

		if (!n)
			continue;
		if (*v == '+' || *v == '-') {
			if (!(bit = kind_of(v + 1, n - 1)))
				break;
			if (*v == '+')
				k |= bit;
			else if (bit != KIND_OTHER)
				k &= ~bit;
			if (first)
				after_first = k;
		} else {
			if (first)
				k = 0;
			if (!(bit = kind_of(v, n)))
				break;
			k |= bit;
		}
		first = 0;
	}
	/* Older XLA applied only the first change of a +/- list: one that
	 * leaves nothing only after its second leaves kinds on there. Read
	 * as on, which errs towards the warning. */
	if (incr >= 2 && !(k & ~KIND_INVALID) && (after_first & ~KIND_INVALID))
		k = KIND_OTHER;
	*set = k;
}

/* --xla_gpu_graph_level=v, read as absl::SimpleAtoi reads an int32; a value
 * it rejects changes nothing. */
static void set_level(unsigned *set, const char *s)
{
	long long level = 0;
	int neg = 0, digits = 0;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (; isdigit((unsigned char)*s); s++, digits++)
		if ((level = level * 10 + (*s - '0')) > (long long)INT_MAX + 1)
			return;
	while (isspace((unsigned char)*s))
		s++;
	if (!digits || *s || (!neg && level > INT_MAX))
		return;
	if (neg)
		level = -level;
	*set = (level >= 1 ? KIND(1) : 0) | (level >= 2 ? KIND(2) : 0) | (level >= 3 ? KIND(3) : 0);
}

/* A character of a flag's name, as XLA scans them (its strchr("-_", c)
 * also takes the NUL byte). */
static int name_char(char c)
{
	return !(c & 0x80) && (c == '-' || c == '_' || c == '\0' || isalnum((unsigned char)c));
}

/* Flags [s, s + len) as XLA reads them: words that start with '-', up to
 * the first that does not; a value quoted right after '=' loses its quotes
 * (a backslash escapes in double quotes); a word ends at its first NUL. */
static struct reading flags_read(const char *s, size_t len)
{
	struct reading r = { KINDS_DEFAULT, 0 };
	char *w = xmalloc(len + 1);
	size_t b = skip_blanks(s, len, 0);

	while (b < len && s[b] == '-') {
		size_t e = b, k;

		while (e < len && name_char(s[e]))
			e++;
		if (e + 1 < len && s[e] == '=' && (s[e + 1] == '\'' || s[e + 1] == '"')) {
			char q = s[e + 1];

			k = e + 1 - b;
			memcpy(w, s + b, k);
			for (e += 2; e < len && s[e] != q; e++) {
				if (q == '"' && s[e] == '\\' && e + 1 < len)
					e++;
				w[k++] = s[e];
			}
			if (e < len)
				e++;
		} else {
			while (e < len && !blank(s[e]))
				e++;
			k = e - b;
			memcpy(w, s + b, k);
		}
		w[k] = '\0';
		if (!strcmp(w, "--"))
			break; /* the rest are not flags to XLA */
		if (!strncmp(w, CB, sizeof(CB) - 1)) {
			set_kinds(&r.kinds, w + sizeof(CB) - 1);
			r.set = 1;
		} else if (!strncmp(w, GL, sizeof(GL) - 1)) {
			set_level(&r.kinds, w + sizeof(GL) - 1);
			r.set = 1;
		}
		b = skip_blanks(s, len, e);
	}
	free(w);
	return r;
}

/* XLA takes a value whose first non-blank character is not '-' for the
 * name of a flag file. */
static int names_file(const char *v)
{
	return v[skip_blanks(v, strlen(v), 0)] != '-';
}

/* Flag file `name` (as XLA opens it: blanks and all) as process pid sees it
 * (0: this one; an absolute path through /proc/PID/root, whose own absolute
 * symlinks still resolve in xtop's root), whole, malloc'd, with *len ("" for
 * a directory, as XLA reads one); NULL when it is not a regular file that
 * can be read whole, or is longer than XLA_FLAGS_FILE_MAX. Opened without
 * blocking: a FIFO there must not hang a capture. */
static char *flags_file(const char *name, pid_t pid, size_t *len)
{
	char path[PATH_MAX + 64], *buf;
	struct stat st;
	size_t got = 0;
	ssize_t k;
	int fd, w;

	if (pid > 0)
		w = snprintf(path, sizeof(path), "/proc/%d/%s%s", (int)pid,
			     name[0] == '/' ? "root" : "cwd/", name);
	else
		w = snprintf(path, sizeof(path), "%s", name);
	if (w < 0 || (size_t)w >= sizeof(path))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) ||
	    st.st_size > XLA_FLAGS_FILE_MAX) {
		close(fd);
		return NULL;
	}
	buf = xmalloc(XLA_FLAGS_FILE_MAX + 1);
	/* A directory opens and reads as nothing to XLA's fopen/fread. */
	while (S_ISREG(st.st_mode) && got <= XLA_FLAGS_FILE_MAX &&
	       (k = read(fd, buf + got, XLA_FLAGS_FILE_MAX + 1 - got)) != 0) {
		if (k < 0) {
			got = XLA_FLAGS_FILE_MAX + 1; /* not read whole: unknown */
			break;
		}
		got += (size_t)k;
	}
	close(fd);
	if (got > XLA_FLAGS_FILE_MAX) {
		free(buf);
		return NULL;
	}
	buf[got] = '\0';
	*len = got;
	return buf;
}

/* The flags value v stands for, with *len: v itself, or the content of
 * the flag file it names (*file, to free; NULL else); NULL when that file
 * cannot be read whole. */
static const char *flags_text(const char *v, pid_t pid, size_t *len, char **file)
{
	*file = NULL;
	if (!names_file(v)) {
		*len = strlen(v);
		return v;
	}
	return *file = flags_file(v, pid, len);
}

int xla_flags_cmdbuf_on(const char *v, pid_t pid)
{
	struct reading r;
	const char *text;
	char *file;
	size_t len;

	if (!v || !*v || !(text = flags_text(v, pid, &len, &file)))
		return 1;
	r = flags_read(text, len);
	free(file);
	return (r.kinds & ~KIND_INVALID) != 0;
}

char *xla_flags_cmdbuf_off(const char *cur, const char *off, int *unread)
{
	const char *text;
	char *file, *v;
	size_t len, n;

	*unread = 0;
	if (!cur || !*cur)
		return xstrdup(off);
	/* A NUL byte of a flag file cannot go into the environment. */
	if (!(text = flags_text(cur, 0, &len, &file)) || (file && memchr(file, '\0', len))) {
		free(file);
		*unread = 1;
		return NULL;
	}
	if (flags_read(text, len).set) {
		free(file);
		return NULL;
	}
	n = strlen(off) + len + 2;
	v = xmalloc(n);
	snprintf(v, n, "%s %s", off, text);
	free(file);
	return v;
}
