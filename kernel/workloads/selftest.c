/*
 * selftest.c - deliberate failures: each must end the run through the
 * exception or bug-check path with a symbolized backtrace.
 *
 * The functions are noinline and chained three deep so the backtrace shows
 * real frames (selftest_fault_write <- selftest_fault_middle <-
 * selftest_fault_outer <- selftest_run <- kernel_main).
 */
#include "kernel/workloads/selftest.h"

#include <arch/cpu.h>

#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/ke/irql.h"
#include "kernel/debug/panic.h"

#include <stdint.h>

/* Canonical, low-half, never mapped: a page fault, not a #GP.  Volatile so
 * the compiler cannot see through it. */
static volatile uintptr_t selftest_bad_address = 0xdead0000;
static volatile unsigned selftest_depth;

static __attribute__((noinline)) void selftest_fault_write(uintptr_t where)
{
	*(volatile uint64_t *)where = 0x6b70726f66; /* "kprof" */
}

static __attribute__((noinline)) void selftest_fault_middle(uintptr_t where)
{
	selftest_fault_write(where + 8);
	compiler_barrier(); /* keep this frame: no tail call */
}

static __attribute__((noinline)) void selftest_fault_outer(void)
{
	selftest_fault_middle(selftest_bad_address);
	compiler_barrier();
}

/* Each level keeps 512 bytes live, so the guard page is reached quickly. */
static __attribute__((noinline)) unsigned selftest_recurse(unsigned n)
{
	volatile char pad[512];
	pad[0] = (char)n;
	selftest_depth = n;
	if (n > (1u << 30)) /* never: the guard page stops us long before */
		return 0;
	return selftest_recurse(n + 1) + pad[0];
}

void selftest_run(enum kprof_selftest which)
{
	switch (which) {
	case SELFTEST_NONE:
	case SELFTEST_CHECK:
	case SELFTEST_COUNT:
		return;
	case SELFTEST_FAULT:
		kprintf("selftest: writing to unmapped address 0x%llx\n",
			(unsigned long long)selftest_bad_address + 8);
		selftest_fault_outer();
		break;
	case SELFTEST_UD:
		kprintf("selftest: executing an invalid opcode\n");
		arch_invalid_instruction();
		break;
	case SELFTEST_PANIC:
		kprintf("selftest: bug check on request\n");
		ke_bug_check_ex(MANUALLY_INITIATED_CRASH, 0x6b70726f66, 0, 0, 0, "selftest=panic");
	case SELFTEST_IRQL:
		kprintf("selftest: lowering IRQL from %u to %u\n", ke_get_current_irql(), DISPATCH_LEVEL);
		ke_lower_irql(DISPATCH_LEVEL);
		break;
	case SELFTEST_STACK:
		kprintf("selftest: recursing past the end of the kernel stack\n");
		selftest_recurse(0);
		break;
	}
	/* Every case above must have ended the run. */
	ke_bug_check_ex(KPROF_ASSERTION_FAILED, which, 0, 0, 0, "selftest %u returned", which);
}

enum kprof_exit_status selftest_after(enum kprof_selftest which, enum kprof_exit_status status)
{
	if (which != SELFTEST_CHECK || status != KPROF_EXIT_SUCCESS)
		return status;
	kprintf("selftest: check failed on request (selftest=check): the run ends with a failed check\n");
	return KPROF_EXIT_FAILURE;
}
