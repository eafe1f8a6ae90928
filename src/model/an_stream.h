/*
 * an_stream.h: what the stream pass's files share (an_stream.c, the pass;
 * an_streamsink.c, the launches' keys; an_streamjoin.c, a line cut in two
 * pieces), and the sink's and the plane hook's calls into the keys (an_sink.c,
 * analysis.c). Not part of the model's API; the rest of the analyses see
 * the pass through analysis_int.h (ops_line_stream).
 */
#ifndef XT_AN_STREAM_H
#define XT_AN_STREAM_H

#include "analysis_int.h"

/* An event with a group id, FLOPs or bytes of its own (most have none). */
struct stream_extra {
	size_t i;
	uint8_t has_group, has_flops, has_bytes;
	int64_t group;
	double flops, bytes;
};

/* The mask of stats the stream pass reads of a launch (the ones that
 * decide its op, and its accounting's). */
#define STREAM_IDENT                                                                       \
	(1ull << XS_HLO_OP | 1ull << XS_HLO_MODULE | 1ull << XS_PROGRAM_ID | 1ull << XS_TF_OP | \
	 1ull << XS_HLO_CATEGORY | 1ull << XS_LEVEL0)
#define STREAM_WANT                                                                       \
	(STREAM_IDENT | 1ull << XS_GROUP_ID | 1ull << XS_FLOPS | 1ull << XS_BYTES_ACCESSED | \
	 1ull << XS_KERNEL_DETAILS)
/*
 * an_streamsink.c: the launches of a stream line keyed by the bytes of the
 * stats the pass reads. What the pass makes of a launch (its op slot, the
 * accounting stats, the hlo_op text) is a function of its kernel metadata
 * and those bytes, so it is kept per key (struct memo) and a launch with a
 * known key decodes nothing. Launches differ mostly in their correlation,
 * which is read apart. While the line is decoded, the sink reads each
 * launch's key and correlation into its range's part (struct kern_part)
 * with the bytes in cache; without it the pass reads them from the event's
 * bytes, keeping one key per kernel metadata.
 */
#define MEMO_KEY XT_KEY_MAX
struct memo {
	uint8_t n, valid, from_hlo;
	uint8_t by_meta;     /* the launch named no op: its kernel's slot */
	uint32_t slot;
	struct acct_stats as;
	struct bytes_ref op; /* the hlo_op stat's text */
	uint8_t key[MEMO_KEY]; /* without the sink: the key (n bytes) */
};
struct kern_part;
struct kern_part *kern_part_new(void);
void kern_part_event(struct kern_part *kp, const struct xt_sink_ev *e);
void kern_part_free(struct kern_part *kp);
/* Launches that parts did not key, summed as they are freed (for tests). */
extern atomic_size_t kern_unkeyed;
/* The plane's key_ids (XT_KEY_IDS bytes) for the reader to read launch
 * keys; -1 when the plane cannot have them (its correlation id is also the
 * id of a stat the pass reads: two names for one id). */
int kern_key_ids(uint8_t *ids, const struct xt_plane *p);
/* A piece's view of the keys: the sink's parts of the line (when it was
 * not reordered) or the per-metadata keys. */
struct launch_keys {
	const struct xt_host *h;
	const struct xt_plane *p;
	const struct xt_line *l;
	const struct stat_want *want;
	int64_t corr_id;
	struct kern_part **parts;
	size_t nparts, at;
	struct memo **pmemo;    /* per part, per key id */
	int none;               /* no keys on this plane (kern_key_ids()) */
	struct memo *memo;      /* per kernel metadata, without the sink */
};
void launch_keys_init(struct launch_keys *lk, const struct xt_host *h, const struct xt_plane *p,
		      const struct xt_line *l, const struct stat_want *want,
		      const struct xt_sunk *sunk);
void launch_keys_fini(struct launch_keys *lk);
/* The memo for event i (not aggregated), ready to use when ->valid, else
 * for the caller to fill and mark valid; NULL when the event's key cannot
 * be read (stats framed otherwise than upstream writes them) or was not
 * keyed (a part of launches whose keys do not repeat). *corr gets
 * its correlation id (INT64_MIN: none); *corr_known is 0 when it must be
 * decoded from the event instead. */
struct memo *launch_memo(struct launch_keys *lk, size_t i, int64_t *corr, int *corr_known);

/* an_streamjoin.c: the entry of (op slot, kernel metadata mi) in lp->opk,
 * added when new. */
uint32_t op_kernel_entry(struct line_part *lp, uint32_t slot, uint32_t mi);
/* Merges the ops, kernels and kernel rows of the second
 * piece's part into lp, in its order; returns each of its slots' slot in
 * lp (the caller frees it). */
uint32_t *stream_join(struct line_part *lp, const struct line_part *second);
/* The order-dependent count of event i, for op slot (st starts as
 * { UINT32_MAX, 0, 0 }); x: its extra, or NULL. */
struct stream_order {
	uint32_t prev_slot, occ_first;
	int64_t prev_group;
};
void stream_order_event(struct stream_order *st, struct line_part *lp, const struct xt_plane *p,
			const struct xt_line *l, size_t i, uint32_t slot, int from_hlo,
			const struct stream_extra *x);
/* Counts, in line order, what depends on the events before: occurrences
 * (and their FLOPs and bytes) and the program runs, for the second piece
 * of a line cut at event cut, the first having counted its own as it went
 * and left st. rec: per event from cut on (rec[0] is event cut's) its slot
 * in the second piece | from_hlo << 31 (UINT32_MAX: none; REC_HELD: a
 * blit copy held for later, which parts the kernels around it), mapped to
 * the line's by map; ex: the second piece's extras. */
#define REC_HELD 0x7fffffffu
void stream_ordered(struct line_part *lp, const struct xt_plane *p, const struct xt_line *l,
		    struct stream_order *st, const uint32_t *rec, size_t cut, const uint32_t *map,
		    const struct stream_extra *ex, size_t nex);

#endif
