/*
 * ki.h - the dispatcher's internal interface between its files.
 *
 * Every function here expects the dispatcher lock to be held by the
 * calling CPU (and thus interrupts disabled), except where it says
 * otherwise, and asserts it on entry (ki_assert_dispatcher_locked(),
 * dispatcher_lock.h): the set-up ki_ready_queue_init and ki_header_init,
 * the lock-free ki_ready_hint, the [own]-field quantum helpers
 * (ki_reset_quantum, ki_charge_cycles, ki_remaining_quantum),
 * ki_note_dispatch_request (atomic) and ki_trace_thread are the exceptions; ki_idle_look_for_work (sched.h)
 * takes the lock itself.
 */
#ifndef KPROF_KERNEL_SCHED_KI_H
#define KPROF_KERNEL_SCHED_KI_H

#include "kernel/ke/irql.h"
#include "kernel/sched/dispatcher_lock.h"
#include "kernel/sched/sched.h"

/* Dispatcher entry from a public call: DISPATCH_LEVEL and the lock; and
 * back, which runs any reschedule the call asked for. */
static inline KIRQL ki_enter(unsigned long *flags)
{
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	*flags = ki_lock_dispatcher();
	return old;
}

static inline void ki_leave(KIRQL old, unsigned long flags)
{
	ki_unlock_dispatcher(flags);
	ke_lower_irql(old);
}

/* ReadyThread AdjustReason values (as Windows' ReadyThread event). */
enum ki_adjust_reason { AdjustNone = 0, AdjustUnwait = 1, AdjustBoost = 2 };

/* readyq.c: per-CPU ready queues. */
void ki_ready_queue_init(KPRCB *prcb);
void ki_ready_queue_insert(KPRCB *prcb, KTHREAD *t, bool front);
void ki_ready_queue_remove(KTHREAD *t);
/* The ready thread that should run on `cpu` next: the highest priority
 * >= min_priority that may run there, from any CPU's queue (this CPU's
 * first at equal priority); removed from its queue if `take`. */
KTHREAD *ki_find_ready_thread(uint32_t cpu, int min_priority, bool take);
/* Without the lock: is anything of at least min_priority queued on any
 * CPU?  A hint (it ignores affinity and may be stale by the time it is
 * acted on): the clock tick takes the lock only when it says yes. */
bool ki_ready_hint(int min_priority);

/* priority.c: quantum accounting, boosts and decay (no lock needed for
 * the running thread's own accounting; priority changes need it). */
extern uint64_t ki_quantum_cycles;
void ki_reset_quantum(KTHREAD *t);
/* Charge the running thread's cycles since LastRunTsc ([own] fields, no
 * lock); true when its quantum has run out. */
bool ki_charge_cycles(KTHREAD *t, uint64_t now);
/* At a quantum end (dispatcher lock held): the boost decays by one and a
 * new quantum starts. */
void ki_quantum_end(KTHREAD *t);
int32_t ki_remaining_quantum(const KTHREAD *t);
/* A woken variable-priority thread: base + increment, at most 15. */
void ki_boost_priority(KTHREAD *t, int increment);
void ki_set_priority_locked(KTHREAD *t, int8_t priority);

/* idle.c: idle processors.  KiIdleSummary [D]: bit n set while CPU n
 * idles and no thread has been given to it since. */
extern KAFFINITY_EX KiIdleSummary;
void ki_idle_summary_update(uint32_t cpu, bool idle);
/* A thread is given to `cpu`: out of the summary if it was in, and if it
 * is another CPU, the time of its kick noted (IdleKickTsc). */
void ki_idle_claim(uint32_t cpu);
/* This CPU reschedules: a kick it had not answered is answered now (its
 * timer cancelled); returns when it was sent, 0 if none was. */
uint64_t ki_idle_kick_answered(KPRCB *prcb);
/* An idle CPU t may run on (ideal, then last, then the lowest), or
 * ke_number_processors when none is idle. */
uint32_t ki_select_idle_processor(const KTHREAD *t);

/* dispatch.c: making threads ready, choosing CPUs, switching. */
void ki_ready_thread(KTHREAD *t, enum ki_adjust_reason reason, int8_t increment);
/* Place a thread that is ready (made ready, preempted, yielding, or
 * requeued at a new priority) without a ReadyThread record: an idle CPU
 * it may run on, claimed and kicked; else the CPU running the lowest
 * priority below its own, asked to reschedule; else its ideal CPU's
 * queue.  `front` keeps a preempted thread's place on its own CPU (NT's
 * KiDeferredReadyThread). */
void ki_deferred_ready_thread(KTHREAD *t, bool front);
/* Ask `cpu` to reschedule (its DispatchPending; an IPI when it is another
 * CPU) and note when, for the answer (ki_note_dispatch_request). */
void ki_request_dispatch(uint32_t cpu);
/* p is asked to reschedule: DispatchPending set, and the time of the first
 * request since its last answer noted (DispatchRequestTsc, atomically: the
 * clock tick of an idle CPU asks without the lock); ki_dispatch_interrupt
 * answers and records an answer more than 200 us late as a stall. */
void ki_note_dispatch_request(KPRCB *p);
/* The current thread has set its own State (Waiting, Terminated): run the
 * next one.  Returns when the thread runs again (lock held again). */
void ki_block_current(void);
void ki_swap_thread(KPRCB *prcb, KTHREAD *old, KTHREAD *next);
/* Right after a switch, in the thread that now runs (lock held). */
void ki_after_switch(void);

/* event.c: a fresh DISPATCHER_HEADER. */
void ki_header_init(DISPATCHER_HEADER *h, uint8_t type, int32_t state);

/* wait.c: dispatcher objects and wait blocks. */
bool ki_object_signaled(const DISPATCHER_HEADER *h, const KTHREAD *t);
void ki_satisfy(DISPATCHER_HEADER *h, KTHREAD *t);
/* The object became signaled: satisfy as many waiters as it allows. */
void ki_signal_waiters(DISPATCHER_HEADER *h, int increment);
/* End t's wait with `status`, unlink its blocks, cancel its time-out,
 * boost it and make it ready. */
void ki_unwait_thread(KTHREAD *t, NTSTATUS status, int increment);
/* Start a wait: STATUS_PENDING when t must block (blocks linked, state
 * Waiting), otherwise the status it ends with at once. */
NTSTATUS ki_wait_setup(KTHREAD *t, uint32_t count, void *const objects[], WAIT_TYPE type, uint8_t reason,
		       KPROCESSOR_MODE mode, uint64_t timeout_us, KWAIT_BLOCK *blocks);
void ki_abandon_mutants(KTHREAD *t);

/* cswitch.c: the records. */
void ki_trace_context_swap(KPRCB *prcb, KTHREAD *old, KTHREAD *next);
void ki_trace_ready_thread(const KTHREAD *t, enum ki_adjust_reason reason, int8_t increment);

/* thread_trace.c: a KprofThread record for t (any IRQL). */
void ki_trace_thread(const KTHREAD *t);

#endif /* KPROF_KERNEL_SCHED_KI_H */
