/*
 * dispatcher_lock.h - the dispatcher lock: one lock for the dispatcher
 * database (ready queues, thread states, wait lists, signal states), as in
 * NT 4.0's KiDispatcherLock.
 *
 * Held with interrupts disabled, at DISPATCH_LEVEL or above, briefly.
 * A thread switch happens with it held: the thread that switches out takes
 * it, the thread that switches in releases it (in its own code path, or in
 * ki_thread_startup for a new thread).
 *
 * Lock order: dispatcher -> a timer queue's lock -> a DPC queue's lock.
 * Nothing that holds one of those takes the dispatcher lock.  The console
 * lock is never taken under it: the console is held with interrupts on,
 * and a clock interrupt on the holder's CPU takes the dispatcher lock
 * (text from under the dispatcher lock, only in a bug check, goes out in
 * panic mode, which takes no lock).  Trace records take no lock at all.
 */
#ifndef KPROF_KERNEL_SCHED_DISPATCHER_LOCK_H
#define KPROF_KERNEL_SCHED_DISPATCHER_LOCK_H

#include "kernel/ke/rawlock.h"

extern raw_lock_t KiDispatcherLock;

static inline unsigned long ki_lock_dispatcher(void)
{
	return raw_lock_irqsave(&KiDispatcherLock);
}

static inline void ki_unlock_dispatcher(unsigned long flags)
{
	raw_unlock_irqrestore(&KiDispatcherLock, flags);
}

static inline bool ki_dispatcher_locked(void)
{
	return raw_lock_is_held(&KiDispatcherLock);
}

#endif
