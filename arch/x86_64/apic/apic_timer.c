/*
 * apic_timer.c - the local APIC timer in TSC-deadline, one-shot or
 * periodic mode.
 *
 * Calibration: count down from 0xFFFFFFFF (divide by 1) for 10 ms of TSC
 * time, bracketing the count read between two TSC reads.  One-shot arming
 * converts the TSC distance to timer ticks with this CPU's rate; distances
 * beyond the 32-bit counter fire early and the timer queue re-arms.
 */
#include <arch/cpu.h>
#include <arch/dev/timer.h>

#include "arch/x86_64/apic/lapic.h"
#include "arch/x86_64/x86.h"
#include "kernel/lib/muldiv.h"
#include "kernel/arch_services.h"

#define MSR_TSC_DEADLINE 0x6E0u
#define TIMER_DIVIDE_1   0xB
#define CALIBRATE_US     10000

static enum arch_timer_mode timer_mode = ARCH_TIMER_ONESHOT;
/* The vector each CPU's LVT timer entry raises now (one-shot and deadline
 * modes), so re-arming for the same purpose writes no LVT. */
static uint8_t lvt_vector[KPROF_MAX_CPUS];

bool arch_timer_mode_supported(enum arch_timer_mode mode)
{
	uint32_t r[4];
	if (mode != ARCH_TIMER_DEADLINE)
		return true;
	cpuid_count(1, 0, r);
	return (r[2] & (1u << 24)) != 0;
}

const char *arch_timer_mode_name(enum arch_timer_mode mode)
{
	switch (mode) {
	case ARCH_TIMER_DEADLINE: return "TSC-deadline";
	case ARCH_TIMER_ONESHOT: return "one-shot";
	case ARCH_TIMER_PERIODIC: return "periodic";
	}
	return "?";
}

void arch_timer_set_mode(enum arch_timer_mode mode)
{
	timer_mode = mode;
}

enum arch_timer_mode arch_timer_get_mode(void)
{
	return timer_mode;
}

uint64_t arch_timer_calibrate(void)
{
	uint64_t best_gap = UINT64_MAX, t0 = 0, t1, c0 = 0, c1;

	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VECTOR_CLOCK);
	lapic_write(LAPIC_TIMER_DIV, TIMER_DIVIDE_1);
	lapic_write(LAPIC_TIMER_INIT, 0xFFFFFFFFu);
	for (int i = 0; i < 8; i++) {
		uint64_t a = arch_rdtsc();
		uint32_t c = lapic_read(LAPIC_TIMER_CUR);
		uint64_t b = arch_rdtsc();
		if (b - a < best_gap) {
			best_gap = b - a;
			t0 = a + (b - a) / 2;
			c0 = c;
		}
	}
	uint64_t wait = ke_us_to_tsc(CALIBRATE_US);
	while (arch_rdtsc() - t0 < wait)
		arch_cpu_relax();
	uint64_t a = arch_rdtsc();
	c1 = lapic_read(LAPIC_TIMER_CUR);
	uint64_t b = arch_rdtsc();
	t1 = a + (b - a) / 2;
	lapic_write(LAPIC_TIMER_INIT, 0);
	if (c1 >= c0 || t1 <= t0)
		return 0;
	return mul_div_u64(c0 - c1, ke_tsc_hz, t1 - t0);
}

void arch_timer_enable(void)
{
	lvt_vector[ke_get_current_prcb()->Number] = VECTOR_CLOCK;
	lapic_write(LAPIC_TIMER_DIV, TIMER_DIVIDE_1);
	if (timer_mode == ARCH_TIMER_DEADLINE) {
		lapic_write(LAPIC_LVT_TIMER, LVT_TIMER_DEADLINE | VECTOR_CLOCK);
		/* SDM: order the LVT write before any deadline MSR write. */
		__asm__ volatile("mfence" ::: "memory");
	} else if (timer_mode == ARCH_TIMER_ONESHOT) {
		lapic_write(LAPIC_LVT_TIMER, VECTOR_CLOCK);
	}
}

void arch_timer_arm(uint64_t deadline_tsc)
{
	if (timer_mode == ARCH_TIMER_DEADLINE) {
		wrmsr(MSR_TSC_DEADLINE, deadline_tsc ? deadline_tsc : 1);
		return;
	}
	uint64_t now = arch_rdtsc();
	uint64_t ticks = deadline_tsc > now ? mul_div_u64(deadline_tsc - now, ke_get_current_prcb()->TimerHz, ke_tsc_hz) : 1;
	if (ticks == 0)
		ticks = 1;
	if (ticks > 0xFFFFFFFFu)
		ticks = 0xFFFFFFFFu;
	lapic_write(LAPIC_TIMER_INIT, (uint32_t)ticks);
}

void arch_timer_arm_for(uint64_t deadline_tsc, enum arch_interrupt which)
{
	uint8_t v = arch_interrupt_vector(which);
	uint8_t *cur = &lvt_vector[ke_get_current_prcb()->Number];

	if (timer_mode != ARCH_TIMER_PERIODIC && *cur != v) {
		*cur = v;
		if (timer_mode == ARCH_TIMER_DEADLINE) {
			/* Changing only the vector keeps the mode, so an armed
			 * deadline stays armed until the write below. */
			lapic_write(LAPIC_LVT_TIMER, LVT_TIMER_DEADLINE | v);
			/* SDM: the LVT write before the deadline MSR write below. */
			__asm__ volatile("mfence" ::: "memory");
		} else {
			lapic_write(LAPIC_LVT_TIMER, v);
		}
	}
	arch_timer_arm(deadline_tsc);
}

void arch_timer_start_periodic(uint64_t period_tsc)
{
	uint64_t ticks = mul_div_u64(period_tsc, ke_get_current_prcb()->TimerHz, ke_tsc_hz);
	if (ticks == 0)
		ticks = 1;
	if (ticks > 0xFFFFFFFFu)
		ticks = 0xFFFFFFFFu;
	lapic_write(LAPIC_LVT_TIMER, LVT_TIMER_PERIODIC | VECTOR_CLOCK);
	lapic_write(LAPIC_TIMER_DIV, TIMER_DIVIDE_1);
	lapic_write(LAPIC_TIMER_INIT, (uint32_t)ticks);
}

void arch_timer_stop(void)
{
	if (timer_mode == ARCH_TIMER_DEADLINE)
		wrmsr(MSR_TSC_DEADLINE, 0);
	lapic_write(LAPIC_TIMER_INIT, 0);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VECTOR_CLOCK);
}
