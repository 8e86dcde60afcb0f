/*
 * dispatch.c - the dispatcher: making threads ready, choosing a CPU,
 * preemption, quantum end, and the thread switch itself.
 *
 * Where a ready thread goes (choose_processor), whether it was just made
 * ready, preempted, yielded or requeued at a new priority (every path goes
 * through ki_deferred_ready_thread): an idle CPU it may run on (idle.c:
 * its ideal processor first, then the one it last ran on, then any),
 * claimed and kicked at once; otherwise, if some CPU it may use will run
 * a lower priority once it has answered what it was asked (its running
 * thread's, or that of the thread given to it to run next, PreemptThread,
 * as NT's NextThread), the lowest such CPU - among equals this CPU, then
 * the thread's ideal processor, then its last - which is asked to
 * reschedule (preemption, by IPI when it is another CPU); otherwise its
 * ideal CPU's queue, to wait.  Every request to reschedule notes its time
 * (DispatchRequestTsc); the answer records a late one as a stall where
 * only the host or masked interrupts can have delayed it.  A CPU that
 * blocks or answers a kick with nothing of its own looks through every
 * queue (readyq.c), so no thread waits in a busy CPU's queue while a CPU
 * it may run on idles.
 *
 * When a CPU reschedules (ki_dispatch_interrupt, at DISPATCH_LEVEL when
 * its IRQL falls below it with DispatchPending set) it takes the best
 * ready thread that may run there (readyq.c) if that beats the running
 * one: strictly higher priority, or equal at the end of a quantum (round
 * robin).  The thread it replaces is made ready again.
 *
 * The switch (ki_swap_thread) happens with the dispatcher lock held and
 * interrupts off; the thread switched to releases the lock, on this same
 * CPU.  It writes the CSwitch record, charges the old thread's cycles and
 * remembers when it left the CPU (its wait time starts there).
 *
 * Invariants: a thread is Running on at most one CPU (the CurrentThread of
 * that CPU); a Ready thread is in exactly one ready queue; a Waiting thread
 * is in none; the idle thread is never queued; a CPU's PreemptThread, when
 * set, is Ready in that CPU's queue (cleared when it leaves the queue and
 * when the CPU switches or answers); a CPU in KiIdleSummary runs its idle
 * thread and no Ready thread that may run there is queued (idle.c).
 * Lock: the dispatcher lock for every ki_ function here (asserted) but
 * ki_note_dispatch_request (DispatchPending and DispatchRequestTsc are
 * set atomically: an idle CPU's clock tick asks itself without the lock);
 * the public calls take it themselves.  With lock checks, ki_swap_thread
 * also asserts that interrupts are off and that it switches this CPU's
 * running thread to another one.
 */
#include "kernel/sched/ki.h"

#include <arch/context.h>
#include <arch/cpu.h>
#include <arch/interrupt.h>

#include "kernel/debug/panic.h"
#include "kernel/ke/time/clock.h"

raw_lock_t KiDispatcherLock = RAW_LOCK_INIT;

static bool cpu_usable(const KTHREAD *t, uint32_t cpu)
{
	return cpu < ke_number_processors && KiProcessorBlock[cpu]->IdleThread && affinity_test(&t->Affinity, cpu);
}

/* The priority CPU c runs at once it has answered what it was asked: its
 * running thread's (-1 for its idle thread), or that of the thread given
 * to it to run next (PreemptThread), if higher.  A CPU asked to make room
 * for one thread is not a place for the next one of no higher priority:
 * it would wait in that queue while another CPU runs a lower priority. */
static int priority_after_answer(uint32_t c)
{
	const KPRCB *p = KiProcessorBlock[c];
	const KTHREAD *cur = p->CurrentThread;
	int prio = cur->Idle ? -1 : cur->Priority;

	if (p->PreemptThread && p->PreemptThread->Priority > prio)
		prio = p->PreemptThread->Priority;
	return prio;
}

