/*
 * xorshift.h - the unit tests' pseudo-random numbers: Marsaglia's
 * xorshift64 (13, 7, 17), the same sequence for a seed on every host, so
 * a failing case is found again.  *s must not be 0.
 */
#ifndef KPROF_TEST_XORSHIFT_H
#define KPROF_TEST_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
