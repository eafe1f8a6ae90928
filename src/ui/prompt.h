/*
 * prompt: the one-line editor under the views (search, filter, find in
 * text), with a history per kind of prompt. A prompt opens empty (a new
 * search is typed from scratch, never appended to the last one); Up and
 * Down walk the history of that kind (the line being typed comes back after
 * the newest entry). Its keys are a table (prompt_keys), which the help
 * screen lists.
 *
 * Ownership: the prompt owns its history; prompt_fini() releases it. A
 * zeroed struct prompt is closed and has no history.
 */
#ifndef XT_PROMPT_H
#define XT_PROMPT_H

#include <stddef.h>

#define PROMPT_MAX 256
#define PROMPT_HIST 50

enum prompt_kind { PROMPT_NONE = 0, PROMPT_SEARCH, PROMPT_FILTER, PROMPT_FIND, PROMPT_NKINDS };

enum prompt_result {
	PROMPT_EDIT,   /* still editing */
	PROMPT_DONE,   /* Enter: the line is in buf (and in the history) */
	PROMPT_CANCEL, /* Esc: closed, nothing done */
};

struct prompt {
	enum prompt_kind kind;        /* PROMPT_NONE: closed */
	char buf[PROMPT_MAX];
	size_t len, cur;              /* bytes; the cursor is a byte offset */
	char *hist[PROMPT_NKINDS][PROMPT_HIST]; /* oldest first; owned */
	size_t nhist[PROMPT_NKINDS];
	long hpos;                    /* the history entry shown; -1: the new line */
	char typed[PROMPT_MAX];       /* the new line while history is shown */
};

/* The prompt's keys: prompt_key() dispatches on this table and the help
 * screen lists it. */
struct prompt_keyhelp {
	int key;             /* curses key code or byte */
	int action;          /* the prompt's own action (prompt.c) */
	const char *keyname; /* NULL: an alias, not listed */
	const char *help;
};
extern const struct prompt_keyhelp prompt_keys[];
extern const unsigned prompt_nkeys;

/* Opens an empty prompt of that kind. */
void prompt_open(struct prompt *p, enum prompt_kind kind);
/* Edits with key c (a curses key code or a byte); returns enum prompt_result.
 * On PROMPT_DONE and PROMPT_CANCEL the prompt is closed (kind is reset; buf
 * keeps the line for the caller). */
int prompt_key(struct prompt *p, int c);
/* The label shown before the line ("search: "). */
const char *prompt_label(const struct prompt *p);
void prompt_fini(struct prompt *p);

#endif