/* Among CPUs running equally low priorities, the one that preempts
 * soonest and surest: this CPU (no IPI: at once when its IRQL drops), then
 * the thread's ideal processor, then the one it last ran on. */
static int tie_rank(const KTHREAD *t, uint32_t c, uint32_t self)
{
	return c == self ? 0 : c == t->IdealProcessor ? 1 : c == t->NextProcessor ? 2 : 3;
}

static uint32_t choose_processor(const KTHREAD *t, bool *preempt)
{
	uint32_t n = ke_number_processors;
	const uint32_t prefer[2] = { t->IdealProcessor, t->NextProcessor };

	*preempt = true;
	uint32_t idle = ki_select_idle_processor(t);
	if (idle < n)
		return idle;

	/* No idle CPU: the one that will run the lowest priority below ours
	 * once it has taken what it was given (an idle CPU already claimed
	 * counts at the priority of the thread it was given). */
	uint32_t self = ke_get_current_prcb()->Number;
	int lowest = t->Priority;
	uint32_t victim = n;
	for (uint32_t c = affinity_next(&t->Affinity, 0); c < n; c = affinity_next(&t->Affinity, c + 1)) {
		if (!cpu_usable(t, c))
			continue;
		int p = priority_after_answer(c);
		if (p < lowest || (p == lowest && victim < n && tie_rank(t, c, self) < tie_rank(t, victim, self))) {
			lowest = p;
			victim = c;
		}
	}
	if (victim < n)
		return victim;

	*preempt = false;
	for (int i = 0; i < 2; i++)
		if (cpu_usable(t, prefer[i]))
			return prefer[i];
	uint32_t c = affinity_next(&t->Affinity, 0);
	return c < n ? c : 0;
}

