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
/*
 * For a column of k texts s[], each already elided into out[i] (n bytes,
 * w columns): where two come out alike though the texts differ, each is
 * elided again with the head the plain elision had, a window on where it
 * differs from the text most like it, between two marks, and a shorter
 * tail, so rows tell apart ("replica_6/be…layer_17/self_at…Uniform" beside
 * "…layer_22/…", where all read "replica_6/be…om_uniform/RandomUniform").
 * Texts still alike then also show where they differ first (a second
 * window: the replica before the layer), or where they differ from their
 * neighbours again when that tells more of them apart (one text unlike
 * the rest: the encoder's own dropout beside the layers'), and texts alike
 * even then where they differ from the text most like them among those (a
 * third: the dropout after the layer; a fourth, again, or where the kind
 * pass showed what kind of text it is). A window that would run into the
 * tail starts the tail instead. Texts that are the same, and columns too
 * narrow for a window, keep their elision; none that read apart comes to
 * read alike, and out[i] is only ever replaced whole. O(k log k) string
 * compares, and g² integer steps for a group of g alike (g <= 4096).
 * Best effort: without memory nothing changes.
 */
void utf8_elide_apart(char *const *out, size_t n, const char *const *s, size_t k, int w,
		      const char *mark);

#endif
