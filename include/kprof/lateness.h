/*
 * lateness.h - half-octave buckets of TSC cycles, shared by the kernel
 * (each CPU's clock interrupts: kernel/ke/time/clock.c, KprofFidelity records)
 * and the host tool (their percentiles: tools/kprof/fidelity/).
 *
 * Bucket 0 holds 0..63 cycles; above that, each power of two is split in
 * two halves: a value v with its highest set bit m (m >= 6) and the bit
 * below it h goes to 1 + 2 * (m - 6) + h, so a bucket's upper bound is at
 * most 1.5 times its lower one.  The last bucket holds everything from its
 * floor up (2^37 cycles and more: tens of seconds at any TSC rate).
 */
#ifndef KPROF_LATENESS_H
#define KPROF_LATENESS_H

#include <stdint.h>

#define KPROF_LATENESS_BUCKETS 64

static inline uint32_t kprof_lateness_bucket(uint64_t cycles)
{
	if (cycles < 64)
		return 0;
	uint32_t m = 63 - (uint32_t)__builtin_clzll(cycles);
	uint32_t b = 1 + 2 * (m - 6) + (uint32_t)((cycles >> (m - 1)) & 1);
	return b < KPROF_LATENESS_BUCKETS ? b : KPROF_LATENESS_BUCKETS - 1;
}

/* The smallest value bucket b holds. */
static inline uint64_t kprof_lateness_floor(uint32_t b)
{
	if (b == 0)
		return 0;
	uint32_t m = 6 + (b - 1) / 2;
	return ((uint64_t)1 << m) + ((b - 1) % 2 ? (uint64_t)1 << (m - 1) : 0);
}

/* The first value above bucket b (UINT64_MAX for the last). */
static inline uint64_t kprof_lateness_ceiling(uint32_t b)
{
	return b + 1 < KPROF_LATENESS_BUCKETS ? kprof_lateness_floor(b + 1) : UINT64_MAX;
}

#endif /* KPROF_LATENESS_H */
