/*
 * stats.h - order statistics for the kernel's own measurements.
 */
#ifndef KPROF_KERNEL_STATS_H
#define KPROF_KERNEL_STATS_H

#include <stddef.h>
#include <stdint.h>

/* The k-th smallest of v[0..n) (k < n), reordering v (quickselect). */
uint64_t select_u64(uint64_t *v, size_t n, size_t k);

/* The median (the lower one for even n); 0 for n == 0.  Reorders v. */
uint64_t median_u64(uint64_t *v, size_t n);

#endif
