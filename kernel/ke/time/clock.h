/*
 * clock.h - the per-CPU clock interrupt and timed callbacks on top of the
 * timer queue.
 */
#ifndef KPROF_KERNEL_CLOCK_H
#define KPROF_KERNEL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/ke/time/timerq.h"

/* Connect the clock interrupt and pick the timer mode (boot CPU, once). */
void ke_clock_init(void);
/* Start this CPU's timer and its clock tick (every CPU, interrupts off). */
void ke_clock_start_cpu(void);
/* Queue a callback on the current CPU (any IRQL <= CLOCK_LEVEL). */
void ke_set_timer_current(KTIMER_ENTRY *e, uint64_t deadline_tsc, uint64_t period_tsc);
/* Take an entry off whichever CPU's queue it is on; false if it was not
 * queued (it may be running its callback right now). */
bool ke_cancel_timer(KTIMER_ENTRY *e);
/* This CPU, interrupts off: re-arm the timer for the earliest deadline
 * (timer queue or profile timer). */
void ki_clock_rearm(void);
/* This CPU, interrupts off, from the profile interrupt: if timer-queue
 * work is due at `now`, send this CPU the clock interrupt (which re-arms
 * the timer when it runs), else re-arm the timer now. */
void ki_clock_after_profile(uint64_t now);
/* A CPU asked to reschedule at `sent` (an idle CPU kicked, or a request
 * that came while it ran below DISPATCH_LEVEL: sched/dispatch.c) answered
 * at `answered`: more than CLOCK_LATE_US later, that is a stretch in which
 * it took no interrupt (the host not running it, mostly), recorded like a
 * late clock interrupt (KprofClockLate, InstructionPointer 0) so readers
 * count it as a stall.  Not counted in the "came late" totals, which are
 * the clock's own. */
void ke_clock_note_late_kick(uint64_t sent, uint64_t answered);
/* This CPU, at DISPATCH_LEVEL or above (the record must not lower IRQL),
 * could execute nothing from `from` to `to` (an interrupt's end of
 * interrupt that the host held, say): more than CLOCK_LATE_US, recorded
 * as a stall like a late kick (InstructionPointer 0). */
void ke_clock_note_stall(uint64_t from, uint64_t to);
/* This CPU: its clock interrupts' arrival counts (KPRCB ClockArrival*)
 * start again from zero (at trace start, for KprofFidelity). */
void ke_clock_arrivals_reset(void);
/* Clock tick period in TSC cycles. */
uint64_t ke_clock_tick_cycles(void);

#endif
