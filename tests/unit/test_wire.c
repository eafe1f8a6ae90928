/*
 * test_wire: the decoder's readers on hand-built bytes. rd_varint at every
 * length, with and without readable bytes past the end; an XEvent's fields
 * (dec_event) in upstream's order, in any other, repeated (the last value
 * wins, as protobuf reads them), with fields it does not know and cut
 * short; the stats of a message (wire_next_stat) in upstream's shape and
 * framed otherwise, up to a malformed end.
 */
#include "testutil.h"

#include "model/line_event.h"
#include "model/wire.h"

/* A plane that watches no stat and keys no event. */
static const struct xt_plane plane0;

/* Tag byte t, then varint v, at b + *n. */
static void put_field(uint8_t *b, size_t *n, uint8_t t, uint64_t v)
{
	b[(*n)++] = t;
	*n += tu_put_varint(b + *n, v);
}

static void test_varint_every_length(void **state)
{
	uint8_t buf[64];
	unsigned len;

	(void)state;
	for (len = 1; len <= 10; len++) {
		/* The largest value of len bytes, and the smallest. */
		uint64_t vals[2];
		int k;

		vals[0] = len == 10 ? UINT64_MAX : (UINT64_C(1) << (7 * len)) - 1;
		vals[1] = len == 1 ? 0 : UINT64_C(1) << (7 * (len - 1));
		for (k = 0; k < 2; k++) {
			size_t n;
			const uint8_t *p;
			int bad = 0;

			memset(buf, 0xff, sizeof(buf));
			n = tu_put_varint(buf, vals[k]);
			assert_int_equal(n, len);
			/* Only the varint readable. */
			p = buf;
			assert_true(rd_varint(&p, buf + n, buf + n, &bad) == vals[k]);
			assert_int_equal(bad, 0);
			assert_ptr_equal(p, buf + n);
			/* Bytes past the end readable (they are 0xff): the same. */
			p = buf;
			assert_true(rd_varint(&p, buf + n, buf + sizeof(buf), &bad) == vals[k]);
			assert_int_equal(bad, 0);
			assert_ptr_equal(p, buf + n);
			/* Cut one byte short: malformed, the cursor at the end. */
			if (n > 1) {
				p = buf;
				(void)rd_varint(&p, buf + n - 1, buf + sizeof(buf), &bad);
				assert_int_equal(bad, 1);
				assert_ptr_equal(p, buf + n - 1);
				bad = 0;
			}
		}
	}
	/* Eleven bytes with the continuation bit: malformed. */
	{
		const uint8_t *p = buf;
		int bad = 0;

		memset(buf, 0x80, 11);
		buf[11] = 0x01;
		(void)rd_varint(&p, buf + 12, buf + sizeof(buf), &bad);
		assert_int_equal(bad, 1);
	}
}

/* Decodes b[0, n) as an event, nothing readable past it. */
static int dec(const uint8_t *b, size_t n, struct dec_ev *d)
{
	return dec_event(&plane0, b, b + n, b + n, d, 0);
}

static void test_event_fields_any_order(void **state)
{
	const uint64_t off = UINT64_C(19500542619500), dur = 913739440906;
	uint8_t b[256];
	size_t n = 0, i;
	struct dec_ev d;

	(void)state;
	/* Upstream's order, with two stats. */
	put_field(b, &n, 0x08, 300);
	put_field(b, &n, 0x10, off);
	put_field(b, &n, 0x18, dur);
	b[n++] = 0x22, b[n++] = 3, b[n++] = 0x08, b[n++] = 0x01, b[n++] = 0x00;
	b[n++] = 0x22, b[n++] = 2, b[n++] = 0x08, b[n++] = 0x02;
	assert_int_equal(dec(b, n, &d), 0);
	assert_true(d.mid == 300 && d.off == off && d.dur == dur);
	assert_int_equal(d.agg, 0);
	assert_int_equal(d.watched, 0);

	/* Reversed, the stat first: the same. */
	n = 0;
	b[n++] = 0x22, b[n++] = 2, b[n++] = 0x08, b[n++] = 0x02;
	put_field(b, &n, 0x18, dur);
	put_field(b, &n, 0x10, off);
	put_field(b, &n, 0x08, 300);
	assert_int_equal(dec(b, n, &d), 0);
	assert_true(d.mid == 300 && d.off == off && d.dur == dur && !d.agg);

	/* Repeated: the last wins, also between offset_ps and
	 * num_occurrences (field 5, an aggregated event's count). */
	n = 0;
	put_field(b, &n, 0x08, 1);
	put_field(b, &n, 0x10, 5);
	put_field(b, &n, 0x18, 6);
	put_field(b, &n, 0x08, 2);
	put_field(b, &n, 0x28, 7);
	assert_int_equal(dec(b, n, &d), 0);
	assert_true(d.mid == 2 && d.off == 7 && d.dur == 6 && d.agg == 1);
	put_field(b, &n, 0x10, 9);
	assert_int_equal(dec(b, n, &d), 0);
	assert_true(d.off == 9 && d.agg == 0);

	/* Aggregated in upstream's order. */
	n = 0;
	put_field(b, &n, 0x08, 4);
	put_field(b, &n, 0x28, 12);
	put_field(b, &n, 0x18, 40);
	assert_int_equal(dec(b, n, &d), 0);
	assert_true(d.mid == 4 && d.off == 12 && d.dur == 40 && d.agg == 1);

	/* Fields it does not know, before and after: a varint field 6, a
	 * fixed64 field 7, a field 16 (a two-byte tag), a fixed32 field 8. */
	n = 0;
	put_field(b, &n, 0x30, 99);
	put_field(b, &n, 0x08, 8);
	put_field(b, &n, 0x10, off);
	b[n++] = 0x39;
	for (i = 0; i < 8; i++)
		b[n++] = 0x10; /* looks like offset_ps tags: must be skipped */
	b[n++] = 0x80, b[n++] = 0x01, b[n++] = 0x05;
	put_field(b, &n, 0x18, dur);
	b[n++] = 0x45, b[n++] = 1, b[n++] = 2, b[n++] = 3, b[n++] = 4;
	assert_int_equal(dec(b, n, &d), 0);
	assert_true(d.mid == 8 && d.off == off && d.dur == dur && !d.agg);

	/* A stat of 200 bytes (a two-byte length). */
	n = 0;
	put_field(b, &n, 0x08, 3);
	b[n++] = 0x22, b[n++] = 0xc8, b[n++] = 0x01;
	memset(b + n, 0x22, 200);
	n += 200;
	put_field(b, &n, 0x18, 17);
	assert_int_equal(dec(b, n, &d), 0);
	assert_true(d.mid == 3 && d.dur == 17);
}

