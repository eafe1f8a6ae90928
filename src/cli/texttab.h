/*
 * texttab: fixed-width text tables for the report. Columns are data (a
 * header, a width, an alignment and a drop priority); a table fits a given
 * width by dropping the least useful columns, and its one flexible column
 * takes what is left, shortened in the middle so that the distinguishing
 * tail of a name (a port, a layer number, a suffix) stays readable.
 */
#ifndef XT_TEXTTAB_H
#define XT_TEXTTAB_H

#include <stddef.h>

#include "../util/strbuf.h"

#define TT_MAX_COLS 16

struct tt_col {
	const char *head;
	int width;  /* 0: the flexible column (at most one, last) */
	int right;  /* right-aligned */
	int drop;   /* dropped first when the table is too wide (0: never) */
};

struct texttab {
	const struct tt_col *cols;
	size_t ncols;
	int show[TT_MAX_COLS];
	int width;  /* of the whole line; 0 = unlimited */
	int indent;
	int flex_min;
	int over;   /* the row being written has a figure past its column */
};

/* Decides which columns show within width (0 = all, the flexible column
 * unshortened). */
void tt_init(struct texttab *t, const struct tt_col *cols, size_t n, int width, int indent,
	     int flex_min);
/* Appends the header line. */
void tt_head(struct texttab *t, struct strbuf *o);
/* Appends one row; cells[i] is column i's text (unused for hidden ones). */
void tt_row(struct texttab *t, struct strbuf *o, const char *const *cells);

/* The flexible column's texts for n rows, each fitted to the column as a
 * row would show it, names that would read alike told apart
 * (utf8_elide_apart); whole when the table has no width. Free with
 * tt_fit_free(). */
char **tt_fit_flex(const struct texttab *t, const char *const *texts, size_t n);
/* Frees n strings (NULL ones too) and their array: tt_fit_flex()'s, or the
 * texts a caller built for it. */
void tt_fit_free(char **fit, size_t n);
/* The flexible column's width in display columns; 0 when the table has no
 * width (texts are whole). */
int tt_flex_width(const struct texttab *t);
/* Copies s into buf (size n) shortened to at most w display columns by
 * eliding its middle with "..", keeping more of the tail; w <= 0 copies it
 * whole. Counts a UTF-8 sequence as one column. Returns buf. */
char *tt_elide(char *buf, size_t n, const char *s, int w);
/* Appends text wrapped at spaces to width (0: one line) after a first-line
 * prefix, continuation lines indented by indent; a number keeps its unit
 * on its line ("2.03 ms", "0 B"). Ends the line. */
void tt_wrap(struct strbuf *o, const char *prefix, const char *text, int indent, int width);
/* Display columns of s (UTF-8 sequences count one). */
int tt_cols(const char *s);

/* The width the report fits: $COLUMNS, else the terminal of stdout, else
 * 80; 0 (no limit) when wide is set. */
int tt_output_width(int wide);

#endif
