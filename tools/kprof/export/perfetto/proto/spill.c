/*
 * spill.c - the protobuf writer's external sort (spill.h): a buffer
 * sorted and written out as a run whenever it fills, each element coded
 * against the one before it (the sort's codec) or copied whole, the runs
 * merged through a heap of their next elements when read.
 */
#include "tools/kprof/export/perfetto/proto/spill.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

#define BLOCK_BYTES (64u * 1024u)
#define BLOCK_MIN (4u * 1024u)
#define STAGE_BYTES (1u << 20) /* a run is written a megabyte at a time */

struct pb_spill_run {
	uint64_t first, bytes;  /* its bytes in the file                      */
	uint64_t read;          /* those read into blk so far                 */
	size_t n, left;         /* its elements, those not decoded yet        */
	unsigned char *blk;     /* read, not decoded yet: blk[at..have)       */
	size_t at, have, cap;
	unsigned char *cur, *prev; /* its next element, and the one before   */
};

/* Where the runs go: $TMPDIR, else /tmp. */
static const char *spill_dir(void)
{
	const char *d = getenv("TMPDIR");

	return d && *d ? d : "/tmp";
}

static void fail(const char *what)
{
	fprintf(stderr, "kprof: %s the protobuf writer's sort file in %s: %s; the trace is not complete (set TMPDIR "
			"to a directory with room: about 40 bytes a record)\n",
		what, spill_dir(), strerror(errno ? errno : EIO));
	exit(3);
}

void pb_spill_init(struct pb_spill *s, size_t size, int (*cmp)(const void *, const void *),
		   void (*sort)(void *base, size_t n), const struct pb_spill_codec *codec, size_t budget)
{
	*s = (struct pb_spill){ .size = size, .cmp = cmp, .sort = sort, .codec = codec, .fd = -1 };
	s->cap = budget / size ? budget / size : 1;
	s->max_code = codec ? codec->max_bytes : size;
}

static void open_file(struct pb_spill *s)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/kprof-sort-XXXXXX", spill_dir());
	s->fd = mkstemp(path);
	if (s->fd < 0)
		fail("cannot make");
	unlink(path);
}

static void write_at(struct pb_spill *s, const unsigned char *p, size_t bytes)
{
	size_t done = 0;

	while (done < bytes) {
		ssize_t k = pwrite(s->fd, p + done, bytes - done, (off_t)(s->written + done));
		if (k <= 0)
			fail("cannot write to");
		done += (size_t)k;
	}
	s->written += bytes;
}

/* The buffer sorted and written out as a run, each element coded against
 * the one before it. */
static void spill(struct pb_spill *s)
{
	uint64_t first = s->written;
	size_t staged = 0;

	if (!s->n)
		return;
	if (s->fd < 0)
		open_file(s);
	if (!s->stage)
		s->stage = kp_xrealloc(NULL, STAGE_BYTES + s->max_code, 1);
	s->sort(s->buf, s->n);
	for (size_t i = 0; i < s->n; i++) {
		const unsigned char *e = s->buf + i * s->size;
		if (s->codec) {
			staged += s->codec->encode(i ? e - s->size : NULL, e, s->stage + staged);
		} else {
			memcpy(s->stage + staged, e, s->size);
			staged += s->size;
		}
		if (staged >= STAGE_BYTES) {
			write_at(s, s->stage, staged);
			staged = 0;
		}
	}
	write_at(s, s->stage, staged);
	KP_PUSH(s->runs, s->nruns, s->capruns,
		((struct pb_spill_run){ .first = first, .bytes = s->written - first, .n = s->n, .left = s->n }));
	s->n = 0;
}

void pb_spill_add(struct pb_spill *s, const void *e)
{
	if (!s->buf)
		s->buf = kp_xrealloc(NULL, s->cap, s->size);
	if (s->n == s->cap)
		spill(s);
	memcpy(s->buf + s->n * s->size, e, s->size);
	s->n++;
	s->count++;
}

/* At least the longest code of the run's bytes in blk, or all it has
 * left. */
