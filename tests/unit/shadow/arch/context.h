/*
 * shadow arch/context.h - thread switches are recorded, not made: the
 * caller simply continues, as if the old thread had been switched back
 * to at once.  Tests look at who the dispatcher chose.
 */
#ifndef KPROF_SHADOW_ARCH_CONTEXT_H
#define KPROF_SHADOW_ARCH_CONTEXT_H

#include <stdint.h>

extern __thread uint32_t shadow_switches;      /* arch_context_switch calls */
extern __thread uintptr_t shadow_switched_to;  /* new_sp of the last one   */

static inline void arch_context_switch(uintptr_t *save_sp, uintptr_t new_sp)
{
	*save_sp = 0;
	shadow_switches++;
	shadow_switched_to = new_sp;
}

static inline uintptr_t arch_context_init(uintptr_t stack_top, void (*entry)(void *), void *arg)
{
	(void)entry;
	(void)arg;
	return stack_top;
}

#endif
