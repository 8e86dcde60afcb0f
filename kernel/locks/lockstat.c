/*
 * lockstat.c - the sampling decision, the WMI_SPINLOCK record and the
 * parameters (see lockstat.h for the rules; the per-CPU stack of held
 * locks is inline in lockstat_stack.h).
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

/* xorshift64*: one draw, true with probability 1/n. */
static bool one_in(LOCKSTAT_CPU *ls, uint32_t n)
{
	if (n <= 1)
		return true;
	uint64_t x = ls->Rng;
	if (!x)
		x = 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)ls;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	ls->Rng = x;
	return ((x * 0x2545F4914F6CDD1Dull) >> 32) % n == 0;
}

void lockstat_fill_record(WMI_SPINLOCK *w, const struct lockstat_release *r, const void *caller)
{
	KPRCB *prcb = ke_get_current_prcb();
	const struct lock_hold *h = &r->Hold;
	uint64_t wait = h->AcquireTsc - h->TryTsc;
	KTHREAD *t = prcb->CurrentThread;

	*w = (WMI_SPINLOCK){
		.SpinLockAddress = (uint64_t)(uintptr_t)h->Lock,
		.CallerAddress = (uint64_t)(uintptr_t)caller,
		/* each read with its own correction, as a stamp would have it:
		 * with the release's for both, a long hold during a slew moved
		 * its AcquireTime over the previous holder's release */
		.AcquireTime = trace_clock_read(h->AcquireTsc),
		.ReleaseTime = trace_clock_read(r->ReleaseTsc),
		.WaitTimeInCycles = wait > UINT32_MAX ? UINT32_MAX : (uint32_t)wait,
		.SpinCount = h->Spins,
		.ThreadId = t ? t->ThreadId : 0,
		.InterruptCount = prcb->InterruptCount - h->Interrupts,
		.Irql = ke_get_current_irql(),
		.AcquireDepth = r->Depth,
		.Flags = (uint8_t)((h->Mode & SPINLOCK_ACQUIRE_MODE_MASK) |
				   (prcb->DpcRoutineActive ? SPINLOCK_FLAG_EXECUTE_DPC : 0) |
				   (prcb->InterruptNesting ? SPINLOCK_FLAG_EXECUTE_ISR : 0)),
	};
}

void lockstat_released(const struct lockstat_release *r, const void *caller)
{
	LOCKSTAT_CPU *ls = &ke_get_current_prcb()->LockStat;
	const struct lock_hold *h = &r->Hold;
	uint32_t spin_threshold = __atomic_load_n(&lockstat_params.SpinThreshold, __ATOMIC_RELAXED);
	uint32_t hold_threshold = __atomic_load_n(&lockstat_params.HoldThreshold, __ATOMIC_RELAXED);
	bool contended = h->Spins >= spin_threshold;
	bool long_hold = hold_threshold && r->ReleaseTsc - h->AcquireTsc >= hold_threshold;
	bool trace;

	arch_local_add64(&ls->Count.Instrumented, 1);
	if (contended) {
		arch_local_add64(&ls->Count.Contended, 1);
		trace = one_in(ls, __atomic_load_n(&lockstat_params.ContentionSampleRate, __ATOMIC_RELAXED));
	} else {
		arch_local_add64(&ls->Count.Uncontended, 1);
		if (!long_hold)
			arch_local_add64(&ls->Count.UncontendedShort, 1);
		trace = one_in(ls, __atomic_load_n(&lockstat_params.AcquireSampleRate, __ATOMIC_RELAXED));
	}
	if (long_hold) {
		arch_local_add64(&ls->Count.LongHolds, 1);
		trace = true;
	}
	if (!trace)
		return;

	struct trace_record rec;
	WMI_SPINLOCK *w = trace_record_begin_stamped(&rec, PERFINFO_LOG_TYPE_SPINLOCK, SPINLOCK_VERSION, sizeof(*w),
						     &r->Stamp); /* its TimeStamp: the ReleaseTime read */
	if (!w)
		return; /* group off by now, or dropped (counted by the trace) */
	lockstat_fill_record(w, r, caller);
	trace_record_commit(&rec);
	arch_local_add64(&ls->Count.Traced, 1);
}

void lockstat_totals(struct lockstat_counts *sum)
{
	*sum = (struct lockstat_counts){ 0 };
	for (uint32_t i = 0; i < ke_number_processors; i++) {
		const struct lockstat_counts *c = &KiProcessorBlock[i]->LockStat.Count;
		sum->Instrumented += c->Instrumented;
		sum->Contended += c->Contended;
		sum->Uncontended += c->Uncontended;
		sum->LongHolds += c->LongHolds;
		sum->UncontendedShort += c->UncontendedShort;
		sum->Traced += c->Traced;
		sum->Untracked += c->Untracked;
	}
}