void ki_note_dispatch_request(KPRCB *p)
{
	uint64_t none = 0;

	p->DispatchPending = 1;
	__atomic_compare_exchange_n(&p->DispatchRequestTsc, &none, arch_rdtsc(), false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

void ki_request_dispatch(uint32_t cpu)
{
	KPRCB *p = KiProcessorBlock[cpu];

	ki_assert_dispatcher_locked();
	ki_note_dispatch_request(p);
	if (p != ke_get_current_prcb())
		arch_send_ipi(cpu, ARCH_INT_DPC); /* its exit path reschedules */
}

void ki_deferred_ready_thread(KTHREAD *t, bool front)
{
	bool preempt;

	ki_assert_dispatcher_locked();
	uint32_t cpu = choose_processor(t, &preempt);
	KPRCB *p = KiProcessorBlock[cpu];

	ki_idle_claim(cpu);
	ki_ready_queue_insert(p, t, front && cpu == t->NextProcessor);
	if (preempt) {
		if (!p->PreemptThread || t->Priority > p->PreemptThread->Priority)
			p->PreemptThread = t;
		ki_request_dispatch(cpu);
	}
}

void ki_ready_thread(KTHREAD *t, enum ki_adjust_reason reason, int8_t increment)
{
	ki_assert_dispatcher_locked();
	ki_deferred_ready_thread(t, false);
	/* After it is queued and its CPU kicked: from this time stamp on, any
	 * CPU may take it (a CPU the host stops in between delays both). */
	ki_trace_ready_thread(t, reason, increment);
}

void ki_after_switch(void)
{
	KPRCB *prcb = ke_get_current_prcb();
	KTHREAD *dead = prcb->DeferredFree;

	ki_assert_dispatcher_locked();
	if (dead) { /* its stack is no longer in use */
		prcb->DeferredFree = NULL;
		kva_free_stack(&dead->Stack);
	}
}

void ki_swap_thread(KPRCB *prcb, KTHREAD *old, KTHREAD *next)
{
	uint64_t now = arch_rdtsc();

	ki_assert_dispatcher_locked();
#if KPROF_LOCK_CHECKS
	KASSERT(!arch_irqs_enabled());
	KASSERT(prcb == ke_get_current_prcb() && old == prcb->CurrentThread && next && next != old);
#endif
	if (now > old->LastRunTsc)
		old->CycleTime += now - old->LastRunTsc;
	ki_trace_context_swap(prcb, old, next);
	if (old->Idle)
		prcb->IdleCState = 0;
	old->StateTsc = now;
	old->WaitTick = ke_tick_count;
	if (old->State == Terminated)
		prcb->DeferredFree = old;

	next->State = Running;
	next->NextProcessor = prcb->Number;
	next->LastRunTsc = now;
	next->ContextSwitches++;
	prcb->ContextSwitches++;
	prcb->CurrentThread = next;
	prcb->PreemptThread = NULL; /* it chose again: the best it may run */
	ki_idle_summary_update(prcb->Number, next->Idle); /* idle: nothing anywhere for it */

	arch_context_switch(&old->KernelStackPointer, next->KernelStackPointer);
	/* `old` runs again here, perhaps on another CPU, lock held. */
	ki_after_switch();
}

void ki_block_current(void)
{
	KPRCB *prcb = ke_get_current_prcb();
	KTHREAD *cur = prcb->CurrentThread;

	ki_assert_dispatcher_locked();
	KTHREAD *next = ki_find_ready_thread(prcb->Number, 0, true);
	KASSERT(!cur->Idle && cur->State != Running && cur->State != Ready);
	ki_swap_thread(prcb, cur, next ? next : prcb->IdleThread);
}

/* The answer to a request to reschedule (a kick, a preemption, its own
 * clock tick), whoever asked.  A late answer (more than 200 us: clock.c)
 * is recorded as a stall only where nothing of this CPU's own can have
 * held it back: the whole wait of an idle CPU kicked (its idle thread
 * holds nothing), and, for a request that came while the CPU ran below
 * DISPATCH_LEVEL (answered on an interrupt's way out, `after_interrupt`),
 * the wait until the DPCs that ran first began (`own_work`, 0: none).
 * Only the host not running the CPU, or interrupts off, delay those.  An
 * answer on the way down from DISPATCH_LEVEL may be this CPU's own doing
 * (a DPC, a spin lock held) and is not recorded. */
static void answer_request(KPRCB *prcb, bool after_interrupt, uint64_t own_work)
{
	uint64_t asked = __atomic_exchange_n(&prcb->DispatchRequestTsc, 0, __ATOMIC_RELAXED);
	uint64_t kicked = ki_idle_kick_answered(prcb);
	uint64_t now = arch_rdtsc();

	if (kicked)
		ke_clock_note_late_kick(kicked, now);
	else if (after_interrupt && asked)
		ke_clock_note_late_kick(asked, own_work ? own_work : now);
}

static void dispatch(bool after_interrupt, uint64_t own_work)
{
	unsigned long flags = ki_lock_dispatcher();
	KPRCB *prcb = ke_get_current_prcb();
	KTHREAD *cur = prcb->CurrentThread;
	bool quantum_end = prcb->QuantumEnd;

	prcb->DispatchPending = 0;
	prcb->QuantumEnd = 0;
	answer_request(prcb, after_interrupt, own_work);
	prcb->PreemptThread = NULL; /* it takes the best now */
	if (cur) {
		int min = cur->Idle ? 0 : cur->Priority + (quantum_end ? 0 : 1);
		KTHREAD *next = ki_find_ready_thread(prcb->Number, min, true);
		if (next) {
			if (!cur->Idle) {
				cur->WaitReason = quantum_end ? WrQuantumEnd : WrPreempted;
				cur->WaitMode = KernelMode;
				ki_deferred_ready_thread(cur, !quantum_end);
			}
			ki_swap_thread(prcb, cur, next);
		} else if (cur->Idle) {
			/* The thread queued for this idle CPU was taken by another
			 * CPU meanwhile: idle again, and choosable again. */
			ki_idle_summary_update(prcb->Number, true);
		}
	}
	ki_unlock_dispatcher(flags);
}

void ki_dispatch_interrupt(void)
{
	dispatch(false, 0);
}

void ki_dispatch_after_interrupt(uint64_t own_work_tsc)
{
	dispatch(true, own_work_tsc);
}

/* The IRQL code's way into the dispatcher (kernel/ke/irql.c). */
KE_DISPATCHER(sched_dispatcher, .dispatch = ki_dispatch_interrupt, .after_interrupt = ki_dispatch_after_interrupt);

void ki_sched_clock_tick(KTRAP_FRAME *tf)
{
	KPRCB *prcb = ke_get_current_prcb();
	KTHREAD *cur = prcb->CurrentThread; /* only this CPU changes it, and not now */
	unsigned long flags;

	if (prcb->Number == 0)
		ke_tick_count++;
	if (!cur)
		return;
	/* Most ticks find nothing to do: the dispatcher lock is taken only
	 * when a quantum ended or a lock-free look at the ready queues says
	 * a thread may be waiting for this CPU. */
	if (cur->Idle) {
		/* Idle with work queued elsewhere that may run here: take it. */
		if (ki_ready_hint(0))
			ki_note_dispatch_request(prcb); /* the dispatch looks properly */
		return;
	}
	if (ki_charge_cycles(cur, arch_rdtsc())) {
		/* Quantum end: the boost decays; round robin among equals. */
		flags = ki_lock_dispatcher();
		ki_quantum_end(cur);
		if (ki_find_ready_thread(prcb->Number, cur->Priority, false)) {
			prcb->QuantumEnd = 1;
			ki_note_dispatch_request(prcb);
		}
		ki_unlock_dispatcher(flags);
	} else if (ki_ready_hint(__atomic_load_n(&cur->Priority, __ATOMIC_RELAXED) + 1)) {
		/* A better thread may wait in some queue (two were made ready at
		 * once and only one CPU was asked to make room): give way now, so
		 * no thread waits behind a lower one for more than a tick. */
		flags = ki_lock_dispatcher();
		if (ki_find_ready_thread(prcb->Number, cur->Priority + 1, false))
			ki_note_dispatch_request(prcb);
		ki_unlock_dispatcher(flags);
	}
}

/* The scheduler's tick: first of the clock's tick clients (the quantum
 * before the watchdog and the trace's sender). */
static void sched_tick(struct kprcb *prcb, KTRAP_FRAME *tf)
{
	(void)prcb;
	ki_sched_clock_tick(tf);
}
KE_TICK_CLIENT(sched_tick_client, sched_tick, 10);

void ke_yield_execution(void)
{
	unsigned long flags;
	KIRQL old = ki_enter(&flags);
	KPRCB *prcb = ke_get_current_prcb();
	KTHREAD *cur = prcb->CurrentThread;
	KTHREAD *next = ki_find_ready_thread(prcb->Number, cur->Priority, true);

	if (next) {
		cur->WaitReason = WrYieldExecution;
		cur->WaitMode = KernelMode;
		/* An idle CPU it may run on takes it now; else it preempts a
		 * lower priority, or waits behind its equals. */
		ki_deferred_ready_thread(cur, false);
		ki_swap_thread(prcb, cur, next);
	}
	ki_leave(old, flags);
}

KTHREAD *ke_get_current_thread(void)
{
	return arch_percpu_read_ptr(__builtin_offsetof(KPRCB, CurrentThread));
}

int8_t ke_set_priority_thread(KTHREAD *t, int8_t priority)
{
	unsigned long flags;
	KIRQL old = ki_enter(&flags);
	int8_t prev = t->Priority;

	ki_set_priority_locked(t, priority);
	/* A running thread that lowered itself may have to give way. */
	if (t->State == Running && ki_find_ready_thread(t->NextProcessor, priority + 1, false))
		ki_request_dispatch(t->NextProcessor);
	ki_leave(old, flags);
	return prev;
}
