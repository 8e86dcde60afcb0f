/*
 * semaphore.c - counting semaphores (KSEMAPHORE): the count is the
 * SignalState; each satisfied wait takes one.
 */
#include "kernel/sched/ki.h"

void ke_initialize_semaphore(KSEMAPHORE *s, int32_t count, int32_t limit)
{
	ki_header_init(&s->Header, SemaphoreObject, count);
	s->Limit = limit;
}

NTSTATUS ke_release_semaphore(KSEMAPHORE *s, int increment, int32_t adjustment, int32_t *previous)
{
	unsigned long flags;
	KIRQL old = ki_enter(&flags);
	int32_t prev = s->Header.SignalState;
	NTSTATUS st = STATUS_SUCCESS;

	if (adjustment <= 0 || prev > s->Limit - adjustment) {
		st = adjustment <= 0 ? STATUS_INVALID_PARAMETER : STATUS_SEMAPHORE_LIMIT_EXCEEDED;
	} else {
		s->Header.SignalState = prev + adjustment;
		ki_signal_waiters(&s->Header, increment);
	}
	ki_leave(old, flags);
	if (previous)
		*previous = prev;
	return st;
}
