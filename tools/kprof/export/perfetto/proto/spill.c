/*
 * spill.c - the protobuf writer's external sort (spill.h): a buffer
 * sorted and written out as a run whenever it fills, the runs merged
 * through a heap of their next elements when read.
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

struct pb_spill_run {
	uint64_t first;         /* its first element's offset in the file     */
	size_t n, next;         /* its elements, the next one to load         */
	unsigned char *blk;     /* loaded: blkn elements, blkat the next      */
	size_t blkn, blkat, blkcap;
};

/* Where the runs go: $TMPDIR, else /tmp. */
static const char *spill_dir(void)
{
	const char *d = getenv("TMPDIR");

	return d && *d ? d : "/tmp";
}

static void fail(const char *what)
{
	fprintf(stderr, "kprof: %s the protobuf writer's sort file in %s: %s (set TMPDIR to a directory with room)\n",
		what, spill_dir(), strerror(errno ? errno : EIO));
	exit(3);
}

void pb_spill_init(struct pb_spill *s, size_t size, int (*cmp)(const void *, const void *),
		   void (*sort)(void *base, size_t n), size_t budget)
{
	*s = (struct pb_spill){ .size = size, .cmp = cmp, .sort = sort, .fd = -1 };
	s->cap = budget / size ? budget / size : 1;
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

/* The buffer sorted and written out as a run. */
static void spill(struct pb_spill *s)
{
	size_t bytes = s->n * s->size, done = 0;

	if (!s->n)
		return;
	if (s->fd < 0)
		open_file(s);
	s->sort(s->buf, s->n);
	while (done < bytes) {
		ssize_t k = pwrite(s->fd, s->buf + done, bytes - done, (off_t)(s->written + done));
		if (k <= 0)
			fail("cannot write to");
		done += (size_t)k;
	}
	KP_PUSH(s->runs, s->nruns, s->capruns,
		((struct pb_spill_run){ .first = s->written, .n = s->n }));
	s->written += bytes;
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

/* The run's next block read in; false when it has no element left. */
static bool load(struct pb_spill *s, struct pb_spill_run *r)
{
	size_t k = r->n - r->next, bytes, done = 0;

	if (!k)
		return false;
	if (k > r->blkcap)
		k = r->blkcap;
	bytes = k * s->size;
	while (done < bytes) {
		ssize_t got = pread(s->fd, r->blk + done, bytes - done,
				    (off_t)(r->first + r->next * s->size + done));
		if (got <= 0)
			fail("cannot read back");
		done += (size_t)got;
	}
	r->next += k;
	r->blkn = k;
	r->blkat = 0;
	return true;
}

static const void *head(const struct pb_spill *s, size_t run)
{
	const struct pb_spill_run *r = &s->runs[run];

	return r->blk + r->blkat * s->size;
}

static bool before(const void *a, const void *b, const void *ctx)
{
	const struct pb_spill *s = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = s->cmp(head(s, x), head(s, y));

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
	s->heap = kp_xcalloc(s->nruns, sizeof(*s->heap));
	/* the runs' blocks together take about the buffer's budget (at most
	 * 64 KiB and at least 4 KiB each): many runs, smaller blocks */
	size_t block = s->cap * s->size / s->nruns;
	block = block > BLOCK_BYTES ? BLOCK_BYTES : block < BLOCK_MIN ? BLOCK_MIN : block;
	for (size_t i = 0; i < s->nruns; i++) {
		struct pb_spill_run *r = &s->runs[i];
		r->blkcap = block / s->size ? block / s->size : 1;
		if (r->blkcap > r->n)
			r->blkcap = r->n;
		r->blk = kp_xrealloc(NULL, r->blkcap, s->size);
		if (load(s, r))
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
		struct pb_spill_run *r = &s->runs[s->heap[0]];
		s->advance = false;
		if (++r->blkat == r->blkn && !load(s, r))
			s->heap[0] = s->heap[--s->nheap];
		if (s->nheap)
			kp_heap_down(s->heap, s->nheap, 0, sizeof(*s->heap), before, s);
	}
	if (!s->nheap)
		return NULL;
	s->advance = true;
	return head(s, s->heap[0]);
}

void pb_spill_free(struct pb_spill *s)
{
	for (size_t i = 0; i < s->nruns; i++)
		free(s->runs[i].blk);
	free(s->runs);
	free(s->heap);
	free(s->buf);
	if (s->fd >= 0)
		close(s->fd);
	*s = (struct pb_spill){ .fd = -1 };
}
