/*
 * spinlock.h - the NT spin locks: ordinary (KSPIN_LOCK), in-stack queued
 * (KLOCK_QUEUE_HANDLE, MCS) and executive (EX_SPIN_LOCK, shared and
 * exclusive), each traced as WMI_SPINLOCK records when spin-lock tracing
 * is on (kernel/locks/lockstat.h: what is recorded and sampled).
 *
 * IRQL rules (as NT): the plain calls raise to DISPATCH_LEVEL and return
 * or take the IRQL to restore; the ..._at_dpc_level calls expect the
 * caller at DISPATCH_LEVEL or above already (also interrupt handlers, for
 * a lock every user takes at that handler's IRQL) and leave IRQL alone.
 * A lock is used with one kind of call only: a KSPIN_LOCK either always
 * ordinarily or always queued.  Locks are not recursive.
 *
 * Invariants: a KSPIN_LOCK is 0 when free; taken ordinarily it holds 1;
 * taken queued it holds the address of the last waiter's queue entry (the
 * MCS tail).  An EX_SPIN_LOCK holds the number of shared owners in bits
 * 0..30 and the exclusive owner (or the one waiting for sharers to leave)
 * in bit 31.
 */
#ifndef KPROF_KERNEL_LOCKS_SPINLOCK_H
#define KPROF_KERNEL_LOCKS_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/cpu.h>
#include <arch/percpu.h>

#include "kernel/ke/irql.h"
#include "kernel/locks/lockstat.h"
#include "kernel/ke/prcb.h"

typedef volatile uintptr_t KSPIN_LOCK;
typedef volatile int32_t EX_SPIN_LOCK;

/* One waiter's entry in a queued lock's queue; lives in the acquirer's
 * KLOCK_QUEUE_HANDLE (on its stack, "in-stack"). */
typedef struct _KSPIN_LOCK_QUEUE {
	struct _KSPIN_LOCK_QUEUE *volatile Next; /* the waiter after this one        */
	volatile uintptr_t Lock;                 /* KSPIN_LOCK * | LOCK_QUEUE_* bits */
} KSPIN_LOCK_QUEUE;

#define LOCK_QUEUE_WAIT  1u /* in KSPIN_LOCK_QUEUE.Lock: still waiting for the lock      */
#define LOCK_QUEUE_TIMED 2u /* kprof: this acquisition is on the CPU's stack of timed locks */
#define LOCK_QUEUE_BITS  (LOCK_QUEUE_WAIT | LOCK_QUEUE_TIMED)

typedef struct _KLOCK_QUEUE_HANDLE {
	KSPIN_LOCK_QUEUE LockQueue;
	KIRQL OldIrql;
} KLOCK_QUEUE_HANDLE;

static inline void ke_initialize_spin_lock(KSPIN_LOCK *lock)
{
	*lock = 0;
}

/* The untraced fast paths are inline; waiting and everything traced is
 * out of line (ki_* below).  Inlined releases record as CallerAddress the
 * address of the release in the function that released (KI_HERE), which
 * is what the return address of an exported release call would show. */
#define KI_HERE() ({ __label__ here_; here_: (const void *)&&here_; })

/* Anything on this CPU's stack of timed locks? (The untraced release's
 * only extra test.) */
static inline bool ki_lockstat_depth(void)
{
	return arch_percpu_read_u32(__builtin_offsetof(KPRCB, LockStat.Depth)) != 0;
}

void ki_acquire_spin_lock_wait(KSPIN_LOCK *lock);
void ki_acquire_spin_lock_traced(KSPIN_LOCK *lock);
void ki_release_spin_lock_traced(KSPIN_LOCK *lock, const void *caller);

/* Ordinary spin locks (AcquireMode 0). */
static inline void ke_acquire_spin_lock_at_dpc_level(KSPIN_LOCK *lock)
{
	if (__builtin_expect(lockstat_on(), 0))
		ki_acquire_spin_lock_traced(lock);
	else if (__builtin_expect(__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE) != 0, 0))
		ki_acquire_spin_lock_wait(lock);
}

