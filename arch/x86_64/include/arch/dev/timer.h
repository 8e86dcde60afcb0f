/*
 * arch/dev/timer.h - the per-CPU interrupt timer behind the kernel's timer
 * queue (the local APIC timer on x86).
 *
 * Deadlines are TSC values.  In deadline and one-shot modes the timer is
 * armed for the earliest queued deadline; in periodic mode it interrupts
 * every period and the queue is checked each time.
 */
#ifndef KPROF_ARCH_TIMER_H
#define KPROF_ARCH_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/interrupt.h>

enum arch_timer_mode {
	ARCH_TIMER_DEADLINE, /* TSC-deadline: the deadline itself is programmed */
	ARCH_TIMER_ONESHOT,  /* count down from (deadline - now) in timer ticks */
	ARCH_TIMER_PERIODIC, /* fixed period; the queue is polled each tick     */
};

bool arch_timer_mode_supported(enum arch_timer_mode mode);
const char *arch_timer_mode_name(enum arch_timer_mode mode);
/* Choose the mode for every CPU (boot CPU, before any CPU uses it). */
void arch_timer_set_mode(enum arch_timer_mode mode);
enum arch_timer_mode arch_timer_get_mode(void);

/* Program this CPU's timer for the chosen mode (interrupts still off). */
void arch_timer_enable(void);
/* This CPU's timer rate in ticks per second, measured against the TSC. */
uint64_t arch_timer_calibrate(void);
/* One-shot and deadline modes: interrupt at (or just after) deadline. */
void arch_timer_arm(uint64_t deadline_tsc);
/* The same, raising `which` (ARCH_INT_CLOCK or ARCH_INT_PROFILE) instead
 * of the clock interrupt: one timer serves the clock and the profile
 * timer, and the vector says which is due.  Interrupts off. */
void arch_timer_arm_for(uint64_t deadline_tsc, enum arch_interrupt which);
/* Periodic mode: interrupt every period_tsc cycles from now. */
void arch_timer_start_periodic(uint64_t period_tsc);
void arch_timer_stop(void);

#endif
