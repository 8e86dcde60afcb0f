/*
 * dpc.c - queueing and running deferred procedure calls.
 *
 * Queueing (any CPU, any IRQL): take the target CPU's DpcLock with
 * interrupts off, claim the DPC by swinging its DpcData from NULL to that
 * queue with a compare-and-exchange (as NT does: a DPC that targets
 * "the current CPU" can be queued from two CPUs at once, each under its
 * own queue's lock, and only one may link its single list entry), link
 * it if the claim succeeded, and make the target notice: another CPU gets a DPC interrupt (which it takes once
 * its IRQL is below DISPATCH_LEVEL); the current CPU, if it is below
 * DISPATCH_LEVEL and not inside an interrupt, runs the queue at once by
 * raising to DISPATCH_LEVEL and lowering again.
 *
 * Running (ki_retire_dpc_list, at DISPATCH_LEVEL, interrupts on): unlink
 * one DPC under the lock, clear its DpcData so it may be queued again,
 * drop the lock and call it; repeat until the queue is empty.
 *
 * Invariant: DpcData is non-NULL exactly while the DPC is linked on that
 * queue; it becomes non-NULL only by the claim (under the queue's lock)
 * and NULL only under the same queue's lock, after the unlink.
 *
 * Lock order: a DpcLock is last in the chain dispatcher -> timer queue ->
 * DPC queue (lockorder.h, checked): it may be taken with either of those
 * held (a trace record written under the dispatcher lock can queue the
 * flush DPC), a CPU holds at most one DpcLock, and nothing is taken while
 * holding it.  DPC routines run with no ranked lock held (asserted with
 * lock checks): a routine may take the dispatcher lock.
 */
#include "kernel/ke/dpc.h"

#include <arch/cpu.h>
#include <arch/interrupt.h>

#include "kernel/ke/irql.h"
#include "kernel/debug/panic.h"
#include "kernel/ke/lockorder.h"
#include "kernel/ke/prcb.h"

void ki_dpc_data_init(KDPC_DATA *d)
{
	list_init(&d->DpcListHead);
	d->DpcLock = (raw_lock_t)RAW_LOCK_INIT;
	d->DpcQueueDepth = 0;
	d->DpcCount = 0;
}

void ke_initialize_dpc(KDPC *dpc, PKDEFERRED_ROUTINE routine, void *context)
{
	dpc->Type = DpcObject;
	dpc->Importance = MediumImportance;
	dpc->Number = DPC_TARGET_CURRENT;
	list_init(&dpc->DpcListEntry);
	dpc->DeferredRoutine = routine;
	dpc->DeferredContext = context;
	dpc->SystemArgument1 = dpc->SystemArgument2 = NULL;
	dpc->DpcData = NULL;
}

void ke_set_target_processor_dpc(KDPC *dpc, uint32_t cpu)
{
	KASSERT(cpu < ke_number_processors);
	dpc->Number = (uint16_t)cpu;
}

void ke_set_importance_dpc(KDPC *dpc, enum kdpc_importance importance)
{
	dpc->Importance = (uint8_t)importance;
}

