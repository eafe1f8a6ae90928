/*
 * term: see term.h. Signal handlers restore the terminal before anything
 * else (htop's CRT_handleSIGSEGV), then re-raise so the exit status and core
 * dumps are what the signal would give.
 */
#include "term.h"

#include "../util/xalloc.h"

#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct term term;
static volatile sig_atomic_t term_up;

void term_fini(void)
{
	if (term_up) {
		term_up = 0;
		endwin();
	}
}

static void (*on_signal_hook)(void);

void term_on_signal(void (*fn)(void))
{
	on_signal_hook = fn;
}

static void term_signal(int sig)
{
	term_fini();
	/* Asked to end (not a crash): the owner's files go first. */
	if (on_signal_hook && (sig == SIGINT || sig == SIGTERM || sig == SIGHUP))
		on_signal_hook();
	signal(sig, SIG_DFL);
	raise(sig);
}

static const struct term_glyphs glyphs_utf8 = {
	{ "\u2591", "\u2592", "\u2593" }, "\u25be", "\u25b8", "\u2500", "\u2502", "\u253c",
	"\u2588", "\u25b2", "\u2026", "\u25bc",
};
static const struct term_glyphs glyphs_ascii = {
	{ ".", ":", "#" }, "v", ">", "-", "|", "+", "#", "^", "~", "v",
};

static void term_setup(void);

int term_init(int ascii)
{
	const char *cs;

	setlocale(LC_ALL, "");
	cs = nl_langinfo(CODESET);
	term.ascii = ascii || !cs || strcmp(cs, "UTF-8");
	term.g = term.ascii ? glyphs_ascii : glyphs_utf8;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "xtop: the viewer needs a terminal (use xtop report)\n");
		return -1;
	}
	if (!newterm(NULL, stdout, stdin)) {
		fprintf(stderr, "xtop: cannot start the terminal (TERM=%s)\n",
			getenv("TERM") ? getenv("TERM") : "unset");
		return -1;
	}
	term_setup();
	return 0;
}

int term_init_headless(int rows, int cols)
{
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");

	setlocale(LC_ALL, "C.UTF-8");
	term.ascii = 0;
	term.g = glyphs_utf8;
	if (!out || !in || !newterm("xterm-256color", out, in))
		return -1;
	term_setup();
	resizeterm(rows, cols);
	return 0;
}

/* Colour pairs of a palette colour on itself (term_put_cells). */
#define SOLID0 (ROLE_EV0 + TERM_NEV)

