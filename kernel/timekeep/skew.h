/*
 * skew.h - the interval a CPU's TSC offset from CPU 0's lies in, from
 * ping-pong rounds (skew.c; the unit tests drive it with a TSC model).
 */
#ifndef KPROF_KERNEL_TIMEKEEP_SKEW_H
#define KPROF_KERNEL_TIMEKEEP_SKEW_H

#include <stdbool.h>
#include <stdint.h>

struct skew_interval {
	int64_t lo, hi;     /* offset (cycles) lies in [lo, hi]           */
	uint32_t rounds;    /* rounds taken                               */
};

void skew_interval_init(struct skew_interval *iv);
/* A round: CPU 0 read t0, the other CPU then read t1, CPU 0 then t2. */
void skew_interval_add(struct skew_interval *iv, uint64_t t0, uint64_t t1, uint64_t t2);
/* Rounds taken and their intervals intersect (else the offset moved). */
bool skew_interval_valid(const struct skew_interval *iv);
int64_t skew_interval_mid(const struct skew_interval *iv);
/* The offset of a's CPU from b's, both measured from the same leader:
 * a - b (not valid if either is not). */
struct skew_interval skew_interval_sub(const struct skew_interval *a, const struct skew_interval *b);

#endif
