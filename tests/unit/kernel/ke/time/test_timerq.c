/*
 * test_timerq.c - the per-CPU timer queue (kernel/ke/time/timerq.c) and clock
 * conversions (kernel/ke/time/time.c, kernel/lib/muldiv.c) with fake clocks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/lib/muldiv.h"
#include "kernel/ke/time/time.h"
#include "kernel/ke/time/timerq.h"

static int fired[8];
static int fire_order[8], fire_seq;

static void cb(KTIMER_ENTRY *e, KTRAP_FRAME *tf, void *ctx)
{
	(void)e;
	(void)tf;
	int i = (int)(uintptr_t)ctx;
	fired[i]++;
	fire_order[i] = ++fire_seq;
}

static void test_order_and_expiry(void **state)
{
	(void)state;
	KTIMER_QUEUE q = { 0 };
	KTIMER_ENTRY e[4];
	memset(fired, 0, sizeof(fired));
	fire_seq = 0;
	for (int i = 0; i < 4; i++)
		ke_timer_entry_init(&e[i], cb, (void *)(uintptr_t)i);
	ki_timer_queue_insert(&q, &e[0], 300, 0);
	ki_timer_queue_insert(&q, &e[1], 100, 0);
	ki_timer_queue_insert(&q, &e[2], 200, 0);
	ki_timer_queue_insert(&q, &e[3], 200, 0); /* same deadline: after e[2] */
	assert_int_equal(ki_timer_queue_next(&q), 100);
	assert_int_equal(ki_timer_queue_expire(&q, 99, NULL), 100);
	assert_int_equal(fired[1], 0);
	assert_int_equal(ki_timer_queue_expire(&q, 250, NULL), 300);
	assert_int_equal(fired[1] + fired[2] + fired[3], 3);
	assert_true(fire_order[1] < fire_order[2] && fire_order[2] < fire_order[3]);
	assert_false(e[2].Queued);
	assert_true(e[0].Queued);
	assert_int_equal(ki_timer_queue_expire(&q, 1000, NULL), UINT64_MAX);
	assert_int_equal(q.Expirations, 4);
}

static void test_periodic_and_missed(void **state)
{
	(void)state;
	KTIMER_QUEUE q = { 0 };
	KTIMER_ENTRY p;
	memset(fired, 0, sizeof(fired));
	ke_timer_entry_init(&p, cb, (void *)0);
	ki_timer_queue_insert(&q, &p, 100, 100);
	assert_int_equal(ki_timer_queue_expire(&q, 100, NULL), 200);
	assert_int_equal(ki_timer_queue_expire(&q, 210, NULL), 300);
	/* Late by more than two periods: one run, the skipped ones counted. */
	assert_int_equal(ki_timer_queue_expire(&q, 555, NULL), 600);
	assert_int_equal(fired[0], 3);
	assert_int_equal(p.Missed, 2);
	assert_true(ki_timer_queue_remove(&p));
	assert_false(ki_timer_queue_remove(&p));
	assert_int_equal(ki_timer_queue_next(&q), UINT64_MAX);
}

static void test_reinsert_moves(void **state)
{
	(void)state;
	KTIMER_QUEUE q = { 0 };
	KTIMER_ENTRY a, b;
	ke_timer_entry_init(&a, cb, (void *)0);
	ke_timer_entry_init(&b, cb, (void *)1);
	ki_timer_queue_insert(&q, &a, 100, 0);
	ki_timer_queue_insert(&q, &b, 200, 0);
	ki_timer_queue_insert(&q, &a, 300, 0); /* queued again: moves, not duplicated */
	assert_ptr_equal(q.Head, &b);
	assert_ptr_equal(b.Next, &a);
	assert_null(a.Next);
}

