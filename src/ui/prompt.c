/* prompt: see prompt.h. Keys as in readline and most shells. */
#include "prompt.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

#define CTRL(c) ((c) & 0x1f)

enum pk_action { PK_DONE = 1, PK_CANCEL, PK_OLDER, PK_NEWER, PK_LEFT, PK_RIGHT, PK_HOME, PK_END,
		 PK_BACKSPACE, PK_DELETE, PK_KILL_LINE, PK_KILL_WORD };

/* The keys, with their help (NULL for aliases): prompt_key() dispatches
 * on this table and the help screen lists it. */
const struct prompt_keyhelp prompt_keys[] = {
	{ '\n', PK_DONE, "Enter", "run the search, filter or find" },
	{ '\r', PK_DONE, NULL, NULL },
	{ KEY_ENTER, PK_DONE, NULL, NULL },
	{ 27, PK_CANCEL, "Esc", "close the prompt" },
	{ KEY_UP, PK_OLDER, "Up", "older entry of this prompt's history" },
	{ KEY_DOWN, PK_NEWER, "Down", "newer entry (after the newest: what was typed)" },
	{ KEY_LEFT, PK_LEFT, "Left", "move the cursor left" },
	{ KEY_RIGHT, PK_RIGHT, "Right", "move the cursor right" },
	{ KEY_HOME, PK_HOME, "Home", "start of the line (also ^A)" },
	{ CTRL('a'), PK_HOME, NULL, NULL },
	{ KEY_END, PK_END, "End", "end of the line (also ^E)" },
	{ CTRL('e'), PK_END, NULL, NULL },
	{ KEY_BACKSPACE, PK_BACKSPACE, "Bksp", "delete before the cursor" },
	{ 127, PK_BACKSPACE, NULL, NULL },
	{ 8, PK_BACKSPACE, NULL, NULL },
	{ KEY_DC, PK_DELETE, "Del", "delete under the cursor" },
	{ CTRL('u'), PK_KILL_LINE, "^U", "clear the line" },
	{ CTRL('w'), PK_KILL_WORD, "^W", "delete the word before the cursor" },
};
const unsigned prompt_nkeys = sizeof(prompt_keys) / sizeof(prompt_keys[0]);

void prompt_open(struct prompt *p, enum prompt_kind kind)
{
	p->kind = kind;
	p->buf[0] = '\0';
	p->len = p->cur = 0;
	p->hpos = -1;
	p->typed[0] = '\0';
}

const char *prompt_label(const struct prompt *p)
{
	switch (p->kind) {
	case PROMPT_SEARCH:
		return "search: ";
	case PROMPT_FILTER:
		return "filter: ";
	case PROMPT_FIND:
		return "find: ";
	default:
		return "";
	}
}

static void set_line(struct prompt *p, const char *s)
{
	snprintf(p->buf, sizeof(p->buf), "%s", s);
	p->len = p->cur = strlen(p->buf);
}

static void remember(struct prompt *p)
{
	char **h = p->hist[p->kind];
	size_t *n = &p->nhist[p->kind];

	if (!p->buf[0] || (*n && !strcmp(h[*n - 1], p->buf)))
		return;
	if (*n == PROMPT_HIST) {
		free(h[0]);
		memmove(h, h + 1, (PROMPT_HIST - 1) * sizeof(char *));
		(*n)--;
	}
	h[(*n)++] = xstrdup(p->buf);
}

static void history(struct prompt *p, int older)
{
	long n = (long)p->nhist[p->kind];

	if (!n)
		return;
	if (p->hpos < 0) {
		if (!older)
			return;
		snprintf(p->typed, sizeof(p->typed), "%s", p->buf);
		p->hpos = n - 1;
	} else if (older) {
		if (p->hpos > 0)
			p->hpos--;
	} else if (++p->hpos >= n) {
		p->hpos = -1;
		set_line(p, p->typed);
		return;
	}
	set_line(p, p->hist[p->kind][p->hpos]);
}

static void delete_range(struct prompt *p, size_t from, size_t to)
{
	memmove(p->buf + from, p->buf + to, p->len - to + 1);
	p->len -= to - from;
	p->cur = from;
}

/* The start of the character before / after byte k (UTF-8: continuation
 * bytes are 10xxxxxx), so that the cursor and deletions move by letters. */
static size_t char_before(const struct prompt *p, size_t k)
{
	if (k)
		k--;
	while (k && ((unsigned char)p->buf[k] & 0xc0) == 0x80)
		k--;
	return k;
}

static size_t char_after(const struct prompt *p, size_t k)
{
	if (k < p->len)
		k++;
	while (k < p->len && ((unsigned char)p->buf[k] & 0xc0) == 0x80)
		k++;
	return k;
}

int prompt_key(struct prompt *p, int c)
{
	enum pk_action act = 0;
	size_t i;

	for (i = 0; i < prompt_nkeys; i++)
		if (prompt_keys[i].key == c)
			act = (enum pk_action)prompt_keys[i].action;
	switch (act) {
	case PK_DONE:
		remember(p);
		p->kind = PROMPT_NONE;
		return PROMPT_DONE;
	case PK_CANCEL:
		p->kind = PROMPT_NONE;
		return PROMPT_CANCEL;
	case PK_OLDER:
	case PK_NEWER:
		history(p, act == PK_OLDER);
		break;
	case PK_LEFT:
		p->cur = char_before(p, p->cur);
		break;
	case PK_RIGHT:
		p->cur = char_after(p, p->cur);
		break;
	case PK_HOME:
		p->cur = 0;
		break;
	case PK_END:
		p->cur = p->len;
		break;
	case PK_BACKSPACE:
		if (p->cur)
			delete_range(p, char_before(p, p->cur), p->cur);
		break;
	case PK_DELETE:
		if (p->cur < p->len)
			delete_range(p, p->cur, char_after(p, p->cur));
		break;
	case PK_KILL_LINE:
		delete_range(p, 0, p->len);
		break;
	case PK_KILL_WORD: {
		size_t k = p->cur;

		while (k && p->buf[k - 1] == ' ')
			k--;
		while (k && p->buf[k - 1] != ' ')
			k--;
		delete_range(p, k, p->cur);
		break;
	}
	default:
		/* Printable ASCII, and the bytes of a UTF-8 letter as the
		 * terminal sends them one by one ("é" was dropped), are
		 * inserted at the cursor. */
		if (((c >= 0x20 && c < 0x7f) || (c >= 0x80 && c <= 0xff)) &&
		    p->len + 1 < sizeof(p->buf)) {
			memmove(p->buf + p->cur + 1, p->buf + p->cur, p->len - p->cur + 1);
			p->buf[p->cur++] = (char)c;
			p->len++;
		}
		break;
	}
	return PROMPT_EDIT;
}

void prompt_fini(struct prompt *p)
{
	int k;
	size_t i;

	for (k = 0; k < PROMPT_NKINDS; k++)
		for (i = 0; i < p->nhist[k]; i++)
			free(p->hist[k][i]);
	memset(p, 0, sizeof(*p));
}
