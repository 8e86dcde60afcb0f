/*
 * arch/context.h - a kernel thread's saved CPU state and switching it.
 */
#ifndef KPROF_ARCH_CONTEXT_H
#define KPROF_ARCH_CONTEXT_H

#include <stdint.h>

/* Save the running thread's registers and stack pointer in *save_sp, and
 * continue the thread whose saved stack pointer is new_sp. */
void arch_context_switch(uintptr_t *save_sp, uintptr_t new_sp);

/* Build a new thread's first frame at the top of its stack, so that the
 * first switch to it calls entry(arg) with an empty frame-pointer chain.
 * Returns the stack pointer to switch to. */
uintptr_t arch_context_init(uintptr_t stack_top, void (*entry)(void *), void *arg);

#endif
