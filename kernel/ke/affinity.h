/*
 * affinity.h - KAFFINITY_EX: a set of CPUs beyond 64 (one bit per CPU up
 * to KPROF_MAX_CPUS), for thread affinity and profile objects.
 */
#ifndef KPROF_KERNEL_AFFINITY_H
#define KPROF_KERNEL_AFFINITY_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/ke/cpus.h"

#define KAFFINITY_WORDS ((KPROF_MAX_CPUS + 63) / 64)

typedef struct _KAFFINITY_EX {
	uint64_t Bitmap[KAFFINITY_WORDS]; /* bit n of word n/64: CPU n */
} KAFFINITY_EX;

static inline void affinity_clear_all(KAFFINITY_EX *a)
{
	for (unsigned i = 0; i < KAFFINITY_WORDS; i++)
		a->Bitmap[i] = 0;
}

/* CPUs 0 .. n-1. */
static inline void affinity_set_first(KAFFINITY_EX *a, uint32_t n)
{
	affinity_clear_all(a);
	for (uint32_t c = 0; c < n && c < KPROF_MAX_CPUS; c++)
		a->Bitmap[c / 64] |= 1ULL << (c % 64);
}

static inline void affinity_add(KAFFINITY_EX *a, uint32_t cpu)
{
	if (cpu < KPROF_MAX_CPUS)
		a->Bitmap[cpu / 64] |= 1ULL << (cpu % 64);
}

static inline void affinity_remove(KAFFINITY_EX *a, uint32_t cpu)
{
	if (cpu < KPROF_MAX_CPUS)
		a->Bitmap[cpu / 64] &= ~(1ULL << (cpu % 64));
}

static inline bool affinity_test(const KAFFINITY_EX *a, uint32_t cpu)
{
	return cpu < KPROF_MAX_CPUS && (a->Bitmap[cpu / 64] >> (cpu % 64)) & 1;
}

static inline bool affinity_empty(const KAFFINITY_EX *a)
{
	for (unsigned i = 0; i < KAFFINITY_WORDS; i++)
		if (a->Bitmap[i])
			return false;
	return true;
}

static inline uint32_t affinity_count(const KAFFINITY_EX *a)
{
	uint32_t n = 0;
	for (unsigned i = 0; i < KAFFINITY_WORDS; i++)
		n += (uint32_t)__builtin_popcountll(a->Bitmap[i]);
	return n;
}

/* Lowest CPU in the set at or after `from`, or KPROF_MAX_CPUS. */
static inline uint32_t affinity_next(const KAFFINITY_EX *a, uint32_t from)
{
	for (uint32_t c = from; c < KPROF_MAX_CPUS; c++) {
		uint64_t w = a->Bitmap[c / 64] >> (c % 64);
		if (w)
			return c + (uint32_t)__builtin_ctzll(w);
		c |= 63; /* rest of this word is empty */
	}
	return KPROF_MAX_CPUS;
}

#endif /* KPROF_KERNEL_AFFINITY_H */
