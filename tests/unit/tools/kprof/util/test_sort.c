/*
 * test_sort.c - kp_sort_nearly (tools/kprof/util/sort.h): the model's sort
 * of a CPU's waits, stalls, samples and ReadyThread records, an insertion
 * sort in place that gives up to qsort past 8 moves an element.
 *
 * The answer is checked against a stable sort made here (each element's
 * place before the sort breaks ties): the order must be the comparison's,
 * and elements alike must keep the order they came in, whether the array
 * was nearly in order (the insertion sort finishes), reversed or random
 * (it gives up part way, and qsort must still find alike elements in
 * their first order), with heavy ties, and empty or of one element.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/xorshift.h"

#include "tools/kprof/util/sort.h"

struct el {
	uint64_t key;
	uint32_t place;  /* before the sort: not compared */
	uint8_t pad[20]; /* 32 bytes, as the model's elements */
};

static uint64_t rng = 0x853c49e6748fea9bull;

static uint64_t next(void)
{
	return xorshift64(&rng);
}

static int cmp_key(const void *a, const void *b)
{
	return kp_cmp_u64(((const struct el *)a)->key, ((const struct el *)b)->key);
}

static int cmp_stable(const void *a, const void *b)
{
	const struct el *x = a, *y = b;
	int c = kp_cmp_u64(x->key, y->key);
	return c ? c : kp_cmp_u64(x->place, y->place);
}

enum shape { NEARLY, REVERSED, RANDOM, TIES };

static void check(size_t n, enum shape shape)
{
	struct el *v = calloc(n ? n : 1, sizeof(*v)), *want = calloc(n ? n : 1, sizeof(*want));

	for (size_t i = 0; i < n; i++) {
		uint64_t k = shape == NEARLY ? i * 4 + (next() % 8 == 0 ? next() % 24 : 0)
			     : shape == REVERSED ? n - i
			     : shape == RANDOM ? next() % 100000
					       : next() % 3;
		v[i] = (struct el){ .key = k, .place = (uint32_t)i };
	}
	memcpy(want, v, n * sizeof(*v));
	qsort(want, n, sizeof(*want), cmp_stable);
	kp_sort_nearly(v, n, sizeof(*v), cmp_key);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(v[i].key, want[i].key);
		assert_int_equal(v[i].place, want[i].place);
	}
	free(v);
	free(want);
}

static void test_shapes(void **state)
{
	size_t sizes[] = { 0, 1, 2, 3, 17, 100, 5000, 40000 };

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (int shape = NEARLY; shape <= TIES; shape++)
			check(sizes[i], (enum shape)shape);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
