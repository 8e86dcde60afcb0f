/*
 * backtrace.h - printing a symbolized call chain.
 */
#ifndef KPROF_KERNEL_BACKTRACE_H
#define KPROF_KERNEL_BACKTRACE_H

#include <stdint.h>

#include <arch/trapframe.h>

#define BACKTRACE_MAX 32 /* frames printed at most */

/* Frame #0 at ip, then the callers found from frame pointer fp. */
void backtrace_print(uintptr_t ip, uintptr_t fp);

/* Frame #0 at the interrupted instruction, then its callers. */
void backtrace_print_trap(const KTRAP_FRAME *tf);

#endif
