/*
 * sort.h - ordering helpers every part of the tool uses: a three-way
 * comparison of unsigned values, qsort() that accepts an empty array
 * (qsort itself may not be given NULL), and widening a range to a value.
 */
#ifndef KPROF_TOOL_SORT_H
#define KPROF_TOOL_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline int kp_cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static inline void kp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
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
