/*
 * timer_object.c - timers as dispatcher objects (KTIMER): signaled when
 * due, optionally periodic, optionally queueing a DPC.  The expiry runs
 * from the timer queue of the CPU that set the timer.
 */
#include "kernel/sched/ki.h"

#include <arch/cpu.h>

#include "kernel/ke/time/clock.h"
#include "kernel/ke/dpc.h"
#include "kernel/ke/time/time.h"

static void timer_expired(KTIMER_ENTRY *entry, KTRAP_FRAME *tf, void *context)
{
	KTIMER *t = context;
	unsigned long flags = ki_lock_dispatcher();

	if (t->Inserted) {
		t->Header.SignalState = 1;
		if (!t->Period)
			t->Inserted = false;
		ki_signal_waiters(&t->Header, 0);
	}
	struct kdpc *dpc = t->Dpc;
	ki_unlock_dispatcher(flags);
	if (dpc)
		ke_insert_queue_dpc(dpc, (void *)(uintptr_t)arch_rdtsc(), 0);
}

void ke_initialize_timer(KTIMER *t, TIMER_TYPE type)
{
	ki_header_init(&t->Header, type == NotificationTimer ? TimerNotificationObject : TimerSynchronizationObject, 0);
	t->DueTime = t->Period = 0;
	t->Dpc = NULL;
	t->Inserted = false;
	ke_timer_entry_init(&t->Entry, timer_expired, t);
}

bool ke_set_timer(KTIMER *t, uint64_t us, uint64_t period_us, struct kdpc *dpc)
{
	unsigned long flags;
	KIRQL old = ki_enter(&flags);
	bool was = t->Inserted;

	t->Header.SignalState = 0;
	t->DueTime = arch_rdtsc() + ke_us_to_tsc(us);
	t->Period = ke_us_to_tsc(period_us);
	t->Dpc = dpc;
	t->Inserted = true;
	ke_set_timer_current(&t->Entry, t->DueTime, t->Period);
	ki_leave(old, flags);
	return was;
}

bool ke_cancel_timer_object(KTIMER *t)
{
	unsigned long flags;
	KIRQL old = ki_enter(&flags);
	bool was = t->Inserted;

	t->Inserted = false;
	ke_cancel_timer(&t->Entry);
	ki_leave(old, flags);
	return was;
}
