/*
 * sort.h - ordering helpers every part of the tool uses: a three-way
 * comparison of unsigned values, qsort() that accepts an empty array
 * (qsort itself may not be given NULL), the comparison of doubles for it,
 * the nearest-rank percentile's place in sorted values, a binary search
 * on a sorted array's uint64_t key, widening a range to a value, and the
 * binary heap the tool's merges share (the CPUs' records, the Perfetto
 * queue's runs and the slices' ends to come).
 */
#ifndef KPROF_TOOL_SORT_H
#define KPROF_TOOL_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline int kp_cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static inline void kp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* kp_sort() for an array that is nearly in order already (a CPU's
 * records gathered as they come, a few out of place): an insertion sort,
 * without qsort's scratch copy of the whole array (as big as the array:
 * on a big log, the peak of the commands that keep one).  Past 8 moves an
 * element it gives up to kp_sort.  Both are stable (glibc's qsort is a
 * merge sort while the copy fits in memory), so elements alike keep their
 * order either way, and the result is kp_sort's. */
static inline void kp_sort_nearly(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	unsigned char *v = base, x[size ? size : 1];
	size_t moves = 0, budget = 8 * n + 64;

	for (size_t j = 1; j < n; j++) {
		if (cmp(v + (j - 1) * size, v + j * size) <= 0)
			continue;
		memcpy(x, v + j * size, size);
		size_t k = j;
		for (; k && cmp(v + (k - 1) * size, x) > 0; k--) {
			memcpy(v + k * size, v + (k - 1) * size, size);
			if (++moves > budget) {
				memcpy(v + (k - 1) * size, x, size); /* a permutation again, alike ones in order */
				kp_sort(base, n, size, cmp);
				return;
			}
		}
		memcpy(v + k * size, x, size);
	}
}

/* kp_sort()'s comparison of two doubles, ascending. */
/* qsort comparators of uint64_t and of double elements. */
static inline int kp_cmp_u64s(const void *x, const void *y)
{
	return kp_cmp_u64(*(const uint64_t *)x, *(const uint64_t *)y);
}

static inline int kp_cmp_doubles(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* Nearest rank: the p-th percentile of n > 0 sorted values is the one at
 * rank ceil(p * n / 100), counting from 1; its index. */
static inline size_t kp_nearest_rank(size_t n, unsigned p)
{
	return (p * n + 99) / 100 - 1;
}

/* The same for a percentile given in decimals, num / scale (99.9: 999 /
 * 10), 0 < num / scale <= 100: in integers, so p99.9 of 1,000 values is
 * exactly the 999th. */
static inline size_t kp_nearest_rank_of(size_t n, uint64_t num, uint64_t scale)
{
	return (size_t)((num * n + 100 * scale - 1) / (100 * scale) - 1);
}

/* In n elements of `size` bytes, sorted by the uint64_t at `offset` of
 * each (ascending), how many have it < key, or <= key with or_equal: the
 * index of the first element at or after key (the first after it). */
static inline size_t kp_bound_u64(const void *base, size_t n, size_t size, size_t offset, uint64_t key,
				  bool or_equal)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t v;
		memcpy(&v, (const char *)base + mid * size + offset, sizeof(v));
		if (v < key || (or_equal && v == key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A binary min-heap of n elements of `size` bytes at base, the least
 * first: before(a, b, ctx) says element a comes before element b (a
 * strict order; ties are the caller's to break).  kp_heap_down moves the
 * element at i down to its place (after the top was replaced, or to make
 * a heap: i from n / 2 - 1 down to 0), kp_heap_up the element at i up
 * (after one was appended).  Always inlined, so that a call with a
 * constant size and comparison costs what a heap written for its type
 * does (the protobuf writer's queue steps its heap twice an event). */
#define KP_HEAP_SWAP(h, a, b, size)                                            \
	do {                                                                   \
		unsigned char t_[size];                                        \
		memcpy(t_, (h) + (a) * (size), (size));                       \
		memcpy((h) + (a) * (size), (h) + (b) * (size), (size));        \
		memcpy((h) + (b) * (size), t_, (size));                        \
	} while (0)

static inline __attribute__((always_inline)) void
kp_heap_down(void *base, size_t n, size_t i, size_t size, bool (*before)(const void *, const void *, const void *),
	     const void *ctx)
{
	unsigned char *h = base;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && before(h + l * size, h + m * size, ctx))
			m = l;
		if (r < n && before(h + r * size, h + m * size, ctx))
			m = r;
		if (m == i)
			return;
		KP_HEAP_SWAP(h, i, m, size);
		i = m;
	}
}

static inline __attribute__((always_inline)) void
kp_heap_up(void *base, size_t i, size_t size, bool (*before)(const void *, const void *, const void *),
	   const void *ctx)
{
	unsigned char *h = base;

	while (i && before(h + i * size, h + (i - 1) / 2 * size, ctx)) {
		KP_HEAP_SWAP(h, i, (i - 1) / 2, size);
		i = (i - 1) / 2;
	}
}

/* Widen [lo, hi] to take v (any: the range holds a value yet; set). */
#define KP_RANGE_ADD(any, lo, hi, v)                                           \
	do {                                                                   \
		if (!(any) || (v) < (lo))                                      \
			(lo) = (v);                                            \
		if (!(any) || (v) > (hi))                                      \
			(hi) = (v);                                            \
		(any) = true;                                                  \
	} while (0)

#endif