static void term_setup(void)
{
	term_up = 1;
	xt_fatal_hook = term_fini;
	signal(SIGINT, term_signal);
	signal(SIGTERM, term_signal);
	signal(SIGHUP, term_signal);
	signal(SIGSEGV, term_signal);
	signal(SIGABRT, term_signal);
	signal(SIGBUS, term_signal);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	/* Home and End as tmux, screen, PuTTY and rxvt send them, whatever
	 * TERM's entry says (xterm's says ESC O H): else they arrive as ESC
	 * [ 1 ~, an Esc and three keys ("1" opened the overview; in a prompt
	 * the Esc closed it and the keys after it ran). */
	{
		static const char *const home[] = { "\033[1~", "\033[7~", "\033[H", "\033OH" };
		static const char *const end[] = { "\033[4~", "\033[8~", "\033[F", "\033OF" };
		size_t i;

		for (i = 0; i < sizeof(home) / sizeof(home[0]); i++) {
			define_key(home[i], KEY_HOME);
			define_key(end[i], KEY_END);
		}
	}
	curs_set(0);
	set_escdelay(25);
	/* The wheel zooms the timeline and scrolls tables. As in htop, the
	 * terminal then reports clicks too: Shift+drag still selects text. */
	mousemask(BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	term.colors = 0;
	if (!getenv("NO_COLOR") && has_colors() && start_color() == OK) {
		use_default_colors();
		term.colors = COLORS >= 256 ? 256 : 8;
	}
	if (term.colors) {
		/* 256 colours: soft distinct hues; 8: the basic ones but yellow
		 * and magenta, the selection's and the search match's (an event
		 * in them would read as selected or matched), and red, the
		 * errors'. Blue takes white text. */
		static const short ev256[TERM_NEV] = { 110, 150, 180, 216, 146, 187, 109, 174 };
		static const short ev8[TERM_NEV] = { COLOR_CYAN, COLOR_GREEN, COLOR_BLUE, COLOR_WHITE,
						     COLOR_CYAN, COLOR_GREEN, COLOR_BLUE, COLOR_WHITE };
		int i;

		init_pair(ROLE_TITLE, COLOR_BLACK, COLOR_CYAN);
		init_pair(ROLE_HINT_KEY, COLOR_BLACK, COLOR_CYAN);
		init_pair(ROLE_HINT, -1, -1);
		init_pair(ROLE_HEADER, COLOR_BLACK, COLOR_GREEN);
		init_pair(ROLE_SELECT, COLOR_BLACK, COLOR_YELLOW);
		init_pair(ROLE_DIM, term.colors == 256 ? 244 : COLOR_BLUE, -1);
		init_pair(ROLE_ERROR, COLOR_WHITE, COLOR_RED);
		init_pair(ROLE_DENSE, term.colors == 256 ? 245 : COLOR_WHITE, -1);
		init_pair(ROLE_MATCH, COLOR_BLACK, COLOR_MAGENTA);
		init_pair(ROLE_BAR, term.colors == 256 ? ev256[0] : COLOR_CYAN, -1);
		for (i = 0; i < TERM_NEV; i++) {
			short bg = term.colors == 256 ? ev256[i] : ev8[i];

			init_pair((short)(ROLE_EV0 + i),
				  term.colors != 256 && ev8[i] == COLOR_BLUE ? COLOR_WHITE : COLOR_BLACK,
				  bg);
			init_pair((short)(SOLID0 + i), bg, bg); /* term_put_cells */
		}
	}
}

int term_attr(enum term_role r)
{
	if (term.colors)
		return COLOR_PAIR(r) | (r == ROLE_TITLE || r == ROLE_HEADER ? A_BOLD : 0);
	switch (r) {
	case ROLE_TITLE:
	case ROLE_HINT_KEY:
	case ROLE_SELECT:
	case ROLE_MATCH:
	case ROLE_ERROR:
		return A_REVERSE;
	case ROLE_HEADER:
		return A_BOLD | A_UNDERLINE;
	case ROLE_DIM:
		return A_DIM;
	default:
		return r >= ROLE_EV0 ? A_REVERSE : A_NORMAL;
	}
}

int term_event_attr(const char *name)
{
	unsigned h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return term_attr((enum term_role)(ROLE_EV0 + h % TERM_NEV));
}

void term_put_cells(int y, int x, const struct cellrow *r)
{
	int k, maxx = COLS - x;

	if (y < 0 || y >= LINES || x < 0)
		return;
	move(y, x);
	for (k = 0; k < r->w && k < maxx; k++) {
		const struct cell *c = &r->c[k];
		int attr = term_attr((enum term_role)c->role) | (c->flags & CELL_BOLD ? A_BOLD : 0);

		/* A blank in a palette colour (a bar, a chart, an event's box)
		 * is drawn as a mark in its own background colour, not as a
		 * blank: ncurses leaves runs of coloured blanks to the
		 * terminal's erase in that colour (bce, EL and ECH), which tmux
		 * 3.3 under TERM=xterm-256color does in the default colour.
		 * The steps' bars lost their end (the TPU's H2D, half of each
		 * step) and the memory chart was blank. */
		if (term.colors && (!c->len || (c->len == 1 && c->ch[0] == ' ')) &&
		    c->role >= ROLE_EV0 && c->role < ROLE_EV0 + TERM_NEV) {
			attr = COLOR_PAIR(SOLID0 + c->role - ROLE_EV0);
			attron(attr);
			addch('#');
			attroff(attr);
			continue;
		}
		attron(attr);
		if (c->len > 1 && term.ascii)
			addch('?');
		else if (c->len)
			addnstr(c->ch, c->len);
		else
			addch(' ');
		attroff(attr);
	}
}