static void refill(struct pb_spill *s, struct pb_spill_run *r)
{
	if (r->have - r->at >= s->max_code || r->read == r->bytes)
		return;
	memmove(r->blk, r->blk + r->at, r->have - r->at);
	r->have -= r->at;
	r->at = 0;
	size_t want = r->cap - r->have;
	if (want > r->bytes - r->read)
		want = (size_t)(r->bytes - r->read);
	for (size_t done = 0; done < want;) {
		ssize_t got = pread(s->fd, r->blk + r->have + done, want - done, (off_t)(r->first + r->read + done));
		if (got <= 0)
			fail("cannot read back");
		done += (size_t)got;
	}
	r->read += want;
	r->have += want;
}

/* The run's next element decoded into cur; false when it has none left. */
static bool step(struct pb_spill *s, struct pb_spill_run *r)
{
	if (!r->left)
		return false;
	refill(s, r);
	unsigned char *t = r->prev;
	r->prev = r->cur;
	r->cur = t;
	if (s->codec) {
		r->at += s->codec->decode(r->left == r->n ? NULL : r->prev, r->blk + r->at, r->cur);
	} else {
		memcpy(r->cur, r->blk + r->at, s->size);
		r->at += s->size;
	}
	r->left--;
	return true;
}

static bool before(const void *a, const void *b, const void *ctx)
{
	const struct pb_spill *s = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = s->cmp(s->runs[x].cur, s->runs[y].cur);

	return c ? c < 0 : x < y;
}

void pb_spill_sorted(struct pb_spill *s)
{
	s->reading = true;
	if (!s->nruns) { /* it fitted: read the buffer */
		s->sort(s->buf, s->n);
		return;
	}
	spill(s);
	free(s->buf);
	s->buf = NULL;
	free(s->stage);
	s->stage = NULL;
	s->heap = kp_xcalloc(s->nruns, sizeof(*s->heap));
	/* the runs' blocks together take about the buffer's budget (at most
	 * 64 KiB and at least 4 KiB each, and twice the longest code): many
	 * runs, smaller blocks */
	size_t block = s->cap * s->size / s->nruns;
	block = block > BLOCK_BYTES ? BLOCK_BYTES : block < BLOCK_MIN ? BLOCK_MIN : block;
	if (block < 2 * s->max_code)
		block = 2 * s->max_code;
	for (size_t i = 0; i < s->nruns; i++) {
		struct pb_spill_run *r = &s->runs[i];
		r->cap = block;
		r->blk = kp_xrealloc(NULL, r->cap, 1);
		r->cur = kp_xrealloc(NULL, 2, s->size);
		r->prev = r->cur + s->size;
		if (step(s, r))
			s->heap[s->nheap++] = i;
	}
	for (size_t i = s->nheap / 2; i-- > 0;)
		kp_heap_down(s->heap, s->nheap, i, sizeof(*s->heap), before, s);
}

const void *pb_spill_next(struct pb_spill *s)
{
	if (!s->nruns)
		return s->at < s->n ? s->buf + s->size * s->at++ : NULL;
	if (s->advance) { /* the top's element was given last: step past it */
		s->advance = false;
		if (!step(s, &s->runs[s->heap[0]]))
			s->heap[0] = s->heap[--s->nheap];
		if (s->nheap)
			kp_heap_down(s->heap, s->nheap, 0, sizeof(*s->heap), before, s);
	}
	if (!s->nheap)
		return NULL;
	s->advance = true;
	return s->runs[s->heap[0]].cur;
}

void pb_spill_free(struct pb_spill *s)
{
	for (size_t i = 0; i < s->nruns; i++) {
		free(s->runs[i].blk);
		free(s->runs[i].cur < s->runs[i].prev ? s->runs[i].cur : s->runs[i].prev);
	}
	free(s->runs);
	free(s->heap);
	free(s->buf);
	free(s->stage);
	if (s->fd >= 0)
		close(s->fd);
	*s = (struct pb_spill){ .fd = -1 };
}
