/*
 * stats.c - quickselect (Hoare's FIND) for medians of cycle counts.
 *
 * Expected linear time; the pivot is the median of three so sorted and
 * constant inputs, common in timing samples, stay linear.
 */
#include "kernel/lib/stats.h"

static void swap(uint64_t *a, uint64_t *b)
{
	uint64_t t = *a;
	*a = *b;
	*b = t;
}

uint64_t select_u64(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < v[lo])
			swap(&v[mid], &v[lo]);
		if (v[hi] < v[lo])
			swap(&v[hi], &v[lo]);
		if (v[hi] < v[mid])
			swap(&v[hi], &v[mid]);
		uint64_t pivot = v[mid];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				swap(&v[i], &v[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		/* Now v[lo..j] <= pivot <= v[i..hi], and j < i. */
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

uint64_t median_u64(uint64_t *v, size_t n)
{
	return n ? select_u64(v, n, (n - 1) / 2) : 0;
}