static void test_muldiv(void **state)
{
	(void)state;
	assert_int_equal(mul_div_u64(10, 20, 5), 40);
	assert_int_equal(mul_div_u64(UINT64_MAX, 3, 3), UINT64_MAX);
	assert_int_equal(mul_div_u64(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX);
	assert_int_equal(mul_div_u64(1ULL << 40, 1ULL << 40, 1ULL << 30), 1ULL << 50);
	assert_int_equal(mul_div_u64(3000000000ULL, 1000000000ULL, 7), 428571428571428571ULL);
	assert_int_equal(mul_div_u64(3000000000ULL, 1000000000000ULL, 7), UINT64_MAX); /* 4.3e20 */
	assert_int_equal(mul_div_u64(1, 1, 0), UINT64_MAX);
	assert_int_equal(mul_div_u64(1ULL << 63, 4, 2), UINT64_MAX); /* does not fit */
}

/* A fake reference clock advancing with a fake TSC. */
static uint64_t fake_tsc;
static uint64_t fake_ref_hz, fake_tsc_hz, fake_mask;
static uint64_t read_tsc(void)
{
	return fake_tsc += 1000; /* every read takes 1000 cycles */
}
static uint64_t read_ref(void)
{
	fake_tsc += 700; /* time passes during the read too */
	return mul_div_u64(fake_tsc, fake_ref_hz, fake_tsc_hz) & fake_mask;
}

static void test_measure_against_fake_clock(void **state)
{
	(void)state;
	struct refclock ref = { .name = "fake", .read = read_ref };
	/* PM-timer-like: 3.579545 MHz, 24 bits (wraps every 4.7 s). */
	fake_tsc = 1ULL << 40;
	fake_ref_hz = ref.hz = 3579545;
	fake_mask = ref.mask = 0xFFFFFF;
	fake_tsc_hz = 2400000000ULL;
	uint64_t hz = clock_measure_tsc(&ref, read_tsc, 50000);
	assert_true(clock_error_ppm(hz, fake_tsc_hz) < 100 && clock_error_ppm(hz, fake_tsc_hz) > -100);
	/* A window long enough to wrap the 24-bit counter twice. */
	hz = clock_measure_tsc(&ref, read_tsc, 10000000);
	assert_true(clock_error_ppm(hz, fake_tsc_hz) < 10 && clock_error_ppm(hz, fake_tsc_hz) > -10);
	/* HPET-like: 100 MHz, 64 bits. */
	fake_ref_hz = ref.hz = 100000000;
	fake_mask = ref.mask = ~0ULL;
	hz = clock_measure_tsc(&ref, read_tsc, 20000);
	assert_true(clock_error_ppm(hz, fake_tsc_hz) < 100 && clock_error_ppm(hz, fake_tsc_hz) > -100);
	assert_int_equal(clock_error_ppm(1010, 1000), 10000);
	assert_int_equal(clock_error_ppm(990, 1000), -10000);
}

/* A reference whose reads wait 100 us (a device behind a busy host lock)
 * and are sampled at the start of the wait early on, at its end later:
 * each bracket is 100 us wide and the midpoints are off by 50 us the
 * opposite ways.  Over one 20 ms window that is 5000 ppm; the measurement
 * must widen its window until the brackets allow at most
 * CLOCK_MEASURE_MAX_PPM. */
static uint64_t slow_start;
static uint64_t read_ref_slow(void)
{
	const uint64_t wait = 240000; /* 100 us at 2.4 GHz */
	uint64_t at = fake_tsc - slow_start < 10000000 ? fake_tsc : fake_tsc + wait;
	fake_tsc += wait;
	return mul_div_u64(at, fake_ref_hz, fake_tsc_hz) & fake_mask;
}

static void test_measure_widens_window_when_reads_wait(void **state)
{
	(void)state;
	struct refclock ref = { .name = "slow", .read = read_ref_slow };
	slow_start = fake_tsc = 1ULL << 40;
	fake_ref_hz = ref.hz = 100000000;
	fake_mask = ref.mask = ~0ULL;
	fake_tsc_hz = 2400000000ULL;
	uint64_t start = fake_tsc;
	uint64_t hz = clock_measure_tsc(&ref, read_tsc, 20000);
	int64_t ppm = clock_error_ppm(hz, fake_tsc_hz);
	assert_true(ppm < CLOCK_MEASURE_MAX_PPM && ppm > -CLOCK_MEASURE_MAX_PPM);
	/* It took more than one 20 ms window, and at most 16 + 8 + 4 + 2 + 1. */
	assert_true(fake_tsc - start > 2 * 48000000ULL);
	assert_true(fake_tsc - start < 32 * 48000000ULL);
}

static uint64_t frozen(void)
{
	return 42;
}

static void test_dead_reference_clock(void **state)
{
	(void)state;
	struct refclock ref = { .name = "dead", .hz = 1000000, .mask = ~0ULL, .read = frozen };
	assert_int_equal(clock_measure_tsc(&ref, read_tsc, 1000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_expiry),
		cmocka_unit_test(test_periodic_and_missed),
		cmocka_unit_test(test_reinsert_moves),
		cmocka_unit_test(test_muldiv),
		cmocka_unit_test(test_measure_against_fake_clock),
		cmocka_unit_test(test_measure_widens_window_when_reads_wait),
		cmocka_unit_test(test_dead_reference_clock),
	};
	return cmocka_run_group_tests_name("timerq_time", tests, NULL, NULL);
}
