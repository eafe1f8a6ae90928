/*
 * error: the second kind of failure (style rule 12b). Functions that can
 * fail on bad input return 0 or a negative XT_E* code and fill a
 * caller-supplied struct xt_error with one human line: lowercase, no full
 * stop, naming the file where there is one.
 */
#ifndef XT_ERROR_H
#define XT_ERROR_H

enum xt_err {
	XT_OK = 0,
	XT_EIO = -1,      /* cannot open/read/write */
	XT_EFORMAT = -2,  /* not a valid XSpace / gzip stream */
	XT_ENOENT = -3,   /* nothing to open at that path */
	XT_ELIMIT = -4,   /* input exceeds a documented limit of xtop */
	XT_EUSAGE = -5,   /* bad arguments */
	XT_ERETRY = -6,   /* xplane_load: load again with exact_peek (see there) */
	XT_ECANCEL = -7,  /* a load was asked to stop */
};

struct xt_error {
	char msg[512];
};

/* Formats msg into err (if err is non-NULL) and returns code. Can't fail. */
int xt_error_set(struct xt_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
