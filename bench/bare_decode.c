/*
 * bare_decode: the floor under any reader of an XSpace that looks at every
 * event: one core walks the file once and reads each XEvent's metadata id,
 * offset and duration (its stats skipped by their length, as xtop's
 * decoder skips most), and does nothing else. bench.sh runs it beside
 * xtop; the ratio of the two is a measure of xtop's own work that moves
 * little with the machine, where the libprotobuf yardstick's time is
 * mostly the kernel's page faults and moves with the machine and the hour.
 *
 *   bare_decode FILE   prints "events N stats N read_s S ns_per_event X"
 *
 * The file is mapped and made resident before the clock starts. Field
 * numbers are proto/xplane.proto's: XSpace 1 planes; XPlane 3 lines; XLine
 * 4 events; XEvent 1 metadata_id, 2 offset_ps, 5 num_occurrences,
 * 3 duration_ps, 4 stats. Bad input: one line on stderr, exit 1.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct rd {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t events, stats, sum;

static inline uint64_t varint(struct rd *r)
{
	uint64_t v = 0;
	unsigned sh;

	if (r->p < r->end && *r->p < 0x80)
		return *r->p++;
	for (sh = 0; sh < 64 && r->p < r->end; sh += 7) {
		uint64_t b = *r->p++;

		v |= (b & 0x7f) << sh;
		if (b < 0x80)
			return v;
	}
	r->bad = 1;
	r->p = r->end;
	return 0;
}

/* Skips a field of wire type t; returns its bytes for a LEN field. */
static inline const uint8_t *field(struct rd *r, unsigned t, uint64_t *n)
{
	const uint8_t *b;

	switch (t) {
	case 0:
		varint(r);
		return NULL;
	case 1:
	case 5:
		*n = t == 1 ? 8 : 4;
		break;
	case 2:
		*n = varint(r);
		break;
	default:
		r->bad = 1;
		r->p = r->end;
		return NULL;
	}
	if (*n > (uint64_t)(r->end - r->p)) {
		r->bad = 1;
		r->p = r->end;
		return NULL;
	}
	b = r->p;
	r->p += *n;
	return b;
}

static int event(const uint8_t *p, const uint8_t *end)
{
	struct rd r = { p, end, 0 };
	uint64_t v[6] = { 0 }, n;

	while (r.p < r.end && !r.bad) {
		uint64_t tag = varint(&r);
		unsigned f = (unsigned)(tag >> 3), t = (unsigned)(tag & 7);

		if (t == 0 && f < 6)
			v[f] = varint(&r);
		else if (field(&r, t, &n) && f == 4)
			stats++;
	}
	events++;
	sum += v[1] + v[2] + v[3] + v[5];
	return r.bad;
}

/* The LEN fields numbered `want` of [p, end), each to fn; -1 when bad. */
static int each(const uint8_t *p, const uint8_t *end, unsigned want,
		int (*fn)(const uint8_t *, const uint8_t *))
{
	struct rd r = { p, end, 0 };

	while (r.p < r.end && !r.bad) {
		uint64_t tag = varint(&r), n = 0;
		const uint8_t *b = field(&r, (unsigned)(tag & 7), &n);

		if (b && (tag >> 3) == want && (tag & 7) == 2 && fn(b, b + n))
			return -1;
	}
	return r.bad ? -1 : 0;
}

static int line(const uint8_t *p, const uint8_t *end)
{
	return each(p, end, 4, event);
}

static int plane(const uint8_t *p, const uint8_t *end)
{
	return each(p, end, 3, line);
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct stat st;
	const uint8_t *b;
	double s;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: bare_decode FILE\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0) {
		fprintf(stderr, "bare_decode: %s: cannot read it\n", argv[1]);
		return 1;
	}
	b = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	close(fd);
	if (b == MAP_FAILED) {
		fprintf(stderr, "bare_decode: %s: cannot map it\n", argv[1]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (each(b, b + st.st_size, 1, plane) < 0) {
		fprintf(stderr, "bare_decode: %s: not a valid XSpace\n", argv[1]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("events %llu stats %llu read_s %.3f ns_per_event %.1f check %llu\n",
	       (unsigned long long)events, (unsigned long long)stats, s,
	       events ? s * 1e9 / (double)events : 0.0, (unsigned long long)(sum & 0xffff));
	return 0;
}
