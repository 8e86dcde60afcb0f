/*
 * test_irql_dpc.c - IRQL rules (kernel/ke/irql.c) and DPC queueing
 * (kernel/ke/dpc.c).  Each host thread plays one CPU with its own KPRCB.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <arch/interrupt.h>

#include "kernel/ke/dpc.h"
#include "kernel/debug/bugcheck.h"
#include "kernel/ke/irql.h"
#include "kernel/ke/prcb.h"
#include "shadow.h"

#define NCPU 4
KPRCB *KiProcessorBlock[KPROF_MAX_CPUS];
volatile uint32_t ke_number_processors;
static KPRCB prcbs[NCPU];

static void become_cpu(uint32_t n)
{
	arch_percpu_set(&prcbs[n]);
	arch_set_irql(PASSIVE_LEVEL);
}

static int setup(void **state)
{
	(void)state;
	memset(prcbs, 0, sizeof(prcbs));
	for (uint32_t i = 0; i < NCPU; i++) {
		prcbs[i].Self = &prcbs[i];
		prcbs[i].Number = i;
		ki_dpc_data_init(&prcbs[i].DpcData);
		KiProcessorBlock[i] = &prcbs[i];
	}
	ke_number_processors = NCPU;
	memset((void *)shadow_ipis, 0, sizeof(shadow_ipis));
	become_cpu(0);
	return 0;
}

/* What a DPC routine saw. */
struct seen {
	int runs;
	int order;
	KIRQL irql;
	uint8_t active;
	uint32_t cpu;
	void *a1;
};
static int run_counter;

static void record(KDPC *dpc, void *ctx, void *a1, void *a2)
{
	(void)dpc;
	(void)a2;
	struct seen *s = ctx;
	s->runs++;
	s->order = ++run_counter;
	s->irql = ke_get_current_irql();
	s->active = ke_is_executing_dpc();
	s->cpu = ke_get_current_processor_number();
	s->a1 = a1;
}

static void test_raise_lower(void **state)
{
	(void)state;
	assert_int_equal(ke_get_current_irql(), PASSIVE_LEVEL);
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	assert_int_equal(old, PASSIVE_LEVEL);
	old = ke_raise_irql(CLOCK_LEVEL);
	assert_int_equal(old, DISPATCH_LEVEL);
	assert_int_equal(ke_raise_irql(CLOCK_LEVEL), CLOCK_LEVEL); /* same level: fine */
	ke_lower_irql(DISPATCH_LEVEL);
	ke_lower_irql(DISPATCH_LEVEL);
	ke_lower_irql(PASSIVE_LEVEL);
	assert_int_equal(ke_get_current_irql(), PASSIVE_LEVEL);
}

static void test_misuse_bugchecks(void **state)
{
	(void)state;
	ke_raise_irql(CLOCK_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_raise_irql(DISPATCH_LEVEL)));
	assert_int_equal(shadow_last_bugcheck, IRQL_NOT_GREATER_OR_EQUAL);
	assert_int_equal(ke_get_current_irql(), CLOCK_LEVEL); /* nothing changed */
	ke_lower_irql(DISPATCH_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_lower_irql(HIGH_LEVEL)));
	assert_int_equal(shadow_last_bugcheck, IRQL_NOT_LESS_OR_EQUAL);
	assert_int_equal(ke_get_current_irql(), DISPATCH_LEVEL);
	assert_true(SHADOW_EXPECT_BUGCHECK(ki_interrupt_enter(APC_LEVEL)));
	assert_int_equal(shadow_last_bugcheck, IRQL_NOT_GREATER_OR_EQUAL);
	ke_lower_irql(PASSIVE_LEVEL);
}

static void test_dpc_runs_at_once_below_dispatch(void **state)
{
	(void)state;
	KDPC d;
	struct seen s = { 0 };
	ke_initialize_dpc(&d, record, &s);
	assert_int_equal(d.Type, DpcObject);
	assert_true(ke_insert_queue_dpc(&d, (void *)0x11, NULL));
	assert_int_equal(s.runs, 1);
	assert_int_equal(s.irql, DISPATCH_LEVEL);
	assert_int_equal(s.active, 1);
	assert_ptr_equal(s.a1, (void *)0x11);
	assert_int_equal(ke_get_current_irql(), PASSIVE_LEVEL);
	assert_int_equal(ke_is_executing_dpc(), 0);
	assert_null(d.DpcData);
	assert_int_equal(prcbs[0].DpcData.DpcCount, 1);
}

