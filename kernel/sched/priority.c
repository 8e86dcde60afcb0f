/*
 * priority.c - quanta counted in cycles, priority boosts and their decay.
 *
 * A thread's quantum is a cycle budget: QuantumTarget is the CycleTime at
 * which it ends (ki_quantum_cycles after it started).  The clock tick
 * charges the cycles the running thread used since it got the CPU.
 * A thread of variable priority (1..15) woken from a wait is boosted to
 * BasePriority + increment (at most 15); PriorityDecrement remembers how
 * much of its priority is boost, and each quantum end takes one away.
 * Real-time threads (16..31) are neither boosted nor decayed.
 *
 * Lock: charging cycles and the quantum arithmetic touch only [own]
 * fields of the running thread and take no lock; the quantum end, boosts
 * and priority changes need the dispatcher lock (asserted).  A Ready
 * thread whose priority changes is placed again as if just made ready
 * (dispatch.c), so raising it can take an idle CPU or preempt one.
 */
#include "kernel/sched/ki.h"

uint64_t ki_quantum_cycles;

void ki_reset_quantum(KTHREAD *t)
{
	t->QuantumTarget = t->CycleTime + ki_quantum_cycles;
}

bool ki_charge_cycles(KTHREAD *t, uint64_t now)
{
	if (now > t->LastRunTsc)
		t->CycleTime += now - t->LastRunTsc;
	t->LastRunTsc = now;
	return t->CycleTime >= t->QuantumTarget;
}

void ki_quantum_end(KTHREAD *t)
{
	ki_assert_dispatcher_locked();
	if (t->PriorityDecrement > 0) {
		t->Priority--;
		t->PriorityDecrement--;
	}
	ki_reset_quantum(t);
}

int32_t ki_remaining_quantum(const KTHREAD *t)
{
	int64_t left = (int64_t)(t->QuantumTarget - t->CycleTime);
	return (int32_t)(left / 1024);
}

void ki_boost_priority(KTHREAD *t, int increment)
{
	ki_assert_dispatcher_locked();
	if (t->BasePriority >= LOW_REALTIME_PRIORITY || increment <= 0)
		return;
	int p = t->BasePriority + increment;
	if (p > LOW_REALTIME_PRIORITY - 1)
		p = LOW_REALTIME_PRIORITY - 1;
	if (p > t->Priority) {
		t->Priority = (int8_t)p;
		t->PriorityDecrement = (int8_t)(p - t->BasePriority);
	}
}

void ki_set_priority_locked(KTHREAD *t, int8_t priority)
{
	bool queued = t->State == Ready;

	ki_assert_dispatcher_locked();
	if (queued)
		ki_ready_queue_remove(t);
	t->BasePriority = priority;
	t->Priority = priority;
	t->PriorityDecrement = 0;
	if (queued) /* placed again: an idle CPU, a CPU it now preempts, or a queue */
		ki_deferred_ready_thread(t, false);
}
