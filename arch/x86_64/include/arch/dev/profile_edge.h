/*
 * arch/dev/profile_edge.h - a spin loop at a known address (profile_edge.asm),
 * so a test can put a profile object's RangeLimit exactly where execution
 * is sampled.
 */
#ifndef KPROF_ARCH_PROFILE_EDGE_H
#define KPROF_ARCH_PROFILE_EDGE_H

#include <stdint.h>

/* Spin until the time stamp counter reaches until_tsc. */
void arch_profile_edge_spin(uint64_t until_tsc);
/* The loop's first instruction, inside arch_profile_edge_spin (which
 * starts a few bytes before it). */
extern const char arch_profile_edge_loop[];
/* The function's first byte. */
static inline uintptr_t arch_profile_edge_start(void)
{
	return (uintptr_t)arch_profile_edge_spin;
}

#endif
