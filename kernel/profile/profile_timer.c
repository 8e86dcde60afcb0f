/*
 * profile_timer.c - the ProfileTime source: a per-CPU profile interrupt
 * every interval, from the same local interrupt timer as the clock.
 *
 * Each CPU has one interrupt timer.  While the profile timer runs on a
 * CPU, the clock (kernel/ke/time/clock.c) arms the timer for whichever comes
 * first, the timer queue's next deadline or the profile timer's, and
 * tells the timer which purpose to raise: ARCH_INT_CLOCK (CLOCK_LEVEL) or
 * ARCH_INT_PROFILE (PROFILE_LEVEL).  So a profile interrupt arrives at
 * PROFILE_LEVEL and can sample code running at CLOCK_LEVEL and below, as
 * on Windows, and the clock tick keeps its own rate.  When the profile
 * interrupt finds clock work due as well, it sends this CPU the clock
 * interrupt, which runs as soon as IRQL falls below CLOCK_LEVEL and
 * re-arms the timer.
 *
 * Invariants: a CPU's state (Due, Period) is read and written only on that
 * CPU with interrupts off.  Due is 0 exactly when the profile timer is off
 * on that CPU.  Due advances by whole periods; periods that passed
 * unserved (interrupts masked too long) are counted in Missed, not
 * replayed: the interrupt that comes after them stands for them too
 * (its Weight, the SampledProfile's Count).
 * Lock order: none here (the timer queue's lock inside ki_clock_rearm).
 */
#include "kernel/profile/profile_timer.h"

#include <arch/cpu.h>
#include <arch/interrupt.h>

#include "kernel/ke/time/clock.h"
#include "kernel/ke/prcb.h"
#include "kernel/profile/profile.h"

struct profile_timer {
	uint64_t Due;    /* TSC of the next profile interrupt, 0 = off */
	uint64_t Period; /* TSC cycles                                  */
	uint64_t Fired;  /* profile interrupts delivered                */
	uint64_t Missed; /* periods that passed without one             */
	uint32_t Weight; /* periods the interrupt being handled stands for */
};

static struct profile_timer ptimer[KPROF_MAX_CPUS];

uint64_t ki_profile_timer_due(uint32_t cpu)
{
	return ptimer[cpu].Due;
}

void ki_profile_timer_start_cpu(uint64_t period_tsc)
{
	struct profile_timer *pt = &ptimer[ke_get_current_processor_number()];
	unsigned long flags = arch_irq_save();

	pt->Period = period_tsc ? period_tsc : 1;
	pt->Due = arch_rdtsc() + pt->Period;
	ki_clock_rearm();
	arch_irq_restore(flags);
}

void ki_profile_timer_stop_cpu(void)
{
	struct profile_timer *pt = &ptimer[ke_get_current_processor_number()];
	unsigned long flags = arch_irq_save();

	pt->Due = 0;
	pt->Period = 0;
	ki_clock_rearm();
	arch_irq_restore(flags);
}

void ki_profile_timer_stats(uint32_t cpu, uint64_t *fired, uint64_t *missed)
{
	*fired = __atomic_load_n(&ptimer[cpu].Fired, __ATOMIC_RELAXED);
	*missed = __atomic_load_n(&ptimer[cpu].Missed, __ATOMIC_RELAXED);
}

/* Due has passed: the next one is the first whole period after now. */
static void advance(struct profile_timer *pt, uint64_t now)
{
	uint64_t next = pt->Due + pt->Period;
	pt->Weight = 1;
	if (next <= now) {
		uint64_t skipped = (now - pt->Due) / pt->Period;
		__atomic_store_n(&pt->Missed, pt->Missed + skipped, __ATOMIC_RELAXED);
		next = pt->Due + (skipped + 1) * pt->Period;
		pt->Weight = skipped + 1 > 0xFFFF ? 0xFFFF : (uint32_t)(skipped + 1);
	}
	pt->Due = next;
	__atomic_store_n(&pt->Fired, pt->Fired + 1, __ATOMIC_RELAXED);
}

static void profile_timer_interrupt(KTRAP_FRAME *tf)
{
	struct profile_timer *pt = &ptimer[ke_get_current_processor_number()];
	unsigned long flags = arch_irq_save();
	uint64_t now = arch_rdtsc();
	bool fire = pt->Due && now >= pt->Due;

	if (fire)
		advance(pt, now);
	ki_clock_after_profile(now);
	arch_irq_restore(flags);
	if (fire)
		ke_profile_interrupt_with_source(tf, ProfileTime);
	pt->Weight = 1; /* a ProfileTime dispatch from elsewhere stands for one */
}

uint32_t ki_profile_timer_weight(void)
{
	return ptimer[ke_get_current_processor_number()].Weight ?: 1;
}

/* The profile timer shares each CPU's timer with the clock: armed for its
 * next deadline when that comes first, to raise the profile interrupt. */
static const struct ke_timer_sharer profile_sharer = { .due = ki_profile_timer_due, .irq = ARCH_INT_PROFILE };

void ki_profile_timer_init(void)
{
	arch_interrupt_connect(ARCH_INT_PROFILE, profile_timer_interrupt);
	ke_clock_share_timer(&profile_sharer); /* before any CPU's clock starts */
}
