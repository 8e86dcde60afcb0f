/*
 * ticket.h - the example's own lock: a ticket lock.  A taker draws the
 * next ticket and spins until the owner number reaches it, so the lock
 * is handed over in the order asked; every waiter spins on the one shared
 * owner word (unlike the kernel's queued lock, where each waits on its own
 * entry), which is the difference the example measures.
 *
 * Invariant: next - owner is the number of holders and waiters (0 free).
 */
#ifndef EXAMPLE_TICKET_H
#define EXAMPLE_TICKET_H

#include <stdint.h>

#include "kernel/workloads/api/measure.h"

struct ticket_lock {
	uint32_t next;  /* the ticket the next taker draws    */
	uint32_t owner; /* the ticket that holds the lock now */
};

static inline void ticket_init(struct ticket_lock *l)
{
	l->next = l->owner = 0;
}

static inline void ticket_acquire(struct ticket_lock *l)
{
	uint32_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
		workload_cpu_relax();
}

static inline void ticket_release(struct ticket_lock *l)
{
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

#endif /* EXAMPLE_TICKET_H */