static void test_event_cut_short(void **state)
{
	uint8_t b[64];
	size_t n = 0, cut, ends[3];
	struct dec_ev d;

	(void)state;
	put_field(b, &n, 0x08, 300);
	ends[0] = n;
	put_field(b, &n, 0x10, UINT64_C(19500542619500));
	ends[1] = n;
	put_field(b, &n, 0x18, 913739440906);
	ends[2] = n;
	b[n++] = 0x22, b[n++] = 3, b[n++] = 0x08, b[n++] = 0x01, b[n++] = 0x00;
	assert_int_equal(dec(b, n, &d), 0);
	/* Every cut inside a field is malformed; one between fields is an
	 * event without what follows. */
	for (cut = 1; cut < n; cut++) {
		int between = cut == ends[0] || cut == ends[1] || cut == ends[2];

		assert_int_equal(dec(b, cut, &d), between ? 0 : -1);
	}
	/* A stat longer than what is left. */
	n = 0;
	put_field(b, &n, 0x08, 1);
	b[n++] = 0x22, b[n++] = 9, b[n++] = 0x08, b[n++] = 0x01;
	assert_int_equal(dec(b, n, &d), -1);
	/* A group (wire type 3): malformed. */
	n = 0;
	put_field(b, &n, 0x08, 1);
	b[n++] = 0x33;
	assert_int_equal(dec(b, n, &d), -1);
}

static void test_next_stat(void **state)
{
	uint8_t b[512];
	size_t n = 0, sn, i;
	const uint8_t *sb, *s1, *s2;
	struct wire w;

	(void)state;
	/* Upstream's shape. */
	s1 = b + n + 2;
	b[n++] = 0x22, b[n++] = 2, b[n++] = 0x08, b[n++] = 0x01;
	/* A field that is not a stat (metadata_id, a varint). */
	put_field(b, &n, 0x08, 300);
	/* A stat of 129 bytes: a two-byte length, read by the general path. */
	b[n++] = 0x22, b[n++] = 0x81, b[n++] = 0x01;
	s2 = b + n;
	memset(b + n, 0x22, 129);
	n += 129;
	/* Field 4 with wire type 1 (fixed64): not a stat, skipped. */
	b[n++] = 0x21;
	for (i = 0; i < 8; i++)
		b[n++] = 0x22;
	/* A stat that claims more than is left. */
	b[n++] = 0x22, b[n++] = 5, b[n++] = 0x08, b[n++] = 0x02;

	wire_init(&w, b, n);
	assert_int_equal(wire_next_stat(&w, &sb, &sn), 1);
	assert_ptr_equal(sb, s1);
	assert_int_equal(sn, 2);
	assert_int_equal(wire_next_stat(&w, &sb, &sn), 1);
	assert_ptr_equal(sb, s2);
	assert_int_equal(sn, 129);
	assert_int_equal(wire_next_stat(&w, &sb, &sn), 0);
	assert_int_equal(w.bad, 1);
	assert_int_equal(wire_next_stat(&w, &sb, &sn), 0);

	/* The same message ending cleanly after the fixed64 field. */
	wire_init(&w, b, n - 4);
	assert_int_equal(wire_next_stat(&w, &sb, &sn), 1);
	assert_int_equal(wire_next_stat(&w, &sb, &sn), 1);
	assert_int_equal(wire_next_stat(&w, &sb, &sn), 0);
	assert_int_equal(w.bad, 0);

	/* Nothing. */
	wire_init(&w, NULL, 0);
	assert_int_equal(wire_next_stat(&w, &sb, &sn), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_varint_every_length),
		TU_TEST(test_event_fields_any_order),
		TU_TEST(test_event_cut_short),
		TU_TEST(test_next_stat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
