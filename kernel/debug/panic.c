/*
 * panic.c - bug checks and the end of a run.
 *
 * The first CPU to bug-check owns the console from then on (other CPUs'
 * output could be half-written lines under a lock nobody will release).  A
 * second bug check on the same CPU, i.e. a fault while reporting a fault,
 * prints one line and ends the run at once.
 */
#include "kernel/debug/panic.h"

#include <arch/cpu.h>
#include <arch/interrupt.h>
#include <arch/platform.h>
#include <stdarg.h>

#include "kernel/debug/backtrace.h"
#include "kernel/console/console.h"
#include "kernel/ke/prcb.h"
#include "kernel/lib/printf.h"
#include "kernel/trace/trace.h"

static int panic_depth; /* bug checks entered (any CPU) */

bool panic_in_progress(void)
{
	return __atomic_load_n(&panic_depth, __ATOMIC_ACQUIRE) != 0;
}

static const char *exit_status_name(enum kprof_exit_status st)
{
	switch (st) {
	case KPROF_EXIT_SUCCESS: return "success";
	case KPROF_EXIT_FAILURE: return "failure (a check failed)";
	case KPROF_EXIT_PANIC: return "panic";
	case KPROF_EXIT_CONFIG: return "configuration rejected";
	case KPROF_EXIT_LOADER: return "loader failure";
	case KPROF_EXIT_TRACE_SPLIT: return "trace split between the stick and serial";
	}
	return "unknown";
}

void kprof_run_end(enum kprof_exit_status status)
{
	kprintf("kprof: run ended: %s (exit status 0x%x)\n", exit_status_name(status), (unsigned)status);
	arch_platform_exit(status);
}

/* tf != NULL: a trap, the backtrace starts at the interrupted instruction;
 * else at ip, walking from frame pointer fp. */
static __attribute__((noreturn)) void bug_check(uint32_t code, const KTRAP_FRAME *tf, uintptr_t ip, uintptr_t fp,
						const uint64_t p[4], const char *msg)
{
	arch_irq_disable();
	if (__atomic_fetch_add(&panic_depth, 1, __ATOMIC_ACQ_REL) != 0) {
		/* Nested (or another CPU lost the race): no backtrace, stop. */
		console_enter_panic();
		kprintf("*** nested bug check 0x%08x at 0x%llx while handling another\n", code, (unsigned long long)ip);
		(void)tf;
		kprof_run_end(KPROF_EXIT_PANIC);
	}
	console_enter_panic();
	/* Stop every other CPU (their NMI handler halts once it sees the bug
	 * check in progress). */
	if (ke_number_processors > 1)
		arch_send_nmi_all_but_self();
	kprintf("\n*** STOP: 0x%08X (0x%016llx, 0x%016llx, 0x%016llx, 0x%016llx)\n*** %s\n", code,
		(unsigned long long)p[0], (unsigned long long)p[1], (unsigned long long)p[2],
		(unsigned long long)p[3], bugcheck_name(code));
	if (msg)
		kprintf("*** %s\n", msg);
	if (tf)
		backtrace_print_trap(tf);
	else
		backtrace_print(ip, fp);
	trace_panic_flush(); /* what was recorded up to here still goes out */
	kprof_run_end(KPROF_EXIT_PANIC);
}

void ke_bug_check_ex(uint32_t code, uint64_t p1, uint64_t p2, uint64_t p3, uint64_t p4, const char *fmt, ...)
{
	char msg[256];
	uint64_t p[4] = { p1, p2, p3, p4 };
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Start the backtrace in our caller: frame #0 is the call site. */
	bug_check(code, NULL, (uintptr_t)__builtin_return_address(0), *(uintptr_t *)__builtin_frame_address(0), p,
		  msg);
}

void ke_bug_check_trap(uint32_t code, const KTRAP_FRAME *tf, uint64_t p1, uint64_t p2, uint64_t p3, uint64_t p4)
{
	uint64_t p[4] = { p1, p2, p3, p4 };
	bug_check(code, tf, trap_frame_ip(tf), trap_frame_fp(tf), p, NULL);
}
