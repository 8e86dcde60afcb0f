/*
 * test_rawlock.c - the raw lock checks (kernel/ke/rawlock.h, lockorder.h)
 * and the dispatcher's use of them (kernel/sched/dispatcher_lock.h,
 * dispatch.c), compiled as they boot with KPROF_LOCK_CHECKS on.
 *
 *   - each lock records its owner, the KPRCB of the CPU holding it;
 *   - taking a lock this CPU holds is SPIN_LOCK_ALREADY_OWNED (0x0F),
 *     releasing one it does not hold is SPIN_LOCK_NOT_OWNED (0x10), with
 *     the lock's address as the first parameter; a trylock just fails;
 *   - the ranked chain dispatcher -> timer queue -> DPC queue may be
 *     taken in that order, and anything else is KPROF_LOCK_ORDER;
 *   - ki_swap_thread and the other ki_ functions bug-check 0x10 unless
 *     this CPU holds the dispatcher lock; DPCs never run under it.
 *
 * Each host thread plays one CPU with its own KPRCB.  Every check runs
 * in both disciplines (ticket and test-and-set).  A caught bug check
 * leaves the lock held and interrupts off: setup() starts afresh.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <arch/cpu.h>

#include "kernel/debug/bugcheck.h"
#include "kernel/ke/time/clock.h"
#include "kernel/ke/dpc.h"
#include "kernel/ke/lockorder.h"
#include "kernel/ke/time/timerq.h"
#include "kernel/sched/ki.h"
#include "shadow.h"

#if !KPROF_LOCK_CHECKS
#error "test_rawlock needs KPROF_LOCK_CHECKS"
#endif

#define NCPU 2

KPRCB *KiProcessorBlock[KPROF_MAX_CPUS];
volatile uint32_t ke_number_processors;
volatile uint32_t ke_tick_count;

static KPRCB prcbs[NCPU];
static KTHREAD idle[NCPU], runner, other;
static raw_lock_t lock_a, lock_b;

/* ---- what dispatch.c calls that this test does not compile ---- */

void ki_trace_context_swap(KPRCB *prcb, KTHREAD *old, KTHREAD *next)
{
	ki_assert_dispatcher_locked(); /* as cswitch.c */
}

void ki_trace_ready_thread(const KTHREAD *t, enum ki_adjust_reason reason, int8_t increment)
{
	ki_assert_dispatcher_locked();
}

void kva_free_stack(struct kstack *st)
{
}

void ke_clock_note_late_kick(uint64_t sent, uint64_t answered)
{
}

/* The clock's timer calls, on the CPU's own queue (as clock.c). */
void ke_set_timer_current(KTIMER_ENTRY *e, uint64_t deadline_tsc, uint64_t period_tsc)
{
	ki_timer_queue_insert(&ke_get_current_prcb()->TimerQueue, e, deadline_tsc, period_tsc);
}

bool ke_cancel_timer(KTIMER_ENTRY *e)
{
	return ki_timer_queue_remove(e);
}

/* ---- set-up ---- */

static void become_cpu(uint32_t n)
{
	arch_percpu_set(&prcbs[n]);
	arch_set_irql(PASSIVE_LEVEL);
	arch_irq_enable();
}

static void mk_thread(KTHREAD *t, uint32_t tid, int8_t prio)
{
	memset(t, 0, sizeof(*t));
	t->ThreadId = tid;
	t->Priority = t->BasePriority = prio;
	affinity_set_first(&t->Affinity, NCPU);
	list_init(&t->ReadyListEntry);
}

