/*
 * dispatcher_lock.h - the dispatcher lock: one lock for the dispatcher
 * database (ready queues, thread states, wait lists, signal states), as in
 * NT 4.0's KiDispatcherLock.
 *
 * What it guards: every field marked [D] in ketypes.h and prcb.h.  Every
 * ki_ function of kernel/sched/ki.h needs it held by the calling CPU
 * unless ki.h says otherwise, and asserts so (ki_assert_dispatcher_locked:
 * bug check SPIN_LOCK_NOT_OWNED with the lock's address, under
 * KPROF_LOCK_CHECKS).
 *
 * Held with interrupts disabled, briefly, normally at DISPATCH_LEVEL or
 * above (ki_enter), so that a DPC queued to this CPU while it is held
 * (a trace record that fills a sub-buffer does that) waits until the lock
 * is gone; only boot and CPU start-up code, which queues nothing, takes
 * it lower.  A thread switch happens with it held: the thread that
 * switches out takes it, the thread that switches in releases it (in its
 * own code path, or in ki_thread_startup for a new thread), on the same
 * CPU, so the owner check holds across the switch.
 *
 * Lock order (docs/locking.md; checked by lockorder.h):
 *   before it:  an ERESOURCE's SpinLock (an NT queued spin lock), and the
 *               console lock only in the sense that a clock interrupt on a
 *               CPU holding the console takes it;
 *   inside it:  a timer queue's lock (a wait's time-out, an idle CPU's
 *               kick timer), then a DPC queue's lock (the chain
 *               lockorder.h checks), and kva -> pmm (a dead thread's
 *               stack is freed right after a switch);
 *   never inside it: the console lock (spinning for it here could wait
 *               for a CPU whose clock interrupt waits for us; text under
 *               the dispatcher lock goes out only in a bug check, in panic
 *               mode, which takes no lock).
 * Trace records take no lock, except that one filling a sub-buffer queues
 * the flush DPC, taking a DPC queue's lock (last in the chain: allowed).
 */
#ifndef KPROF_KERNEL_SCHED_DISPATCHER_LOCK_H
#define KPROF_KERNEL_SCHED_DISPATCHER_LOCK_H

#include "kernel/ke/lockorder.h"
#include "kernel/ke/rawlock.h"

extern raw_lock_t KiDispatcherLock;

static inline unsigned long ki_lock_dispatcher(void)
{
	return raw_lock_ranked_irqsave(&KiDispatcherLock, RAW_RANK_DISPATCHER);
}

static inline void ki_unlock_dispatcher(unsigned long flags)
{
	raw_unlock_ranked_irqrestore(&KiDispatcherLock, RAW_RANK_DISPATCHER, flags);
}

/* Held by this CPU?  (Without lock checks: by some CPU.) */
static inline bool ki_dispatcher_locked(void)
{
	return raw_lock_held_here(&KiDispatcherLock);
}

/* The [D] rule, at the top of each ki_ function that needs the lock. */
#if KPROF_LOCK_CHECKS
#define ki_assert_dispatcher_locked()                                                                  \
	do {                                                                                           \
		if (__builtin_expect(!ki_dispatcher_locked(), 0))                                      \
			raw_lock_bug_check(SPIN_LOCK_NOT_OWNED, &KiDispatcherLock, __func__);          \
	} while (0)
#else
#define ki_assert_dispatcher_locked() do { } while (0)
#endif

#endif /* KPROF_KERNEL_SCHED_DISPATCHER_LOCK_H */
