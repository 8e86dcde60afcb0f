/*
 * lockstat.c - the WMI_SPINLOCK record, the parameters and the totals
 * (see lockstat.h for the rules; the per-CPU stack of held locks and the
 * sampling decision are inline in lockstat_stack.h).
 */
#include "kernel/locks/lockstat.h"

#include <arch/cpu.h>
#include <arch/local.h>

#include "kernel/ke/ntstatus.h"
#include "kernel/ke/prcb.h"
#include "kernel/sched/sched.h"
#include "kernel/trace/trace.h"
#include "kernel/trace/trace_clock.h"

struct spinlock_params lockstat_params = {
	.SpinThreshold = SPINLOCK_MIN_SPIN_THRESHOLD,
	.AcquireSampleRate = SPINLOCK_MIN_ACQUIRE_SAMPLE_RATE,
	.ContentionSampleRate = SPINLOCK_MIN_CONTENTION_SAMPLE_RATE,
	.HoldThreshold = SPINLOCK_MIN_HOLD_THRESHOLD,
};

int32_t spinlock_params_set(const struct spinlock_params *p)
{
	if (!spinlock_params_valid(p))
		return STATUS_INVALID_PARAMETER;
	/* Readers take the four values one by one; a release that sees a mix
	 * of old and new samples by a mix: harmless. */
	__atomic_store_n(&lockstat_params.SpinThreshold, p->SpinThreshold, __ATOMIC_RELAXED);
	__atomic_store_n(&lockstat_params.AcquireSampleRate, p->AcquireSampleRate, __ATOMIC_RELAXED);
	__atomic_store_n(&lockstat_params.ContentionSampleRate, p->ContentionSampleRate, __ATOMIC_RELAXED);
	__atomic_store_n(&lockstat_params.HoldThreshold, p->HoldThreshold, __ATOMIC_RELAXED);
	return STATUS_SUCCESS;
}

/* The record's fields (inline in lockstat_released, its one writer). */
static inline __attribute__((always_inline)) void fill_record(WMI_SPINLOCK *w, const struct lockstat_release *r,
							       const void *caller)
{
	KPRCB *prcb = ke_get_current_prcb();
	const struct lock_hold *h = &r->Hold;
	uint64_t wait = h->Spins ? h->AcquireTsc - h->TryTsc : 0; /* taken at the first test: no wait */
	KTHREAD *t = prcb->CurrentThread;

	/* Field by field, not a compound literal: assigned whole to the
	 * packed record, GCC zeroed it with a rep stos first (docs/testing.md) */
	w->SpinLockAddress = (uint64_t)(uintptr_t)h->Lock;
	w->CallerAddress = (uint64_t)(uintptr_t)caller;
	/* each read with its own correction, as a stamp would have it: with
	 * the release's for both, a long hold during a slew moved its
	 * AcquireTime over the previous holder's release */
	w->AcquireTime = trace_clock_read(h->AcquireTsc);
	w->ReleaseTime = trace_clock_read(r->ReleaseTsc);
	w->WaitTimeInCycles = wait > UINT32_MAX ? UINT32_MAX : (uint32_t)wait;
	w->SpinCount = h->Spins;
	w->ThreadId = t ? t->ThreadId : 0;
	w->InterruptCount = prcb->InterruptCount - h->Interrupts;
	w->Irql = ke_get_current_irql();
	w->AcquireDepth = r->Depth;
	w->Flags = (uint8_t)((h->Mode & SPINLOCK_ACQUIRE_MODE_MASK) |
			     (prcb->DpcRoutineActive ? SPINLOCK_FLAG_EXECUTE_DPC : 0) |
			     (prcb->InterruptNesting ? SPINLOCK_FLAG_EXECUTE_ISR : 0));
	__builtin_memset(w->Reserved, 0, sizeof(w->Reserved));
}

void lockstat_released(const struct lockstat_release *r, const void *caller)
{
	struct trace_record rec;
	WMI_SPINLOCK *w = trace_record_begin_stamped(&rec, PERFINFO_LOG_TYPE_SPINLOCK, SPINLOCK_VERSION, sizeof(*w),
						     &r->Stamp); /* its TimeStamp: the ReleaseTime read */
	if (!w)
		return; /* group off by now, or dropped (counted by the trace) */
	fill_record(w, r, caller);
	trace_record_commit(&rec);
	arch_local_add64(&ke_get_current_prcb()->LockStat.Count.Traced, 1);
}

void lockstat_totals(struct lockstat_counts *sum)
{
	*sum = (struct lockstat_counts){ 0 };
	for (uint32_t i = 0; i < ke_number_processors; i++) {
		const struct lockstat_cpu_counts *c = &KiProcessorBlock[i]->LockStat.Count;
		sum->Contended += c->Contended;
		sum->Uncontended += c->Uncontended;
		sum->LongHolds += c->LongHolds;
		sum->UncontendedShort += c->Uncontended - c->UncontendedLong;
		sum->Traced += c->Traced;
		sum->Untracked += c->Untracked;
	}
	sum->Instrumented = sum->Contended + sum->Uncontended;
}
