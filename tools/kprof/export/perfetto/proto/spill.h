/*
 * spill.h - the protobuf writer's external sort: fixed-size elements
 * added in any order and read back in the order of a comparison, in
 * bounded memory.  Elements gather in a buffer of the budget's bytes;
 * a full buffer is sorted and written to a temporary file (in $TMPDIR,
 * else /tmp, unlinked at once) as a run; reading merges the runs through
 * a heap, each run read a block at a time.  A sort that fits its budget
 * never touches the disk.  A run's elements are written whole, or coded
 * against the one before (struct pb_spill_codec).
 *
 * The comparison must be a total order (ties broken by a sequence number
 * in the element): the merge of the runs breaks no ties of its own, so
 * only a total order makes the output the same whatever the budget.
 *
 * Memory: the buffer (budget bytes, and the merge sort's scratch of as
 * much while a run is sorted), then while reading a block per run, about
 * the budget in all (from 4 to 64 KiB a run).
 * Disk: every element once, when it does not fit.  A write or read that
 * fails ends the tool with the file's name and exit status 3.
 */
#ifndef KPROF_TOOL_PERFETTO_SPILL_H
#define KPROF_TOOL_PERFETTO_SPILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

struct pb_spill_run;

/* How a sort writes its runs, if not each element whole: encode puts e
 * into out, coded against prev (the element before it in the run, NULL
 * for the first), and returns the bytes, at most max_bytes; decode reads
 * it back the same way and returns the bytes it read.  A run's elements
 * are in order, so a codec can write differences from the one before
 * (the events' tracks and times): a third of the bytes, and of the
 * kernel's copying into the page cache. */
struct pb_spill_codec {
	size_t (*encode)(const void *prev, const void *e, unsigned char *out);
	size_t (*decode)(const void *prev, const unsigned char *in, void *e);
	size_t max_bytes;
};

struct pb_spill {
	size_t size;            /* an element's bytes                         */
	int (*cmp)(const void *, const void *);
	void (*sort)(void *base, size_t n); /* n elements in cmp's order     */
	const struct pb_spill_codec *codec; /* or NULL: elements whole      */
	size_t max_code;        /* an element's bytes in a run, at most       */
	unsigned char *stage;   /* a run's bytes on their way out             */
	unsigned char *buf;     /* the elements not yet spilled               */
	size_t n, cap;          /* in buf; cap: what the budget holds         */
	int fd;                 /* the runs' file, -1: none yet               */
	uint64_t written;       /* its bytes                                  */
	struct pb_spill_run *runs;
	size_t nruns, capruns;
	size_t *heap;           /* reading: the runs with elements left       */
	size_t nheap;
	size_t at;              /* reading buf (no run spilled): the next     */
	bool reading;
	bool advance;           /* the heap's top was given: step it first   */
	uint64_t count;         /* elements added                             */
};

void pb_spill_init(struct pb_spill *s, size_t size, int (*cmp)(const void *, const void *),
		   void (*sort)(void *base, size_t n), const struct pb_spill_codec *codec, size_t budget);

/* fn(base, n): a merge sort of n elements of type T in the order of
 * cmp(const T *, const T *), for a sort's buffer: cmp inlined and the
 * elements moved as T, where qsort calls cmp through a pointer and moves
 * bytes (it took a third of the writer's time).  Runs of 16 by
 * insertion, then merges, each skipped where its halves are in order
 * already (a track's events mostly come in time order). */
#define PB_SORT_DEFINE(fn, T, cmp)                                             \
	void fn(void *base, size_t n)                                   \
	{                                                                      \
		T *a = base, *b, *x, *y;                                       \
		for (size_t i = 0; i < n; i += 16) {                           \
			size_t e = i + 16 < n ? i + 16 : n;                    \
			for (size_t j = i + 1; j < e; j++) {                   \
				T v = a[j];                                    \
				size_t k = j;                                  \
				for (; k > i && cmp(&a[k - 1], &v) > 0; k--)   \
					a[k] = a[k - 1];                       \
				a[k] = v;                                      \
			}                                                      \
		}                                                              \
		if (n <= 16)                                                   \
			return;                                                \
		b = kp_xrealloc(NULL, n, sizeof(T));                           \
		x = a;                                                         \
		y = b;                                                         \
		for (size_t w = 16; w < n; w *= 2) {                           \
			for (size_t i = 0; i < n; i += 2 * w) {                \
				size_t m = i + w < n ? i + w : n;              \
				size_t e = i + 2 * w < n ? i + 2 * w : n;      \
				size_t p = i, q = m, o = i;                    \
				if (m == e || cmp(&x[m - 1], &x[m]) <= 0) {    \
					memcpy(y + i, x + i, (e - i) * sizeof(T)); \
					continue;                              \
				}                                              \
				while (p < m && q < e)                         \
					y[o++] = cmp(&x[q], &x[p]) < 0 ? x[q++] : x[p++]; \
				while (p < m)                                  \
					y[o++] = x[p++];                       \
				while (q < e)                                  \
					y[o++] = x[q++];                       \
			}                                                      \
			T *t = x;                                              \
			x = y;                                                 \
			y = t;                                                 \
		}                                                              \
		if (x != a)                                                    \
			memcpy(a, x, n * sizeof(T));                           \
		free(b);                                                       \
	}
void pb_spill_add(struct pb_spill *s, const void *e);
/* No more adds: the elements are read from here on. */
void pb_spill_sorted(struct pb_spill *s);
/* The next element in order (valid until the next call), or NULL. */
const void *pb_spill_next(struct pb_spill *s);
void pb_spill_free(struct pb_spill *s);

#endif
