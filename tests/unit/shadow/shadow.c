/*
 * shadow.c - definitions behind the shadow arch headers, and the kernel
 * services the tested files call (console output, bug checks) reduced to
 * what a test can observe.
 */
#include "shadow.h"

#include "kernel/debug/bugcheck.h"
#include "kernel/ke/irql.h"
#include "kernel/ke/prcb.h"

#include <arch/context.h>
#include <arch/interrupt.h>
#include <arch/irql.h>
#include <arch/dev/timer.h>

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__thread bool shadow_irqs_on = true;
bool shadow_virtualized;
bool shadow_tsc_invariant;
bool shadow_relax_yields = true;
__thread uint8_t shadow_irql;
volatile uint32_t shadow_ipis[SHADOW_MAX_CPUS][ARCH_INT_COUNT];
volatile uint32_t shadow_nmis;
__thread uint64_t shadow_timer_armed;
__thread uint64_t shadow_timer_period;
__thread enum arch_interrupt shadow_timer_armed_for;
__thread uint32_t shadow_self_ipis[ARCH_INT_COUNT];

void arch_send_self_ipi(enum arch_interrupt which)
{
	shadow_self_ipis[which]++;
}
enum arch_timer_mode shadow_timer_mode = ARCH_TIMER_ONESHOT;
__thread void *shadow_percpu;
__thread uint32_t shadow_switches;
__thread uintptr_t shadow_switched_to;
__thread uint32_t shadow_dispatch_interrupts;
uint64_t arch_hhdm_offset;

__thread jmp_buf *shadow_bugcheck_jmp;
__thread unsigned shadow_last_bugcheck;
__thread uint64_t shadow_bugcheck_params[4];
__thread char shadow_bugcheck_msg[256];
__thread char shadow_console[8192];

void kvprintf(const char *fmt, va_list ap)
{
	size_t len = strlen(shadow_console);
	vsnprintf(shadow_console + len, sizeof(shadow_console) - len, fmt, ap);
}

void kprintf(const char *fmt, ...)
{
	size_t len = strlen(shadow_console);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(shadow_console + len, sizeof(shadow_console) - len, fmt, ap);
	va_end(ap);
}

void ke_bug_check_ex(uint32_t code, uint64_t p1, uint64_t p2, uint64_t p3, uint64_t p4, const char *fmt, ...)
{
	va_list ap;

	shadow_last_bugcheck = code;
	shadow_bugcheck_params[0] = p1;
	shadow_bugcheck_params[1] = p2;
	shadow_bugcheck_params[2] = p3;
	shadow_bugcheck_params[3] = p4;
	va_start(ap, fmt);
	vsnprintf(shadow_bugcheck_msg, sizeof(shadow_bugcheck_msg), fmt, ap);
	va_end(ap);
	if (shadow_bugcheck_jmp)
		longjmp(*shadow_bugcheck_jmp, 1);
	fprintf(stderr, "unexpected bug check 0x%x in a unit test: %s\n", code, shadow_bugcheck_msg);
	abort();
}

bool shadow_assertion_failed(const char *what, const char *where)
{
	if (shadow_last_bugcheck == KPROF_ASSERTION_FAILED && strstr(shadow_bugcheck_msg, what) &&
	    strstr(shadow_bugcheck_msg, where))
		return true;
	fprintf(stderr, "expected a failed assertion with \"%s\" in %s; got bug check 0x%x: %s\n", what, where,
		shadow_last_bugcheck, shadow_bugcheck_msg);
	return false;
}

void shadow_relax_yield(void)
{
	sched_yield();
}

/* Weak: tests without the dispatcher (kernel/sched/dispatch.c) see the
 * reschedule requests the IRQL code passes on, counted. */
__attribute__((weak)) void ki_dispatch_interrupt(void)
{
	((KPRCB *)shadow_percpu)->DispatchPending = 0;
	shadow_dispatch_interrupts++;
}

__attribute__((weak)) void ki_dispatch_after_interrupt(uint64_t own_work_tsc)
{
	(void)own_work_tsc;
	ki_dispatch_interrupt();
}

/* The IRQL code finds the dispatcher through KE_DISPATCHER: these, or in a
 * test linked with kernel/sched/dispatch.c the real ones (which then
 * replace the weak functions above, and dispatch.c's entry names them
 * too). */
KE_DISPATCHER(shadow_dispatcher, .dispatch = ki_dispatch_interrupt, .after_interrupt = ki_dispatch_after_interrupt);

/* Weak: the dispatcher lock, for tests that compile kernel/sched files
 * without dispatch.c, which defines it (their ki_ functions assert it). */
__attribute__((weak)) raw_lock_t KiDispatcherLock = RAW_LOCK_INIT;

/* Weak: tests that start "CPUs" as threads end them here. */
__attribute__((weak)) void shadow_idle(void)
{
	abort();
}
