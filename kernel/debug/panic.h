/*
 * panic.h - stopping the kernel: bug checks, assertions, and the end of a run.
 */
#ifndef KPROF_KERNEL_PANIC_H
#define KPROF_KERNEL_PANIC_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/trapframe.h>

#include "include/kprof/exit_status.h"
#include "kernel/debug/bugcheck.h"

/* Print the stop code, parameters and a backtrace of the caller, then end
 * the run with KPROF_EXIT_PANIC.  Like KeBugCheckEx. */
__attribute__((noreturn, format(printf, 6, 7))) void
ke_bug_check_ex(uint32_t code, uint64_t p1, uint64_t p2, uint64_t p3, uint64_t p4, const char *fmt, ...);

/* Same, for a fault: the backtrace starts at the faulting instruction. */
__attribute__((noreturn)) void ke_bug_check_trap(uint32_t code, const KTRAP_FRAME *tf, uint64_t p1, uint64_t p2,
						 uint64_t p3, uint64_t p4);

/* True once any CPU has begun a bug check (nested faults stop at once). */
bool panic_in_progress(void);

/* End the run: flush, print the outcome, exit QEMU or halt real hardware. */
__attribute__((noreturn)) void kprof_run_end(enum kprof_exit_status status);

#define KASSERT(cond)                                                                          \
	do {                                                                                   \
		if (__builtin_expect(!(cond), 0))                                              \
			ke_bug_check_ex(KPROF_ASSERTION_FAILED, __LINE__, 0, 0, 0,             \
					"assertion failed: %s (%s:%d)", #cond, __FILE__, __LINE__);    \
	} while (0)

#endif /* KPROF_KERNEL_PANIC_H */
