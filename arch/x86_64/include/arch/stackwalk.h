/*
 * arch/stackwalk.h - walking the frame-pointer chain.
 */
#ifndef KPROF_ARCH_STACKWALK_H
#define KPROF_ARCH_STACKWALK_H

#include <stdint.h>

#include <arch/trapframe.h>

/* Collect up to max return addresses starting from frame pointer fp.
 * Stops at a zero or implausible frame (unaligned, not increasing, not
 * mapped); never faults.  Returns the number collected. */
unsigned arch_stack_walk(uintptr_t fp, uintptr_t *pcs, unsigned max);

/* Same, for the code a trap interrupted: also recovers the caller of a
 * function interrupted before (or without) setting up its frame, which a
 * plain frame-pointer walk would skip. */
unsigned arch_stack_walk_trap(const KTRAP_FRAME *tf, uintptr_t *pcs, unsigned max);

#endif /* KPROF_ARCH_STACKWALK_H */
