/*
 * clock.c - the clock interrupt: each CPU's interrupt timer drives its
 * timer queue, and the queue drives the clock tick (tick_hz= times a
 * second) and every other timed callback.
 *
 * The interrupt arrives at CLOCK_LEVEL.  In TSC-deadline and one-shot modes
 * the timer is re-armed for the queue's next deadline after each
 * interrupt (and by ke_set_timer_current() when a new entry becomes the
 * earliest); in periodic mode it fires every tick and the queue is only
 * checked.
 */
#include "kernel/clock.h"

#include <arch/cpu.h>
#include <arch/interrupt.h>
#include <arch/timer.h>

#include "kernel/config.h"
#include "kernel/console.h"
#include "kernel/prcb.h"
#include "kernel/time.h"
#include "kernel/trace/trace.h"

static KTIMER_ENTRY clock_tick_entry[KPROF_MAX_CPUS];
static uint64_t clock_tick_cycles;

uint64_t ke_clock_tick_cycles(void)
{
	return clock_tick_cycles;
}

static void clock_rearm(KPRCB *prcb)
{
	if (arch_timer_get_mode() == ARCH_TIMER_PERIODIC)
		return;
	uint64_t next = ki_timer_queue_next(&prcb->TimerQueue);
	if (next != UINT64_MAX)
		arch_timer_arm(next);
}

static void clock_interrupt(KTRAP_FRAME *tf)
{
	KPRCB *prcb = ke_get_current_prcb();
	unsigned long flags = arch_irq_save();

	ki_timer_queue_expire(&prcb->TimerQueue, arch_rdtsc(), tf);
	clock_rearm(prcb);
	arch_irq_restore(flags);
}

static void clock_tick(KTIMER_ENTRY *e, KTRAP_FRAME *tf, void *context)
{
	KPRCB *prcb = ke_get_current_prcb();

	prcb->ClockTicks++;
	if (prcb->Number == 0)
		trace_poll(); /* CPU 0 sends the trace */
}

void ke_clock_init(void)
{
	enum arch_timer_mode mode;

	switch (kconfig.timer) {
	case TIMER_DEADLINE: mode = ARCH_TIMER_DEADLINE; break;
	case TIMER_ONESHOT: mode = ARCH_TIMER_ONESHOT; break;
	case TIMER_PERIODIC: mode = ARCH_TIMER_PERIODIC; break;
	default:
		mode = arch_timer_mode_supported(ARCH_TIMER_DEADLINE) ? ARCH_TIMER_DEADLINE : ARCH_TIMER_ONESHOT;
		break;
	}
	if (!arch_timer_mode_supported(mode)) {
		kprintf("clock: timer=%s is not available on this CPU; using one-shot mode\n",
			arch_timer_mode_name(mode));
		mode = ARCH_TIMER_ONESHOT;
	}
	arch_timer_set_mode(mode);
	clock_tick_cycles = ke_tsc_hz / kconfig.tick_hz;
	arch_interrupt_connect(ARCH_INT_CLOCK, clock_interrupt);
	kprintf("clock: %u Hz tick at IRQL %u (vector 0x%x), timer in %s mode\n", kconfig.tick_hz,
		arch_interrupt_irql(ARCH_INT_CLOCK), arch_interrupt_vector(ARCH_INT_CLOCK), arch_timer_mode_name(mode));
}

void ke_clock_start_cpu(void)
{
	KPRCB *prcb = ke_get_current_prcb();
	KTIMER_ENTRY *tick = &clock_tick_entry[prcb->Number];
	unsigned long flags = arch_irq_save();

	arch_timer_enable();
	ke_timer_entry_init(tick, clock_tick, NULL);
	ki_timer_queue_insert(&prcb->TimerQueue, tick, arch_rdtsc() + clock_tick_cycles, clock_tick_cycles);
	if (arch_timer_get_mode() == ARCH_TIMER_PERIODIC)
		arch_timer_start_periodic(clock_tick_cycles);
	else
		clock_rearm(prcb);
	arch_irq_restore(flags);
}

void ke_set_timer_current(KTIMER_ENTRY *e, uint64_t deadline_tsc, uint64_t period_tsc)
{
	KPRCB *prcb = ke_get_current_prcb();
	unsigned long flags = arch_irq_save();

	ki_timer_queue_insert(&prcb->TimerQueue, e, deadline_tsc, period_tsc);
	if (prcb->TimerQueue.Head == e)
		clock_rearm(prcb);
	arch_irq_restore(flags);
}

bool ke_cancel_timer(KTIMER_ENTRY *e)
{
	return ki_timer_queue_remove(e);
}
