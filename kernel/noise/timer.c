/*
 * timer.c - scenario=noise's third pass: timer latency, after cyclictest.
 * With interrupts on, each CPU queues a periodic timer entry every
 * noise.timer_us on its own timer queue (kernel/ke/time/clock.h: the local
 * APIC timer, in TSC-deadline mode where the CPU has it, is armed for the
 * earliest deadline) and, in the callback, counts how late the expiry
 * came against its deadline.  At the end each CPU writes a
 * KprofTimerLatency record and the console says p50/p99/max.
 *
 * Invariants: lat[cpu] is written only by that CPU's callback (at
 * CLOCK_LEVEL) while the entry is queued, and read by the boot thread
 * after the broadcast that cancelled every entry returned.
 */
#include <arch/cpu.h>

#include "include/kprof/wmi.h"
#include "kernel/console/console.h"
#include "kernel/sched/broadcast.h"
#include "kernel/ke/time/clock.h"
#include "kernel/ke/cpus.h"
#include "kernel/ke/prcb.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/muldiv.h"
#include "kernel/mm/heap.h"
#include "kernel/noise/latency.h"
#include "kernel/noise/record.h"
#include "kernel/noise/timer.h"
#include "kernel/sched/sched.h"
#include "kernel/trace/trace.h"

struct timer_cpu {
	KTIMER_ENTRY entry;
	struct latency_hist hist;
};

struct timer_pass {
	struct timer_cpu *cpus; /* one per CPU */
	uint64_t period;        /* cycles     */
	uint32_t period_us;
};

static void expired(KTIMER_ENTRY *e, KTRAP_FRAME *tf, void *context)
{
	struct timer_cpu *c = context;
	uint64_t now = arch_rdtsc(), due = e->Deadline - e->Period; /* re-inserted before this runs */

	(void)tf;
	latency_add(&c->hist, now > due ? mul_div_u64(now - due, 1000000000, ke_tsc_hz) : 0);
}

static void arm(uint32_t cpu, void *ctx)
{
	struct timer_pass *p = ctx;
	if (cpu >= ke_number_processors || cpu >= KPROF_MAX_CPUS)
		return;
	ke_timer_entry_init(&p->cpus[cpu].entry, expired, &p->cpus[cpu]);
	ke_set_timer_current(&p->cpus[cpu].entry, arch_rdtsc() + p->period, p->period);
}

static void disarm(uint32_t cpu, void *ctx)
{
	struct timer_pass *p = ctx;
	if (cpu >= ke_number_processors || cpu >= KPROF_MAX_CPUS)
		return;
	ke_cancel_timer(&p->cpus[cpu].entry);
	const struct latency_hist *h = &p->cpus[cpu].hist;
	KPROF_TIMER_LATENCY k = {
		.MaxNs = h->max_ns, .SumNs = h->sum_ns, .Samples = h->samples,
		.Missed = p->cpus[cpu].entry.Missed, .P50Us = latency_percentile_us(h, 500),
		.P99Us = latency_percentile_us(h, 990), .IntervalUs = p->period_us, .Overflow = h->overflow,
	};
	noise_log(KPROF_LOG_TYPE_TIMER_LATENCY, TIMER_LATENCY_VERSION, &k, sizeof(k));
}

void noise_timer_pass(uint32_t ms, uint32_t period_us)
{
	uint32_t n = ke_number_processors < KPROF_MAX_CPUS ? ke_number_processors : KPROF_MAX_CPUS;
	struct timer_pass p = { .period = ke_us_to_tsc(period_us), .period_us = period_us };

	p.cpus = kzalloc(n * sizeof(*p.cpus));
	if (!p.cpus) {
		kprintf("noise: timer: no memory for %u CPUs: not measured\n", n);
		return;
	}
	kprintf("noise: timer: every CPU's timer every %u us for %u ms, interrupts on (cyclictest)\n", period_us, ms);
	ke_run_on_all_processors(arm, &p);
	ke_delay_execution_thread((uint64_t)ms * 1000);
	ke_run_on_all_processors(disarm, &p);
	for (uint32_t i = 0; i < n; i++) {
		const struct latency_hist *h = &p.cpus[i].hist;
		kprintf("noise: timer cpu %u: %u wake-ups (%u periods missed), late p50 %u us, p99 %u us, max %llu us\n",
			i, h->samples, p.cpus[i].entry.Missed, latency_percentile_us(h, 500),
			latency_percentile_us(h, 990), (unsigned long long)(h->max_ns / 1000));
	}
	kfree(p.cpus);
}