/* *state: NULL for ticket locks, non-NULL for test-and-set. */
static int setup(void **state)
{
	raw_lock_tas = *state != NULL;
	memset(prcbs, 0, sizeof(prcbs));
	for (uint32_t i = 0; i < NCPU; i++) {
		KPRCB *p = &prcbs[i];
		p->Self = p;
		p->Number = i;
		ki_dpc_data_init(&p->DpcData);
		ki_ready_queue_init(p);
		p->TimerQueue = (KTIMER_QUEUE){ .Lock = RAW_LOCK_INIT };
		mk_thread(&idle[i], 0, 0);
		idle[i].Idle = 1;
		idle[i].State = Running;
		p->IdleThread = p->CurrentThread = &idle[i];
		KiProcessorBlock[i] = p;
	}
	ke_number_processors = NCPU;
	KiDispatcherLock = (raw_lock_t)RAW_LOCK_INIT;
	lock_a = lock_b = (raw_lock_t)RAW_LOCK_INIT;
	mk_thread(&runner, 8, 8);
	runner.State = Running;
	prcbs[0].CurrentThread = &runner;
	mk_thread(&other, 12, 8);
	become_cpu(0);
	return 0;
}

/* The bug check of stmt, 0 if none. */
#define BUGCHECK_OF(stmt) (SHADOW_EXPECT_BUGCHECK(stmt) ? shadow_last_bugcheck : 0u)

/* ---------------------------------------------------------------- owner */

static void test_owner_recorded(void **state)
{
	unsigned long flags = raw_lock_irqsave(&lock_a);
	assert_ptr_equal(lock_a.owner, &prcbs[0]);
	assert_true(raw_lock_held_here(&lock_a));
	become_cpu(1);
	assert_true(raw_lock_is_held(&lock_a));
	assert_false(raw_lock_held_here(&lock_a)); /* held, but not by CPU 1 */
	become_cpu(0);
	raw_unlock_irqrestore(&lock_a, flags);
	assert_null(lock_a.owner);
	assert_false(raw_lock_is_held(&lock_a));
	assert_false(raw_lock_held_here(&lock_a));
	assert_true(arch_irqs_enabled());
}

static void test_double_acquire_is_0x0f(void **state)
{
	raw_lock_irqsave(&lock_a);
	assert_int_equal(BUGCHECK_OF(raw_lock_spin(&lock_a)), SPIN_LOCK_ALREADY_OWNED);
	assert_int_equal(BUGCHECK_OF(raw_lock_irqsave(&lock_a)), SPIN_LOCK_ALREADY_OWNED);
	/* The check comes before the spin: the lock is still held once. */
	assert_ptr_equal(lock_a.owner, &prcbs[0]);
	raw_unlock(&lock_a);
	assert_false(raw_lock_is_held(&lock_a));
}

static void test_trylock_fails_quietly_when_ours(void **state)
{
	assert_true(raw_trylock(&lock_a));
	assert_ptr_equal(lock_a.owner, &prcbs[0]);
	assert_false(raw_trylock(&lock_a)); /* no bug check: the console's interrupt path does this */
	become_cpu(1);
	assert_false(raw_trylock(&lock_a));
	become_cpu(0);
	raw_unlock(&lock_a);
	assert_true(raw_trylock(&lock_a));
	raw_unlock(&lock_a);
}

static void test_release_not_owned_is_0x10(void **state)
{
	/* Never taken. */
	assert_int_equal(BUGCHECK_OF(raw_unlock(&lock_a)), SPIN_LOCK_NOT_OWNED);

	/* Taken by CPU 0, released by CPU 1. */
	raw_lock_irqsave(&lock_a);
	become_cpu(1);
	assert_int_equal(BUGCHECK_OF(raw_unlock(&lock_a)), SPIN_LOCK_NOT_OWNED);
	assert_true(raw_lock_is_held(&lock_a)); /* the bad release did not free it */
	assert_ptr_equal(lock_a.owner, &prcbs[0]);

	/* Another lock's release does not disturb it. */
	become_cpu(0);
	assert_int_equal(BUGCHECK_OF(raw_unlock(&lock_b)), SPIN_LOCK_NOT_OWNED);
	raw_unlock(&lock_a);
	assert_false(raw_lock_is_held(&lock_a));
}

