/*
 * utf8: column counting and shortening of UTF-8 text for fixed-width
 * display. xtop shows no double-width characters, so a column is one
 * character (a lead byte and its continuation bytes); a broken sequence
 * counts one column per byte, as the drawing code shows it.
 */
#ifndef XT_UTF8_H
#define XT_UTF8_H

#include <stddef.h>

/* Bytes of the character at s (1 for a broken sequence; 0 at the end). */
size_t utf8_len(const char *s);
/* Columns s takes. */
int utf8_width(const char *s);
/* Columns the first n bytes of s take (fewer at its end): a word found
 * in a longer text, measured where it lies. */
int utf8_width_n(const char *s, size_t n);
/*
 * s fitted into w columns: unchanged when it fits, else its middle replaced
 * by mark (one column, e.g. "…" or "~"), keeping a third of the room for the
 * head and two thirds for the tail, where names that share a prefix differ
 * ("switch…ainT/3118839"). Writes into out (n bytes, always terminated) and
 * returns it. Can't fail.
 */
char *utf8_elide(char *out, size_t n, const char *s, int w, const char *mark);

#endif