static void test_dpc_waits_for_dispatch_and_orders(void **state)
{
	(void)state;
	KDPC a, b, h;
	struct seen sa = { 0 }, sb = { 0 }, sh = { 0 };
	ke_initialize_dpc(&a, record, &sa);
	ke_initialize_dpc(&b, record, &sb);
	ke_initialize_dpc(&h, record, &sh);
	ke_set_importance_dpc(&h, HighImportance);

	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	assert_true(ke_insert_queue_dpc(&a, NULL, NULL));
	assert_false(ke_insert_queue_dpc(&a, NULL, NULL)); /* already queued */
	assert_true(ke_insert_queue_dpc(&b, NULL, NULL));
	assert_true(ke_insert_queue_dpc(&h, NULL, NULL));
	assert_int_equal(prcbs[0].DpcData.DpcQueueDepth, 3);
	assert_int_equal(sa.runs + sb.runs + sh.runs, 0); /* nothing at DISPATCH */
	ke_lower_irql(old);
	assert_int_equal(sa.runs, 1);
	assert_int_equal(sb.runs, 1);
	assert_int_equal(sh.runs, 1);
	assert_true(sh.order < sa.order && sa.order < sb.order); /* high first, then FIFO */
	assert_int_equal(prcbs[0].DpcData.DpcQueueDepth, 0);
}

static void test_remove(void **state)
{
	(void)state;
	KDPC d;
	struct seen s = { 0 };
	ke_initialize_dpc(&d, record, &s);
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	assert_false(ke_remove_queue_dpc(&d));
	assert_true(ke_insert_queue_dpc(&d, NULL, NULL));
	assert_true(ke_remove_queue_dpc(&d));
	assert_false(ke_remove_queue_dpc(&d));
	ke_lower_irql(old);
	assert_int_equal(s.runs, 0);
	assert_true(ke_insert_queue_dpc(&d, NULL, NULL)); /* can be queued again */
	assert_int_equal(s.runs, 1);
}

static KDPC requeue_dpc;
static int requeue_runs;
static void requeue(KDPC *dpc, void *ctx, void *a1, void *a2)
{
	(void)ctx;
	(void)a1;
	(void)a2;
	if (++requeue_runs < 3)
		assert_true(ke_insert_queue_dpc(dpc, NULL, NULL)); /* from inside itself */
}

/* A DPC that asks for a reschedule (as readying a thread does). */
static uint32_t dispatches_seen_in_dpc;
static void ask_reschedule(KDPC *dpc, void *ctx, void *a1, void *a2)
{
	(void)dpc;
	(void)ctx;
	(void)a1;
	(void)a2;
	dispatches_seen_in_dpc = shadow_dispatch_interrupts;
	ke_get_current_prcb()->DispatchPending = 1;
}

static void test_reschedule_after_dpcs_below_dispatch(void **state)
{
	(void)state;
	KDPC d;
	shadow_dispatch_interrupts = 0;
	ke_initialize_dpc(&d, ask_reschedule, NULL);

	/* Pending while at DISPATCH_LEVEL: nothing until IRQL drops below it. */
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	ke_get_current_prcb()->DispatchPending = 1;
	ke_lower_irql(DISPATCH_LEVEL);
	assert_int_equal(shadow_dispatch_interrupts, 0);
	ke_lower_irql(old);
	assert_int_equal(shadow_dispatch_interrupts, 1);
	assert_false(ke_get_current_prcb()->DispatchPending);

	/* Asked from a DPC: the DPCs run first, then the reschedule, once. */
	old = ke_raise_irql(DISPATCH_LEVEL);
	ke_insert_queue_dpc(&d, NULL, NULL);
	ke_lower_irql(old);
	assert_int_equal(dispatches_seen_in_dpc, 1);
	assert_int_equal(shadow_dispatch_interrupts, 2);
	assert_int_equal(ke_get_current_irql(), PASSIVE_LEVEL);
}