static void test_independent_locks_nest(void **state)
{
	/* Unranked locks (heap -> pmm, kva -> pmm) may nest: no order check. */
	unsigned long fa = raw_lock_irqsave(&lock_a);
	unsigned long fb = raw_lock_irqsave(&lock_b);
	assert_ptr_equal(lock_b.owner, &prcbs[0]);
	raw_unlock_irqrestore(&lock_b, fb);
	raw_unlock_irqrestore(&lock_a, fa);
	assert_true(arch_irqs_enabled());
}

/* Two CPUs taking turns: the owner follows the lock. */
static volatile uint64_t shared_count;

static void *hammer(void *arg)
{
	uint32_t cpu = (uint32_t)(uintptr_t)arg;
	become_cpu(cpu);
	for (int i = 0; i < 20000; i++) {
		unsigned long flags = raw_lock_irqsave(&lock_a);
		if (lock_a.owner != &prcbs[cpu])
			abort();
		shared_count = shared_count + 1;
		raw_unlock_irqrestore(&lock_a, flags);
	}
	return NULL;
}

static void test_owner_follows_contended_lock(void **state)
{
	pthread_t th[NCPU];
	shared_count = 0;
	for (uintptr_t i = 0; i < NCPU; i++)
		assert_int_equal(pthread_create(&th[i], NULL, hammer, (void *)i), 0);
	for (int i = 0; i < NCPU; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(shared_count, NCPU * 20000);
	assert_null(lock_a.owner);
}

/* ---------------------------------------------------------------- order */

static void test_chain_in_order_passes(void **state)
{
	KTIMER_QUEUE *tq = &prcbs[0].TimerQueue;
	KDPC_DATA *dq = &prcbs[1].DpcData;

	unsigned long f0 = ki_lock_dispatcher();
	assert_int_equal(prcbs[0].RawLocksHeld, RAW_RANK_DISPATCHER);
	unsigned long f1 = raw_lock_ranked_irqsave(&tq->Lock, RAW_RANK_TIMER_QUEUE);
	unsigned long f2 = raw_lock_ranked_irqsave(&dq->DpcLock, RAW_RANK_DPC_QUEUE);
	assert_int_equal(prcbs[0].RawLocksHeld, RAW_RANK_DISPATCHER | RAW_RANK_TIMER_QUEUE | RAW_RANK_DPC_QUEUE);
	raw_unlock_ranked_irqrestore(&dq->DpcLock, RAW_RANK_DPC_QUEUE, f2);
	raw_unlock_ranked_irqrestore(&tq->Lock, RAW_RANK_TIMER_QUEUE, f1);
	ki_unlock_dispatcher(f0);
	assert_int_equal(prcbs[0].RawLocksHeld, 0);

	/* Links may be skipped: dispatcher -> DPC queue, timer queue -> DPC queue. */
	f0 = ki_lock_dispatcher();
	f2 = raw_lock_ranked_irqsave(&dq->DpcLock, RAW_RANK_DPC_QUEUE);
	raw_unlock_ranked_irqrestore(&dq->DpcLock, RAW_RANK_DPC_QUEUE, f2);
	ki_unlock_dispatcher(f0);
	f1 = raw_lock_ranked_irqsave(&tq->Lock, RAW_RANK_TIMER_QUEUE);
	f2 = raw_lock_ranked_irqsave(&dq->DpcLock, RAW_RANK_DPC_QUEUE);
	raw_unlock_ranked_irqrestore(&dq->DpcLock, RAW_RANK_DPC_QUEUE, f2);
	raw_unlock_ranked_irqrestore(&tq->Lock, RAW_RANK_TIMER_QUEUE, f1);
	assert_int_equal(prcbs[0].RawLocksHeld, 0);
	assert_true(arch_irqs_enabled());
}

static void test_chain_through_the_real_calls(void **state)
{
	KTIMER_ENTRY e;
	KDPC dpc;
	ke_timer_entry_init(&e, NULL, NULL);
	ke_initialize_dpc(&dpc, NULL, NULL);
	ke_set_target_processor_dpc(&dpc, 1);

	/* As a wait with a time-out, and a CSwitch record filling a trace
	 * sub-buffer, do it: timer queue and DPC queue under the dispatcher. */
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	unsigned long flags = ki_lock_dispatcher();
	ki_timer_queue_insert(&prcbs[0].TimerQueue, &e, 1000, 0);
	assert_true(ke_insert_queue_dpc(&dpc, NULL, NULL));
	assert_true(ki_timer_queue_remove(&e));
	assert_true(ke_remove_queue_dpc(&dpc));
	ki_unlock_dispatcher(flags);
	ke_lower_irql(old);
	assert_int_equal(prcbs[0].RawLocksHeld, 0);
}

static void test_out_of_order_is_caught(void **state)
{
	KTIMER_QUEUE *tq0 = &prcbs[0].TimerQueue, *tq1 = &prcbs[1].TimerQueue;
	KDPC_DATA *dq0 = &prcbs[0].DpcData, *dq1 = &prcbs[1].DpcData;

	/* Timer queue, then the dispatcher. */
	raw_lock_ranked_irqsave(&tq0->Lock, RAW_RANK_TIMER_QUEUE);
	assert_int_equal(BUGCHECK_OF(ki_lock_dispatcher()), KPROF_LOCK_ORDER);
	assert_false(raw_lock_is_held(&KiDispatcherLock)); /* caught before spinning */
	/* A second timer queue. */
	assert_int_equal(BUGCHECK_OF(raw_lock_ranked_irqsave(&tq1->Lock, RAW_RANK_TIMER_QUEUE)), KPROF_LOCK_ORDER);
	raw_unlock_ranked_irqrestore(&tq0->Lock, RAW_RANK_TIMER_QUEUE, 0);

	/* DPC queue, then a timer queue, the dispatcher, another DPC queue. */
	raw_lock_ranked_irqsave(&dq0->DpcLock, RAW_RANK_DPC_QUEUE);
	assert_int_equal(BUGCHECK_OF(raw_lock_ranked_irqsave(&tq0->Lock, RAW_RANK_TIMER_QUEUE)), KPROF_LOCK_ORDER);
	assert_int_equal(BUGCHECK_OF(ki_lock_dispatcher()), KPROF_LOCK_ORDER);
	assert_int_equal(BUGCHECK_OF(raw_lock_ranked_irqsave(&dq1->DpcLock, RAW_RANK_DPC_QUEUE)), KPROF_LOCK_ORDER);
	raw_unlock_ranked_irqrestore(&dq0->DpcLock, RAW_RANK_DPC_QUEUE, 0);
	assert_int_equal(prcbs[0].RawLocksHeld, 0);

	/* The same lock twice is the owner check's, not the order's. */
	ki_lock_dispatcher();
	assert_int_equal(BUGCHECK_OF(ki_lock_dispatcher()), SPIN_LOCK_ALREADY_OWNED);
	ki_unlock_dispatcher(0);
}

static void test_ranks_are_per_cpu(void **state)
{
	/* CPU 1 holding a DPC queue does not stop CPU 0 taking the dispatcher. */
	become_cpu(1);
	raw_lock_ranked_irqsave(&prcbs[1].DpcData.DpcLock, RAW_RANK_DPC_QUEUE);
	become_cpu(0);
	unsigned long flags = ki_lock_dispatcher();
	ki_unlock_dispatcher(flags);
	become_cpu(1);
	raw_unlock_ranked_irqrestore(&prcbs[1].DpcData.DpcLock, RAW_RANK_DPC_QUEUE, 0);
	assert_int_equal(prcbs[0].RawLocksHeld, 0);
	assert_int_equal(prcbs[1].RawLocksHeld, 0);
}

static void no_dpc(KDPC *dpc, void *ctx, void *a1, void *a2)
{
}

static void test_dpcs_never_run_under_the_dispatcher(void **state)
{
	KDPC dpc;
	ke_initialize_dpc(&dpc, no_dpc, NULL);
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	ke_insert_queue_dpc(&dpc, NULL, NULL);
	ki_lock_dispatcher();
	assert_int_equal(BUGCHECK_OF(ki_retire_dpc_list(&prcbs[0])), KPROF_LOCK_ORDER);
	ki_unlock_dispatcher(0);
	ki_retire_dpc_list(&prcbs[0]); /* without it: fine */
	assert_int_equal(prcbs[0].DpcData.DpcCount, 1);
	arch_set_irql(old);
}

/* ---------------------------------------------------------------- the dispatcher's [D] rule */

static void test_swap_thread_needs_the_lock(void **state)
{
	assert_int_equal(BUGCHECK_OF(ki_swap_thread(&prcbs[0], &runner, &other)), SPIN_LOCK_NOT_OWNED);
	assert_ptr_equal(prcbs[0].CurrentThread, &runner); /* nothing changed */

	/* Held, but by another CPU: still not ours. */
	become_cpu(1);
	unsigned long flags = ki_lock_dispatcher();
	become_cpu(0);
	assert_false(ki_dispatcher_locked());
	assert_int_equal(BUGCHECK_OF(ki_swap_thread(&prcbs[0], &runner, &other)), SPIN_LOCK_NOT_OWNED);
	become_cpu(1);
	ki_unlock_dispatcher(flags);

	/* Held here: the switch is made. */
	become_cpu(0);
	runner.State = Waiting;
	flags = ki_lock_dispatcher();
	assert_true(ki_dispatcher_locked());
	ki_swap_thread(&prcbs[0], &runner, &other);
	ki_unlock_dispatcher(flags);
	assert_ptr_equal(prcbs[0].CurrentThread, &other);
	assert_int_equal(other.State, Running);
}

static void test_swap_thread_invariants(void **state)
{
	unsigned long flags = ki_lock_dispatcher();
	/* Not this CPU's running thread; the running thread onto itself. */
	assert_int_equal(BUGCHECK_OF(ki_swap_thread(&prcbs[0], &other, &runner)), KPROF_ASSERTION_FAILED);
	assert_int_equal(BUGCHECK_OF(ki_swap_thread(&prcbs[0], &runner, &runner)), KPROF_ASSERTION_FAILED);
	assert_int_equal(BUGCHECK_OF(ki_swap_thread(&prcbs[1], &idle[1], &other)), KPROF_ASSERTION_FAILED);
	/* Interrupts on while holding the lock. */
	arch_irq_enable();
	assert_int_equal(BUGCHECK_OF(ki_swap_thread(&prcbs[0], &runner, &other)), KPROF_ASSERTION_FAILED);
	arch_irq_disable();
	ki_unlock_dispatcher(flags);
}

static void test_ki_functions_need_the_lock(void **state)
{
	KEVENT ev;
	ke_initialize_event(&ev, NotificationEvent, false);
	void *objects[1] = { &ev };

	assert_int_equal(BUGCHECK_OF(ki_ready_thread(&other, AdjustNone, 0)), SPIN_LOCK_NOT_OWNED);
	assert_int_equal(BUGCHECK_OF(ki_ready_queue_insert(&prcbs[0], &other, false)), SPIN_LOCK_NOT_OWNED);
	assert_int_equal(BUGCHECK_OF(ki_find_ready_thread(0, 0, false)), SPIN_LOCK_NOT_OWNED);
	assert_int_equal(BUGCHECK_OF(ki_request_dispatch(1)), SPIN_LOCK_NOT_OWNED);
	assert_int_equal(BUGCHECK_OF(ki_block_current()), SPIN_LOCK_NOT_OWNED);
	assert_int_equal(BUGCHECK_OF(ki_boost_priority(&other, 1)), SPIN_LOCK_NOT_OWNED);
	assert_int_equal(BUGCHECK_OF(ki_quantum_end(&other)), SPIN_LOCK_NOT_OWNED);
	assert_int_equal(BUGCHECK_OF(ki_set_priority_locked(&other, 9)), SPIN_LOCK_NOT_OWNED);
	assert_int_equal(BUGCHECK_OF(ki_signal_waiters(&ev.Header, 0)), SPIN_LOCK_NOT_OWNED);
	assert_int_equal(BUGCHECK_OF(ki_wait_setup(&other, 1, objects, WaitAny, Executive, KernelMode, 0,
						   other.WaitBlock)),
			 SPIN_LOCK_NOT_OWNED);
	assert_int_equal(BUGCHECK_OF(ki_after_switch()), SPIN_LOCK_NOT_OWNED);
	assert_int_equal(other.State, Initialized); /* nothing was done */

	/* The same calls with the lock held pass. */
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	unsigned long flags = ki_lock_dispatcher();
	assert_int_equal(ki_wait_setup(&other, 1, objects, WaitAny, Executive, KernelMode, 0, other.WaitBlock),
			 STATUS_TIMEOUT);
	ki_ready_thread(&other, AdjustNone, 0);
	assert_ptr_equal(ki_find_ready_thread(1, 0, true), &other);
	other.State = Initialized; /* off the queue, as a thread about to run */
	ki_set_priority_locked(&other, 9);
	ki_boost_priority(&other, 1);
	ki_quantum_end(&other);
	ki_signal_waiters(&ev.Header, 0);
	ki_after_switch();
	ki_unlock_dispatcher(flags);
	prcbs[0].DispatchPending = prcbs[1].DispatchPending = 0;
	ke_lower_irql(old);
}

/* The public calls take the lock themselves: nothing to assert about. */
static void test_public_calls_pass(void **state)
{
	KEVENT ev;
	ke_initialize_event(&ev, SynchronizationEvent, false);
	assert_int_equal(ke_set_event(&ev, 0, false), 0);
	assert_int_equal(ke_reset_event(&ev), 1);
	assert_int_equal(ke_set_priority_thread(&runner, 9), 8);
	assert_int_equal(prcbs[0].RawLocksHeld, 0);
	assert_false(raw_lock_is_held(&KiDispatcherLock));
}

#define RAWLOCK_TESTS(T)                                                                               \
	T(test_owner_recorded)                                                                         \
	T(test_double_acquire_is_0x0f)                                                                 \
	T(test_trylock_fails_quietly_when_ours)                                                        \
	T(test_release_not_owned_is_0x10)                                                              \
	T(test_independent_locks_nest)                                                                 \
	T(test_owner_follows_contended_lock)                                                           \
	T(test_chain_in_order_passes)                                                                  \
	T(test_chain_through_the_real_calls)                                                           \
	T(test_out_of_order_is_caught)                                                                 \
	T(test_ranks_are_per_cpu)                                                                      \
	T(test_dpcs_never_run_under_the_dispatcher)                                                    \
	T(test_swap_thread_needs_the_lock)                                                             \
	T(test_swap_thread_invariants)                                                                 \
	T(test_ki_functions_need_the_lock)                                                             \
	T(test_public_calls_pass)

static int tas_on = 1;
#define TICKET(f) { #f " (ticket)", f, setup, NULL, NULL },
#define TAS(f) { #f " (test-and-set)", f, setup, NULL, &tas_on },

int main(void)
{
	const struct CMUnitTest tests[] = { RAWLOCK_TESTS(TICKET) RAWLOCK_TESTS(TAS) };
	return cmocka_run_group_tests_name("raw locks", tests, NULL, NULL);
}
