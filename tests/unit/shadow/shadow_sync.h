/*
 * shadow_sync.h - threads and dispatcher objects on the host, for unit
 * tests of code that waits (kernel/ex/resource*.c): each pthread is a
 * kernel thread with a KTHREAD and a CPU (KPRCB) of its own.
 *
 * shadow_sync.c implements, on one pthread mutex and a condition variable
 * per thread, the calls such code makes: events (a synchronization event
 * wakes one waiter and resets), semaphores (count and limit), and
 * ke_wait_for_single_object with a time-out in microseconds (0 polls),
 * waking waiters first come first served at the moment of the signal, as
 * kernel/sched/wait.c does; ke_get_current_thread; kmalloc/kzalloc/kfree;
 * and what kernel/sched/boost.c needs of the dispatcher (its lock, and a
 * record of the ready-queue calls).  Thread State stays Running for
 * pthreads (they are never queued); tests set other states on KTHREADs
 * of their own to see boost.c requeue.
 */
#ifndef KPROF_SHADOW_SYNC_H
#define KPROF_SHADOW_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/ke/prcb.h"
#include "kernel/sched/ketypes.h"

struct shadow_thread;

/* The calling pthread (the test's main thread) becomes a kernel thread
 * with the given id and priority on CPU `cpu`. */
KTHREAD *shadow_sync_adopt(uint32_t thread_id, int8_t priority, uint32_t cpu);
/* A new pthread running fn(arg) as a kernel thread of its own. */
struct shadow_thread *shadow_thread_start(void (*fn)(void *), void *arg, int8_t priority);
KTHREAD *shadow_thread_kthread(struct shadow_thread *t);
/* Join and free it. */
void shadow_thread_join(struct shadow_thread *t);

/* Threads blocked in a wait on `object` now. */
uint32_t shadow_sync_waiters(void *object);
/* Called (in the waiting thread, no lock held) each time one of its
 * waits ends in STATUS_TIMEOUT, before the wait call returns. */
extern __thread void (*shadow_wait_timeout_hook)(void *object);

/* What kernel/sched/boost.c asked of the ready queues. */
extern uint32_t shadow_requeues;          /* ki_ready_thread calls      */
extern int8_t shadow_requeue_increment;   /* the last one's increment   */

/* Calibrate ke_tsc_hz against the host's monotonic clock. */
void shadow_sync_calibrate_tsc(void);
/* Sleep, letting other threads run. */
void shadow_sleep_us(uint64_t us);

#endif