static void test_dpc_requeues_itself(void **state)
{
	(void)state;
	requeue_runs = 0;
	ke_initialize_dpc(&requeue_dpc, requeue, NULL);
	ke_insert_queue_dpc(&requeue_dpc, NULL, NULL);
	assert_int_equal(requeue_runs, 3);
}

static void test_interrupt_exit_runs_dpcs(void **state)
{
	(void)state;
	KDPC d;
	struct seen s = { 0 };
	ke_initialize_dpc(&d, record, &s);
	uint32_t count = prcbs[0].InterruptCount;

	KIRQL old = ki_interrupt_enter(CLOCK_LEVEL);
	assert_int_equal(old, PASSIVE_LEVEL);
	assert_int_equal(ke_get_current_irql(), CLOCK_LEVEL);
	assert_int_equal(ke_is_executing_isr(), 1);
	assert_int_equal(prcbs[0].InterruptCount, count + 1);
	assert_true(ke_insert_queue_dpc(&d, NULL, NULL));
	assert_int_equal(s.runs, 0); /* never inside the interrupt */
	ki_interrupt_exit(old);
	assert_int_equal(s.runs, 1);
	assert_int_equal(s.irql, DISPATCH_LEVEL);
	assert_int_equal(ke_get_current_irql(), PASSIVE_LEVEL);
	assert_int_equal(ke_is_executing_isr(), 0);

	/* Interrupting DISPATCH_LEVEL: the DPC waits for the lowering. */
	ke_raise_irql(DISPATCH_LEVEL);
	old = ki_interrupt_enter(IPI_LEVEL);
	ke_insert_queue_dpc(&d, NULL, NULL);
	ki_interrupt_exit(old);
	assert_int_equal(s.runs, 1);
	assert_int_equal(ke_get_current_irql(), DISPATCH_LEVEL);
	ke_lower_irql(PASSIVE_LEVEL);
	assert_int_equal(s.runs, 2);
}

static void test_remote_dpc_needs_target(void **state)
{
	(void)state;
	KDPC d;
	struct seen s = { 0 };
	ke_initialize_dpc(&d, record, &s);
	ke_set_target_processor_dpc(&d, 2);
	assert_true(ke_insert_queue_dpc(&d, NULL, NULL));
	assert_int_equal(s.runs, 0);                     /* not on this CPU */
	assert_int_equal(shadow_ipis[2][ARCH_INT_DPC], 1); /* target interrupted */
	assert_int_equal(prcbs[2].DpcData.DpcQueueDepth, 1);
	assert_true(SHADOW_EXPECT_BUGCHECK(ke_set_target_processor_dpc(&d, NCPU)));

	/* Play CPU 2 taking the DPC interrupt. */
	become_cpu(2);
	KIRQL old = ki_interrupt_enter(DISPATCH_LEVEL);
	ki_interrupt_exit(old);
	assert_int_equal(s.runs, 1);
	assert_int_equal(s.cpu, 2);
	become_cpu(0);
}

/* Three CPUs flood CPU 0's queue while CPU 0 drains it. */
#define FLOOD 5000
static KDPC flood_dpc[3][64];
static volatile int flood_runs;
static volatile int producers_done;

static void count_run(KDPC *dpc, void *ctx, void *a1, void *a2)
{
	(void)dpc;
	(void)ctx;
	(void)a1;
	(void)a2;
	__atomic_fetch_add(&flood_runs, 1, __ATOMIC_RELAXED);
}

static int flood_inserted[3];

