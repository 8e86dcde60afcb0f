/*
 * test_send_policy.c - when the stream-mode trace logger sends and at which
 * priority (kernel/trace/out/send_policy.c): a ring's backlog, the hysteresis
 * between idle and urgent priority, and the bound of half a CPU on urgent
 * turns, with the rest that a DPC may end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernel/trace/out/send_policy.h"

#define TURN 1000u /* a clock tick, in made-up cycles */

static void test_waiting(void **state)
{
	(void)state;
	struct trace_cpu tc = { .shift = 16, .nsub = 8 };

	assert_int_equal(send_policy_waiting(&tc), 0);
	tc.offset = (5ull << 16) | 100; /* writing sub-buffer 5 */
	tc.consumed = 2;                /* 0 and 1 released     */
	assert_int_equal(send_policy_waiting(&tc), 3);
	tc.consumed = 5;
	assert_int_equal(send_policy_waiting(&tc), 0);
	tc.offset = 5ull << 16;         /* 5 just begun: 2, 3, 4 full */
	tc.consumed = 2;
	assert_int_equal(send_policy_waiting(&tc), 3);
}

/* Idle priority below half the ring, urgent from half, and it stays so
 * down to a quarter (no flip per sub-buffer). */
static void test_hysteresis(void **state)
{
	(void)state;
	struct send_policy p = { 0 };
	uint64_t now = 0;

	for (uint64_t most = 0; most < 8; most++)
		assert_int_equal(send_policy_update(&p, most, 16, now += 10, TURN), SEND_PRIORITY_IDLE);
	assert_int_equal(send_policy_update(&p, 8, 16, now += 10, TURN), SEND_PRIORITY_URGENT);
	assert_int_equal(p.mode, SEND_URGENT);
	for (uint64_t most = 7; most > 4; most--)
		assert_int_equal(send_policy_update(&p, most, 16, now += 10, TURN), SEND_PRIORITY_URGENT);
	assert_int_equal(send_policy_update(&p, 4, 16, now += 10, TURN), SEND_PRIORITY_IDLE);
	assert_int_equal(p.mode, SEND_CALM);
	assert_int_equal(send_policy_update(&p, 7, 16, now += 10, TURN), SEND_PRIORITY_IDLE);

	/* The smallest ring (2 sub-buffers): urgent as soon as one waits. */
	struct send_policy q = { 0 };
	assert_int_equal(send_policy_update(&q, 0, 2, 1, TURN), SEND_PRIORITY_IDLE);
	assert_int_equal(send_policy_update(&q, 1, 2, 2, TURN), SEND_PRIORITY_URGENT);
	assert_int_equal(send_policy_update(&q, 0, 2, 3, TURN), SEND_PRIORITY_IDLE);
}

/* A turn longer than TURN rests as long as it ran; the rest ends on time,
 * or earlier when the backlog falls to a quarter. */
static void test_turn_and_rest(void **state)
{
	(void)state;
	struct send_policy p = { 0 };

	assert_int_equal(send_policy_update(&p, 10, 16, 5000, TURN), SEND_PRIORITY_URGENT);
	assert_int_equal(send_policy_update(&p, 10, 16, 5900, TURN), SEND_PRIORITY_URGENT); /* within its turn */
	assert_int_equal(send_policy_update(&p, 10, 16, 7500, TURN), SEND_PRIORITY_IDLE);   /* ran 2500 */
	assert_int_equal(p.mode, SEND_REST);
	assert_int_equal(p.rest_end, 10000);
	assert_false(send_policy_wants_urgent(&p, 10, 16, 9999));
	assert_true(send_policy_wants_urgent(&p, 10, 16, 10000));
	assert_false(send_policy_wants_urgent(&p, 4, 16, 10000)); /* back to a quarter: stays calm */
	assert_int_equal(send_policy_update(&p, 12, 16, 9000, TURN), SEND_PRIORITY_IDLE);
	assert_int_equal(send_policy_update(&p, 12, 16, 10001, TURN), SEND_PRIORITY_URGENT);
	assert_false(send_policy_wants_urgent(&p, 16, 16, 20000)); /* urgent already */
	assert_int_equal(send_policy_update(&p, 12, 16, 12000, TURN), SEND_PRIORITY_IDLE);
	assert_int_equal(p.mode, SEND_REST);
	assert_int_equal(send_policy_update(&p, 3, 16, 12100, TURN), SEND_PRIORITY_IDLE);
	assert_int_equal(p.mode, SEND_CALM);
	assert_false(send_policy_wants_urgent(&p, 7, 16, 1u << 30));
	assert_true(send_policy_wants_urgent(&p, 8, 16, 0)); /* calm, half waits */
}

/* Under a backlog that never shrinks, with sub-buffers of any length, the
 * logger holds urgent priority at most about half the time. */
static void test_half_a_cpu(void **state)
{
	(void)state;
	static const uint64_t lengths[] = { 1, 300, 999, 1001, 4000, 25000 };

	for (size_t k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++) {
		struct send_policy p = { 0 };
		uint64_t now = 1u << 20, urgent = 0, total = 0, len = lengths[k];
		int8_t prio = send_policy_update(&p, 16, 16, now, TURN);
		for (int i = 0; i < 20000; i++) {
			now += len;
			total += len;
			if (prio == SEND_PRIORITY_URGENT)
				urgent += len;
			prio = send_policy_update(&p, 16, 16, now, TURN);
		}
		assert_true(urgent > total / 4);           /* it does get turns  */
		assert_true(urgent <= total / 2 + 2 * len + TURN);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waiting),
		cmocka_unit_test(test_hysteresis),
		cmocka_unit_test(test_turn_and_rest),
		cmocka_unit_test(test_half_a_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
