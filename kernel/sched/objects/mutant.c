/*
 * mutant.c - mutexes (KMUTANT): owned by the thread whose wait acquired
 * it, recursively (SignalState counts down from 1), released only by its
 * owner; a thread that ends holding one abandons it, and the next wait
 * that gets it returns STATUS_ABANDONED_WAIT_0.
 */
#include "kernel/sched/ki.h"

void ke_initialize_mutant(KMUTANT *m, bool initial_owner)
{
	ki_header_init(&m->Header, MutantObject, 1);
	m->OwnerThread = NULL;
	m->Abandoned = false;
	list_init(&m->MutantListEntry);
	if (initial_owner) {
		unsigned long flags;
		KIRQL old = ki_enter(&flags);
		ki_satisfy(&m->Header, ke_get_current_thread());
		ki_leave(old, flags);
	}
}

NTSTATUS ke_release_mutant(KMUTANT *m, int increment, bool abandoned)
{
	unsigned long flags;
	KIRQL old = ki_enter(&flags);
	KTHREAD *self = ke_get_current_thread();
	NTSTATUS st = STATUS_SUCCESS;

	if (m->OwnerThread != self) {
		st = STATUS_MUTANT_NOT_OWNED;
	} else if (++m->Header.SignalState == 1) {
		list_remove(&m->MutantListEntry);
		m->OwnerThread = NULL;
		m->Abandoned = abandoned;
		ki_signal_waiters(&m->Header, increment);
	}
	ki_leave(old, flags);
	return st;
}
