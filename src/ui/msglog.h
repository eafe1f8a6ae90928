/*
 * msglog: the status line's history. Every message the viewer shows in its
 * status line is kept here in full (the status line cuts it at the screen
 * width); `m` lists the recent ones, wrapped, newest last.
 *
 * Ownership: the log owns its messages; msglog_fini() releases them. A
 * zeroed struct msglog is an empty log.
 */
#ifndef XT_MSGLOG_H
#define XT_MSGLOG_H

#include <stddef.h>
#include <time.h>

#define MSGLOG_MAX 200 /* older messages are dropped */

struct msglog_entry {
	time_t when;
	int err;        /* 1: an error */
	char *text;     /* owned */
	unsigned times; /* shown this many times in a row */
};

struct msglog {
	struct msglog_entry e[MSGLOG_MAX]; /* a ring: oldest at first */
	size_t first, n;
};

/* Adds a message (a repeat of the last one only counts it again). */
void msglog_add(struct msglog *l, int err, const char *text);
/* The i-th message, oldest first (i < l->n). */
const struct msglog_entry *msglog_get(const struct msglog *l, size_t i);
void msglog_fini(struct msglog *l);

#endif
