/*
 * event.c - events (KEVENT): notification events stay signaled and wake
 * every waiter; synchronization events wake one waiter and reset.
 */
#include "kernel/sched/ki.h"

static void header_init(DISPATCHER_HEADER *h, uint8_t type, int32_t state)
{
	h->Type = type;
	h->SignalState = state;
	list_init(&h->WaitListHead);
}

void ke_initialize_event(KEVENT *e, EVENT_TYPE type, bool state)
{
	header_init(&e->Header, type == NotificationEvent ? EventNotificationObject : EventSynchronizationObject,
		    state ? 1 : 0);
}

int32_t ke_set_event(KEVENT *e, int increment, bool wait_next)
{
	unsigned long flags;
	KIRQL old = ki_enter(&flags);
	int32_t prev = e->Header.SignalState;

	(void)wait_next; /* the caller never keeps the lock across a following wait */
	e->Header.SignalState = 1;
	if (prev == 0)
		ki_signal_waiters(&e->Header, increment);
	ki_leave(old, flags);
	return prev;
}

int32_t ke_reset_event(KEVENT *e)
{
	unsigned long flags;
	KIRQL old = ki_enter(&flags);
	int32_t prev = e->Header.SignalState;
	e->Header.SignalState = 0;
	ki_leave(old, flags);
	return prev;
}

int32_t ke_read_state_event(const KEVENT *e)
{
	return e->Header.SignalState;
}

void ki_header_init(DISPATCHER_HEADER *h, uint8_t type, int32_t state)
{
	header_init(h, type, state);
}