bool ke_insert_queue_dpc(KDPC *dpc, void *arg1, void *arg2)
{
	unsigned long flags = arch_irq_save();
	KPRCB *self = ke_get_current_prcb();
	KPRCB *target = dpc->Number == DPC_TARGET_CURRENT ? self : KiProcessorBlock[dpc->Number];
	KDPC_DATA *q = &target->DpcData;
	bool queued = false;

	raw_lock_ranked_irqsave(&q->DpcLock, RAW_RANK_DPC_QUEUE);
	void *unclaimed = NULL;
	if (__atomic_compare_exchange_n(&dpc->DpcData, &unclaimed, q, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		dpc->SystemArgument1 = arg1;
		dpc->SystemArgument2 = arg2;
		if (dpc->Importance == HighImportance)
			list_insert_head(&q->DpcListHead, &dpc->DpcListEntry);
		else
			list_insert_tail(&q->DpcListHead, &dpc->DpcListEntry);
		__atomic_store_n(&q->DpcQueueDepth, q->DpcQueueDepth + 1, __ATOMIC_RELAXED); /* read without the lock */
		queued = true;
	}
	raw_unlock_ranked_irqrestore(&q->DpcLock, RAW_RANK_DPC_QUEUE, 0);

	if (queued && target != self)
		arch_send_ipi(target->Number, ARCH_INT_DPC);
	arch_irq_restore(flags);

	/* Below DISPATCH_LEVEL in thread context: run it now.  Inside an
	 * interrupt, ki_interrupt_exit() runs it on the way out. */
	if (queued && target == self && ke_get_current_irql() < DISPATCH_LEVEL && !self->InterruptNesting)
		ke_lower_irql(ke_raise_irql(DISPATCH_LEVEL));
	return queued;
}

bool ke_remove_queue_dpc(KDPC *dpc)
{
	unsigned long flags = arch_irq_save();
	KDPC_DATA *q = __atomic_load_n(&dpc->DpcData, __ATOMIC_ACQUIRE);
	bool removed = false;

	if (q) {
		raw_lock_ranked_irqsave(&q->DpcLock, RAW_RANK_DPC_QUEUE);
		/* It may have started running (and been unlinked) meanwhile. */
		if (__atomic_load_n(&dpc->DpcData, __ATOMIC_ACQUIRE) == q) {
			list_remove(&dpc->DpcListEntry);
			__atomic_store_n(&q->DpcQueueDepth, q->DpcQueueDepth - 1, __ATOMIC_RELAXED);
			__atomic_store_n(&dpc->DpcData, NULL, __ATOMIC_RELEASE);
			removed = true;
		}
		raw_unlock_ranked_irqrestore(&q->DpcLock, RAW_RANK_DPC_QUEUE, 0);
	}
	arch_irq_restore(flags);
	return removed;
}

void ki_retire_dpc_list(KPRCB *prcb)
{
	KDPC_DATA *q = &prcb->DpcData;

	KASSERT(ke_get_current_irql() == DISPATCH_LEVEL);
	if (KPROF_LOCK_CHECKS && raw_lock_ranks_held())
		ke_bug_check_ex(KPROF_LOCK_ORDER, (uintptr_t)&q->DpcLock, 0, raw_lock_ranks_held(), 0,
				"DPCs run on CPU %u with raw locks of ranks 0x%x held (a DPC may take them)",
				prcb->Number, raw_lock_ranks_held());
	for (;;) {
		unsigned long flags = raw_lock_ranked_irqsave(&q->DpcLock, RAW_RANK_DPC_QUEUE);
		LIST_ENTRY *e = list_remove_head(&q->DpcListHead);
		if (!e) {
			raw_unlock_ranked_irqrestore(&q->DpcLock, RAW_RANK_DPC_QUEUE, flags);
			return;
		}
		KDPC *dpc = CONTAINING_RECORD(e, KDPC, DpcListEntry);
		PKDEFERRED_ROUTINE routine = dpc->DeferredRoutine;
		void *ctx = dpc->DeferredContext, *a1 = dpc->SystemArgument1, *a2 = dpc->SystemArgument2;
		__atomic_store_n(&q->DpcQueueDepth, q->DpcQueueDepth - 1, __ATOMIC_RELAXED);
		__atomic_store_n(&dpc->DpcData, NULL, __ATOMIC_RELEASE); /* may be queued again from here on */
		raw_unlock_ranked_irqrestore(&q->DpcLock, RAW_RANK_DPC_QUEUE, flags);

		prcb->DpcRoutineActive = 1;
		routine(dpc, ctx, a1, a2);
		prcb->DpcRoutineActive = 0;
		q->DpcCount++;
		KASSERT(ke_get_current_irql() == DISPATCH_LEVEL);
	}
}
