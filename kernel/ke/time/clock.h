/*
 * clock.h - the per-CPU clock interrupt and timed callbacks on top of the
 * timer queue.
 */
#ifndef KPROF_KERNEL_CLOCK_H
#define KPROF_KERNEL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/interrupt.h>
#include <arch/trapframe.h>

#include "include/kprof/wmi.h"
#include "kernel/ke/time/timerq.h"

struct kprcb;

/* A subsystem's work on every clock tick of every CPU (the scheduler's
 * quantum, the TSC watchdog, the trace's sender), declared with
 * KE_TICK_CLIENT in the subsystem's own file: the clock names none of
 * them, as Linux's tick and NT's KiTimerExpiration call out to theirs.
 * Each runs at CLOCK_LEVEL with interrupts off, on the CPU that ticks, in
 * `order` (lowest first; ties by name); a client decides for itself which
 * CPUs it works on.  The clock gathers them once (ke_clock_init). */
struct ke_tick_client {
	void (*tick)(struct kprcb *prcb, KTRAP_FRAME *tf);
	unsigned order;
	const char *name;
};

#define KE_TICK_CLIENTS_MAX 8

#define KE_TICK_CLIENT(ident, fn, ord)                                                                        \
	static const struct ke_tick_client ident = { .tick = (fn), .order = (ord), .name = #ident };             \
	static const struct ke_tick_client *const ident##_entry                                               \
		__attribute__((used, section("kprof_tick_clients"), aligned(sizeof(void *)))) = &ident

/* A second user of each CPU's timer (the profile timer): when its next
 * deadline on a CPU (0: none) comes before the timer queue's, the clock
 * arms the timer for it, to raise `irq` instead of the clock interrupt.
 * One at most; set once at boot, before any CPU's clock starts. */
struct ke_timer_sharer {
	uint64_t (*due)(uint32_t cpu);
	enum arch_interrupt irq;
};
void ke_clock_share_timer(const struct ke_timer_sharer *s);

/* Who records a stretch the CPU could not run (a late clock interrupt, a
 * late kick, a stall: KprofClockLate), the trace; set once when it starts.
 * Without one nothing is recorded, the counts in the KPRCB still are. */
typedef void (*ke_clock_late_fn)(const KPROF_CLOCK_LATE *r);
void ke_clock_set_late_recorder(ke_clock_late_fn fn);

/* Connect the clock interrupt, pick the timer mode and gather the tick
 * clients (boot CPU, once). */
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
