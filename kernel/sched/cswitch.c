/*
 * cswitch.c - the dispatcher's records: WMI_CONTEXTSWAP (version 4) at
 * every thread switch and ReadyThread when a thread becomes ready.
 *
 * CSwitch fields (docs/etw-records.md): thread ids and priorities of both threads;
 * PreviousCState, the C-state the CPU used while the old thread was the
 * idle thread (1 after hlt, 0 if it never halted); the new thread's
 * remaining boost (NewThreadPriorityDecrement); why and in which mode the
 * old thread stopped (OldThreadWaitReason: its wait reason, or
 * WrPreempted / WrQuantumEnd / WrYieldExecution / WrTerminated), its
 * state (KTHREAD_STATE), ideal processor and remaining quantum
 * ((QuantumTarget - CycleTime) / 1024); and NewThreadWaitTime, the clock
 * ticks since the new thread last left a CPU (KeTickCount units, as
 * Windows).  Written under the dispatcher lock (asserted), at
 * DISPATCH_LEVEL; a record that fills a sub-buffer queues the trace
 * flush DPC, the dispatcher -> DPC queue order.
 */
#include "kernel/sched/ki.h"

#include "kernel/trace/trace.h"

void ki_trace_context_swap(KPRCB *prcb, KTHREAD *old, KTHREAD *next)
{
	struct trace_record rec;
	WMI_CONTEXTSWAP *c;

	ki_assert_dispatcher_locked();
	if (!trace_enabled(PERF_CONTEXT_SWITCH))
		return;
	c = trace_record_begin(&rec, PERFINFO_LOG_TYPE_CONTEXTSWAP, CONTEXTSWAP_VERSION, sizeof(*c));
	if (!c)
		return;
	c->NewThreadId = next->ThreadId;
	c->OldThreadId = old->ThreadId;
	c->NewThreadPriority = next->Priority;
	c->OldThreadPriority = old->Priority;
	c->PreviousCState = old->Idle ? prcb->IdleCState : 0;
	c->NewThreadPriorityDecrement = next->PriorityDecrement;
	c->OldThreadWaitReason = old->WaitReason;
	c->Flags = old->WaitMode & CSWITCH_FLAG_WAIT_MODE_USER;
	c->OldThreadState = old->State;
	c->OldThreadIdealProcessor = old->IdealProcessor;
	c->NewThreadWaitTime = ke_tick_count - next->WaitTick;
	c->OldThreadRemainingQuantum = old->Idle ? 0 : ki_remaining_quantum(old);
	trace_record_commit(&rec);
}

void ki_trace_ready_thread(const KTHREAD *t, enum ki_adjust_reason reason, int8_t increment)
{
	WMI_READY_THREAD r = {
		.TThreadId = t->ThreadId,
		.AdjustReason = (int8_t)reason,
		.AdjustIncrement = increment,
	};

	ki_assert_dispatcher_locked();
	trace_log(PERF_CONTEXT_SWITCH, PERFINFO_LOG_TYPE_READY_THREAD, READY_THREAD_VERSION, &r, sizeof(r));
}
