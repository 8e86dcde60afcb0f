/*
 * irql.c - raising and lowering IRQL, and the interrupt entry/exit rules.
 *
 * Invariants:
 *   - IRQL changes only through these functions (and arch code that saves
 *     and restores it around interrupts, which follows the same rules).
 *   - A DPC never runs above or below DISPATCH_LEVEL, never with
 *     interrupts disabled, and never inside another DPC on the same CPU
 *     (ki_retire_dpc_list() is entered only when IRQL was below
 *     DISPATCH_LEVEL, and it holds DISPATCH_LEVEL while it runs).
 */
#include "kernel/ke/irql.h"

#include <arch/cpu.h>

#include "kernel/ke/dpc.h"
#include "kernel/debug/panic.h"
#include "kernel/ke/prcb.h"

/* Made by the linker (linker.ld; the host's linker for a section named by
 * an identifier); weak: a program without a scheduler links. */
extern const struct ke_dispatcher *const __start_kprof_dispatcher[] __attribute__((weak));
extern const struct ke_dispatcher *const __stop_kprof_dispatcher[] __attribute__((weak));

/* The scheduler's entry points (KE_DISPATCHER), read only when a dispatch
 * is pending, which only the scheduler asks for. */
static const struct ke_dispatcher *dispatcher(void)
{
	const struct ke_dispatcher *const *p = __start_kprof_dispatcher;

	KASSERT(p && p != __stop_kprof_dispatcher); /* a dispatch pending, and no scheduler */
	return p[0];
}

KIRQL ke_raise_irql(KIRQL new_irql)
{
	KIRQL old = arch_get_irql();

	if (new_irql < old)
		ke_bug_check_ex(IRQL_NOT_GREATER_OR_EQUAL, old, new_irql, 0, 0,
				"ke_raise_irql: raising from IRQL %u to the lower IRQL %u", old, new_irql);
	arch_set_irql(new_irql);
	return old;
}

static bool dispatch_work(const KPRCB *prcb)
{
	return ki_dpc_pending(prcb) || prcb->DispatchPending;
}

/* Run queued DPCs, then reschedule if asked, at DISPATCH_LEVEL until
 * neither is pending, then set IRQL.  The last "nothing pending" check and
 * the IRQL change happen with interrupts disabled: work queued by an
 * interrupt after that finds the CPU below DISPATCH_LEVEL and is done on
 * that interrupt's way out.  A reschedule may switch threads: when this
 * thread runs again it may be on another CPU, so the KPRCB is looked up
 * afresh every time. */
static void lower_through_dispatch(KIRQL new_irql, bool from_interrupt)
{
	uint64_t own_work = 0; /* when DPCs began, on an interrupt's way out */

	for (;;) {
		unsigned long flags = arch_irq_save();
		KPRCB *prcb = ke_get_current_prcb();
		if (!dispatch_work(prcb)) {
			arch_set_irql(new_irql);
			arch_irq_restore(flags);
			return;
		}
		arch_set_irql(DISPATCH_LEVEL);
		arch_irq_enable();
		if (ki_dpc_pending(prcb)) {
			if (from_interrupt && !own_work)
				own_work = arch_rdtsc(); /* DPCs may take long: this CPU's own work */
			ki_retire_dpc_list(prcb);
		}
		if (ke_get_current_prcb()->DispatchPending) {
			if (from_interrupt)
				dispatcher()->after_interrupt(own_work);
			else
				dispatcher()->dispatch();
		}
		from_interrupt = false;
		arch_irq_restore(flags);
	}
}

void ke_lower_irql(KIRQL new_irql)
{
	KIRQL cur = arch_get_irql();

	if (new_irql > cur)
		ke_bug_check_ex(IRQL_NOT_LESS_OR_EQUAL, cur, new_irql, 0, 0,
				"ke_lower_irql: lowering from IRQL %u to the higher IRQL %u", cur, new_irql);
	if (new_irql < DISPATCH_LEVEL && cur >= DISPATCH_LEVEL)
		lower_through_dispatch(new_irql, false);
	else
		arch_set_irql(new_irql);
}

KIRQL ki_interrupt_enter(KIRQL level)
{
	KPRCB *prcb = ke_get_current_prcb();
	KIRQL old = arch_get_irql();

	if (level < old)
		ke_bug_check_ex(IRQL_NOT_GREATER_OR_EQUAL, old, level, 1, 0,
				"interrupt at IRQL %u arrived while the CPU was at IRQL %u", level, old);
	arch_set_irql(level);
	prcb->InterruptCount++;
	prcb->InterruptNesting++;
	arch_irq_enable();
	return old;
}

void ki_interrupt_exit(KIRQL old_irql)
{
	KPRCB *prcb = ke_get_current_prcb();

	arch_irq_disable();
	prcb->InterruptNesting--;
	/* DPCs run on the way out only from the outermost level that was
	 * below DISPATCH_LEVEL: never inside another DPC or interrupt. */
	if (old_irql < DISPATCH_LEVEL && dispatch_work(prcb))
		lower_through_dispatch(old_irql, true);
	else
		arch_set_irql(old_irql);
	arch_irq_disable();
}
