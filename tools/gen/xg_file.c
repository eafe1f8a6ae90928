/*
 * xg_file.c - temporary-then-rename output files of xtop-gen (see
 * xg_file.h).
 */
#include "xg_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xg_die.h"

/* Opens a temporary file beside path; the caller renames it into place, so
 * readers never see a partial file. */
int xg_file_open_tmp(const char *path, char **tmp)
{
	size_t n = strlen(path) + 16;
	*tmp = malloc(n);
	if (!*tmp)
		xg_die("out of memory");
	snprintf(*tmp, n, "%s.tmpXXXXXX", path);
	int fd = mkstemp(*tmp);
	if (fd < 0)
		xg_die("cannot create a temporary file beside %s: %s", path, strerror(errno));
	mode_t um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) != 0) {
		unlink(*tmp);
		xg_die("cannot set permissions of %s: %s", *tmp, strerror(errno));
	}
	return fd;
}

void xg_file_commit_tmp(char *tmp, const char *path, int failed, int err)
{
	if (failed || rename(tmp, path) != 0) {
		if (!failed)
			err = errno;
		unlink(tmp);
		xg_die("cannot write %s: %s", path, strerror(err));
	}
	free(tmp);
}
