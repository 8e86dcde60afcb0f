/*
 * sat.h - saturating arithmetic on counts read from a log.  The counts in
 * end frames are the sender's word (64 bits each, unchecked): a sum of them
 * that wrapped past 2^64 would read as a small number ("lost 0"), so every
 * sum of losses and records goes through here and stops at UINT64_MAX
 * instead, which no real run reaches and every check treats as "lost".
 */
#ifndef KPROF_TOOL_SAT_H
#define KPROF_TOOL_SAT_H

#include <stdint.h>

static inline uint64_t kp_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* a - b, 0 when b >= a. */
static inline uint64_t kp_sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

#endif
