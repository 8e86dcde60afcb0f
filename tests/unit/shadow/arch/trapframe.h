/*
 * shadow arch/trapframe.h - a minimal trap frame: instruction and frame
 * pointer are all generic code may look at.
 */
#ifndef KPROF_SHADOW_ARCH_TRAPFRAME_H
#define KPROF_SHADOW_ARCH_TRAPFRAME_H

#include <stdint.h>

typedef struct ktrap_frame {
	uintptr_t ip; /* interrupted instruction */
	uintptr_t fp; /* its frame pointer       */
} KTRAP_FRAME;

static inline uintptr_t trap_frame_ip(const KTRAP_FRAME *tf) { return tf->ip; }
static inline uintptr_t trap_frame_fp(const KTRAP_FRAME *tf) { return tf->fp; }

#endif