static void *producer(void *arg)
{
	uint32_t me = (uint32_t)(uintptr_t)arg;
	become_cpu(me + 1);
	int n = 0;
	for (int i = 0; n < FLOOD; i++) {
		if (ke_insert_queue_dpc(&flood_dpc[me][i % 64], NULL, NULL))
			n++;
		else
			sched_yield(); /* all 64 queued: let CPU 0 drain (host threads share cores) */
	}
	flood_inserted[me] = n;
	__atomic_fetch_add(&producers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_concurrent_insertion(void **state)
{
	(void)state;
	pthread_t t[3];
	flood_runs = 0;
	producers_done = 0;
	for (int c = 0; c < 3; c++)
		for (int i = 0; i < 64; i++) {
			ke_initialize_dpc(&flood_dpc[c][i], count_run, NULL);
			ke_set_target_processor_dpc(&flood_dpc[c][i], 0);
		}
	for (uintptr_t c = 0; c < 3; c++)
		pthread_create(&t[c], NULL, producer, (void *)c);
	while (__atomic_load_n(&producers_done, __ATOMIC_ACQUIRE) < 3 || prcbs[0].DpcData.DpcQueueDepth) {
		KIRQL old = ki_interrupt_enter(DISPATCH_LEVEL); /* the DPC interrupt */
		ki_interrupt_exit(old);
	}
	for (int c = 0; c < 3; c++)
		pthread_join(t[c], NULL);
	assert_int_equal(flood_runs, 3 * FLOOD);
	assert_int_equal(flood_inserted[0] + flood_inserted[1] + flood_inserted[2], 3 * FLOOD);
	assert_int_equal(prcbs[0].DpcData.DpcQueueDepth, 0);
	assert_true(list_empty(&prcbs[0].DpcData.DpcListHead));
}

/* One DPC that targets "the current CPU", queued from every CPU at once:
 * each queues it on its own queue under its own lock, so only the claim
 * on the DPC itself keeps its one list entry on one queue. */
#define SHARED_ROUNDS 20000
static KDPC shared_dpc;
static uint64_t shared_runs, shared_queued[NCPU];
static volatile int shared_go;

static void shared_run(KDPC *dpc, void *ctx, void *a1, void *a2)
{
	(void)dpc;
	(void)ctx;
	(void)a1;
	(void)a2;
	__atomic_fetch_add(&shared_runs, 1, __ATOMIC_RELAXED);
}

static void *shared_cpu(void *arg)
{
	uint32_t n = (uint32_t)(uintptr_t)arg;
	become_cpu(n);
	while (!__atomic_load_n(&shared_go, __ATOMIC_ACQUIRE))
		;
	for (int i = 0; i < SHARED_ROUNDS; i++) {
		/* At DISPATCH_LEVEL it stays queued until we lower: the window
		 * in which another CPU may try to queue it too. */
		KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
		shared_queued[n] += ke_insert_queue_dpc(&shared_dpc, NULL, NULL);
		ke_lower_irql(old); /* runs it */
	}
	return NULL;
}

static void test_same_dpc_queued_from_every_cpu(void **state)
{
	(void)state;
	pthread_t t[NCPU];
	ke_initialize_dpc(&shared_dpc, shared_run, NULL);
	shared_runs = 0;
	shared_go = 0;
	memset(shared_queued, 0, sizeof(shared_queued));
	for (uintptr_t c = 0; c < NCPU; c++)
		pthread_create(&t[c], NULL, shared_cpu, (void *)c);
	__atomic_store_n(&shared_go, 1, __ATOMIC_RELEASE);
	for (int c = 0; c < NCPU; c++)
		pthread_join(t[c], NULL);
	uint64_t queued = 0;
	for (int c = 0; c < NCPU; c++) {
		queued += shared_queued[c];
		assert_int_equal(prcbs[c].DpcData.DpcQueueDepth, 0);
		assert_true(list_empty(&prcbs[c].DpcData.DpcListHead));
	}
	assert_int_equal(shared_runs, queued); /* each queueing ran exactly once */
	assert_null(shared_dpc.DpcData);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_raise_lower, setup),
		cmocka_unit_test_setup(test_misuse_bugchecks, setup),
		cmocka_unit_test_setup(test_dpc_runs_at_once_below_dispatch, setup),
		cmocka_unit_test_setup(test_dpc_waits_for_dispatch_and_orders, setup),
		cmocka_unit_test_setup(test_remove, setup),
		cmocka_unit_test_setup(test_dpc_requeues_itself, setup),
		cmocka_unit_test_setup(test_reschedule_after_dpcs_below_dispatch, setup),
		cmocka_unit_test_setup(test_interrupt_exit_runs_dpcs, setup),
		cmocka_unit_test_setup(test_remote_dpc_needs_target, setup),
		cmocka_unit_test_setup(test_concurrent_insertion, setup),
		cmocka_unit_test_setup(test_same_dpc_queued_from_every_cpu, setup),
	};
	return cmocka_run_group_tests_name("irql_dpc", tests, NULL, NULL);
}
