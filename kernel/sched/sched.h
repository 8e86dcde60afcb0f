/*
 * sched.h - threads, processes, the dispatcher and waiting: the interface.
 *
 * Threads run kernel code only.  Priorities 0..31 as NT: 1..15 variable
 * (boosted when woken, decaying by one each quantum end back to the base),
 * 16..31 real-time (never boosted).  A thread runs until it waits, yields,
 * ends, is preempted by a higher-priority thread that may run on its CPU,
 * or its quantum (counted in CPU cycles) ends while a thread of at least
 * its priority is ready.
 */
#ifndef KPROF_KERNEL_SCHED_SCHED_H
#define KPROF_KERNEL_SCHED_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/trapframe.h>

#include "kernel/ke/prcb.h"
#include "kernel/sched/ketypes.h"

#define KE_WAIT_FOREVER UINT64_MAX /* time-out argument: no time-out */

extern KPROCESS *ps_idle_process;   /* PID 0: the idle threads       */
extern KPROCESS *ps_system_process; /* PID 4: every other thread     */
extern volatile uint32_t ke_tick_count; /* clock ticks of CPU 0 (KeTickCount) */

/* ---- set-up (boot CPU, then each other CPU) ---- */
void ke_init_scheduler(uintptr_t boot_stack_base, uintptr_t boot_stack_top);
/* Another CPU: its start-up context becomes its idle thread; never returns. */
__attribute__((noreturn)) void ki_idle_thread_start(KPRCB *prcb, uintptr_t stack_base, uintptr_t stack_top);
/* The clock tick's share: charge cycles, end quanta (CLOCK_LEVEL). */
void ki_sched_clock_tick(KTRAP_FRAME *tf);
/* Reschedule if requested (called when IRQL falls below DISPATCH_LEVEL). */
void ki_dispatch_interrupt(void);
/* The same on the way out of an interrupt that came while this CPU ran
 * below DISPATCH_LEVEL: nothing of this CPU's own held the request back
 * until `own_work_tsc`, when the DPCs that ran first began (0: none ran),
 * so the part of an answer more than 200 us late before then is a stall
 * (the CPU took no interrupt: not run by the host, or interrupts off) and
 * is recorded as one (KprofClockLate, InstructionPointer 0). */
void ki_dispatch_after_interrupt(uint64_t own_work_tsc);
/* The idle thread, when its CPU comes online (PASSIVE_LEVEL): is a
 * thread that may run here queued on any CPU?  Then it is run now (true,
 * once the idle thread runs again); false: nothing. */
bool ki_idle_look_for_work(void);

/* ---- threads ---- */
KTHREAD *ps_create_system_thread(KPROCESS *process, PKSTART_ROUTINE start, void *context, int8_t priority,
				 const KAFFINITY_EX *affinity, const char *name);
__attribute__((noreturn)) void ps_terminate_system_thread(void);
KTHREAD *ke_get_current_thread(void);
int8_t ke_set_priority_thread(KTHREAD *t, int8_t priority);
void ke_yield_execution(void);
/* Sleep for `us` microseconds (WrDelayExecution). */
NTSTATUS ke_delay_execution_thread(uint64_t us);

/* After trace_start(), in a thread: a KprofThread record for each thread
 * that exists (the rundown); later threads get theirs when created. */
void ps_trace_rundown(void);

/* ---- processes ---- */
KPROCESS *ps_create_process(const char *name, int8_t base_priority);

/* ---- dispatcher objects ---- */
void ke_initialize_event(KEVENT *e, EVENT_TYPE type, bool state);
int32_t ke_set_event(KEVENT *e, int increment, bool wait_next);
int32_t ke_reset_event(KEVENT *e);
int32_t ke_read_state_event(const KEVENT *e);

void ke_initialize_semaphore(KSEMAPHORE *s, int32_t count, int32_t limit);
/* Adds `adjustment`; STATUS_SEMAPHORE_LIMIT_EXCEEDED (count unchanged)
 * when it would pass the limit.  *previous gets the old count. */
NTSTATUS ke_release_semaphore(KSEMAPHORE *s, int increment, int32_t adjustment, int32_t *previous);

void ke_initialize_mutant(KMUTANT *m, bool initial_owner);
/* STATUS_MUTANT_NOT_OWNED when the caller does not own it. */
NTSTATUS ke_release_mutant(KMUTANT *m, int increment, bool abandoned);

void ke_initialize_timer(KTIMER *t, TIMER_TYPE type);
/* Due `us` microseconds from now, then every `period_us` (0: once).
 * Returns whether it was already set. */
bool ke_set_timer(KTIMER *t, uint64_t us, uint64_t period_us, struct kdpc *dpc);
bool ke_cancel_timer_object(KTIMER *t);

/* ---- waiting ---- */
/* Wait for one object; `timeout_us` 0 polls, KE_WAIT_FOREVER never ends.
 * Returns STATUS_WAIT_0 (STATUS_ABANDONED_WAIT_0 for an abandoned mutant)
 * or STATUS_TIMEOUT.  Below DISPATCH_LEVEL unless timeout_us is 0. */
NTSTATUS ke_wait_for_single_object(void *object, uint8_t wait_reason, KPROCESSOR_MODE mode, uint64_t timeout_us);
/* WaitAny: STATUS_WAIT_0 + index of the object that ended it; WaitAll:
 * STATUS_WAIT_0 when all were signaled at once.  `blocks` may be NULL for
 * up to THREAD_WAIT_OBJECTS objects. */
NTSTATUS ke_wait_for_multiple_objects(uint32_t count, void *const objects[], WAIT_TYPE type, uint8_t wait_reason,
				      KPROCESSOR_MODE mode, uint64_t timeout_us, KWAIT_BLOCK *blocks);

/* ---- resource owner boosts (boost.c; for kernel/ex/resource_wait.c) ---- */
/* NT's ExpBoostOwnerThread: a waiter has waited a whole slice for a
 * resource `owner` holds.  A variable-priority owner running below both
 * KE_RESOURCE_BOOST_PRIORITY (14) and the waiter is raised to 14, as a
 * boost that decays one level per quantum end; a Ready owner is queued
 * again at its new priority.  True if it was raised. */
#define KE_RESOURCE_BOOST_PRIORITY 14
bool ke_boost_owner_thread(KTHREAD *owner, KTHREAD *waiter);

#endif /* KPROF_KERNEL_SCHED_SCHED_H */