static inline void ke_release_spin_lock_from_dpc_level(KSPIN_LOCK *lock)
{
	if (__builtin_expect(ki_lockstat_depth(), 0))
		ki_release_spin_lock_traced(lock, KI_HERE());
	else
		__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

static inline KIRQL ke_acquire_spin_lock_raise_to_dpc(KSPIN_LOCK *lock)
{
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	ke_acquire_spin_lock_at_dpc_level(lock);
	return old;
}

static inline void ke_release_spin_lock(KSPIN_LOCK *lock, KIRQL old_irql)
{
	if (__builtin_expect(ki_lockstat_depth(), 0))
		ki_release_spin_lock_traced(lock, KI_HERE());
	else
		__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
	ke_lower_irql(old_irql);
}

/* Take it only if it is free; DISPATCH_LEVEL or above. */
bool ke_try_to_acquire_spin_lock_at_dpc_level(KSPIN_LOCK *lock);
#define ke_acquire_spin_lock(lock, old_irql) (*(old_irql) = ke_acquire_spin_lock_raise_to_dpc(lock))

void ki_queued_wait(KSPIN_LOCK_QUEUE *me, KSPIN_LOCK_QUEUE *pred);
void ki_queued_handoff(KSPIN_LOCK_QUEUE *me);
void ki_acquire_queued_traced(KSPIN_LOCK *lock, KSPIN_LOCK_QUEUE *me);
void ki_release_queued_traced(KSPIN_LOCK_QUEUE *me, const void *caller);

/* In-stack queued spin locks (AcquireMode 1): first come, first served;
 * each waiter spins on its own queue entry (queuedlock.c). */
static inline void ke_acquire_in_stack_queued_spin_lock_at_dpc_level(KSPIN_LOCK *lock, KLOCK_QUEUE_HANDLE *handle)
{
	KSPIN_LOCK_QUEUE *me = &handle->LockQueue;

	if (__builtin_expect(lockstat_on(), 0)) {
		ki_acquire_queued_traced(lock, me);
		return;
	}
	me->Next = NULL;
	me->Lock = (uintptr_t)lock;
	KSPIN_LOCK_QUEUE *pred = (KSPIN_LOCK_QUEUE *)__atomic_exchange_n(lock, (uintptr_t)me, __ATOMIC_ACQ_REL);
	if (__builtin_expect(pred != NULL, 0))
		ki_queued_wait(me, pred);
}

static inline void ke_release_in_stack_queued_spin_lock_from_dpc_level(KLOCK_QUEUE_HANDLE *handle)
{
	KSPIN_LOCK_QUEUE *me = &handle->LockQueue;
	uintptr_t word = me->Lock;

	if (__builtin_expect(word & LOCK_QUEUE_TIMED, 0)) {
		ki_release_queued_traced(me, KI_HERE());
		return;
	}
	KSPIN_LOCK *lock = (KSPIN_LOCK *)word;
	uintptr_t expect = (uintptr_t)me;
	/* Still the tail (read first: a failing exchange would take the line)? */
	if (!__atomic_load_n(&me->Next, __ATOMIC_ACQUIRE) && __atomic_load_n(lock, __ATOMIC_RELAXED) == expect &&
	    __atomic_compare_exchange_n(lock, &expect, 0, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return; /* nobody behind */
	ki_queued_handoff(me);
}

static inline void ke_acquire_in_stack_queued_spin_lock(KSPIN_LOCK *lock, KLOCK_QUEUE_HANDLE *handle)
{
	handle->OldIrql = ke_raise_irql(DISPATCH_LEVEL);
	ke_acquire_in_stack_queued_spin_lock_at_dpc_level(lock, handle);
}

static inline void ke_release_in_stack_queued_spin_lock(KLOCK_QUEUE_HANDLE *handle)
{
	KIRQL old = handle->OldIrql;

	if (__builtin_expect(handle->LockQueue.Lock & LOCK_QUEUE_TIMED, 0))
		ki_release_queued_traced(&handle->LockQueue, KI_HERE());
	else
		ke_release_in_stack_queued_spin_lock_from_dpc_level(handle);
	ke_lower_irql(old);
}

/* Executive spin locks (AcquireMode 2 shared, 3 exclusive, 4 exclusive
 * after a conversion from shared).  An exclusive acquirer sets bit 31
 * first, so new sharers wait behind it (no writer starvation). */
static inline void ex_initialize_spin_lock(EX_SPIN_LOCK *lock)
{
	*lock = 0;
}
KIRQL ex_acquire_spin_lock_shared(EX_SPIN_LOCK *lock);
void ex_release_spin_lock_shared(EX_SPIN_LOCK *lock, KIRQL old_irql);
KIRQL ex_acquire_spin_lock_exclusive(EX_SPIN_LOCK *lock);
void ex_release_spin_lock_exclusive(EX_SPIN_LOCK *lock, KIRQL old_irql);
void ex_acquire_spin_lock_shared_at_dpc_level(EX_SPIN_LOCK *lock);
void ex_release_spin_lock_shared_from_dpc_level(EX_SPIN_LOCK *lock);
void ex_acquire_spin_lock_exclusive_at_dpc_level(EX_SPIN_LOCK *lock);
void ex_release_spin_lock_exclusive_from_dpc_level(EX_SPIN_LOCK *lock);
/* A shared owner becomes the exclusive owner if it is the only sharer and
 * nobody waits for exclusive; false (still shared) otherwise.  Released
 * then with ex_release_spin_lock_exclusive[_from_dpc_level]. */
bool ex_try_convert_shared_spin_lock_exclusive(EX_SPIN_LOCK *lock);

#endif /* KPROF_KERNEL_LOCKS_SPINLOCK_H */
