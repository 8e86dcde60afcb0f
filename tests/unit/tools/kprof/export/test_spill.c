/*
 * test_spill.c - tools/kprof/export/perfetto/proto/spill.c: the protobuf
 * writer's external sort, and the merge sort (PB_SORT_DEFINE) its buffers
 * are sorted with.
 *
 * Every case is answered independently here with qsort of every element
 * and compared element for element with what the sort reads back, over
 * budgets from one element (every element a run of its own, all merged
 * through the heap) to all of them (no run written).  The elements have
 * heavy ties on their key, broken by a sequence number, so an order that
 * is not the comparison's total order shows.  A sort whose runs cannot be
 * written (TMPDIR a directory that is not there) ends the process with
 * exit status 3.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/xorshift.h"

#include "tools/kprof/export/protobuf/pb.h"
#include "tools/kprof/export/perfetto/proto/spill.h"

struct el {
	uint64_t key, seq;
	uint32_t pad[4];    /* 32 bytes, as the writer's events */
};

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	return xorshift64(&rng);
}

static inline int cmp_el(const struct el *x, const struct el *y)
{
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_void(const void *a, const void *b)
{
	return cmp_el(a, b);
}

PB_SORT_DEFINE(sort_el, struct el, cmp_el)

/* n elements, keys drawn from `keys` values (ties when few), some runs
 * of them already in order (as a track's events come). */
static struct el *make(size_t n, uint64_t keys)
{
	struct el *v = calloc(n ? n : 1, sizeof(*v));
	uint64_t run = 0;

	for (size_t i = 0; i < n; i++) {
		if (i % 37 == 0)
			run = next() % keys;
		v[i].key = (i / 37) % 3 ? run + i % 37 : next() % keys;
		v[i].seq = i;
		v[i].pad[0] = (uint32_t)next();
	}
	return v;
}

static void check_sorted_like_qsort(struct el *got, const struct el *orig, size_t n)
{
	struct el *want = calloc(n ? n : 1, sizeof(*want));

	memcpy(want, orig, n * sizeof(*want));
	qsort(want, n, sizeof(*want), cmp_void);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(got[i].key, want[i].key);
		assert_int_equal(got[i].seq, want[i].seq);
		assert_int_equal(got[i].pad[0], want[i].pad[0]);
	}
	free(want);
}

static void test_merge_sort(void **state)
{
	(void)state;
	for (size_t n = 0; n < 200; n++) {
		struct el *v = make(n, n % 5 ? 1000 : 3), *copy = calloc(n ? n : 1, sizeof(*copy));
		memcpy(copy, v, n * sizeof(*v));
		sort_el(v, n);
		check_sorted_like_qsort(v, copy, n);
		free(v);
		free(copy);
	}
	size_t sizes[] = { 4096, 100000 };
	for (size_t k = 0; k < 2; k++) {
		struct el *v = make(sizes[k], 50), *copy = calloc(sizes[k], sizeof(*copy));
		memcpy(copy, v, sizes[k] * sizeof(*v));
		sort_el(v, sizes[k]);
		check_sorted_like_qsort(v, copy, sizes[k]);
		free(v);
		free(copy);
	}
}

/* A codec as the writer's: the key and the sequence number as varint
 * differences from the element before, the rest whole. */
static size_t el_encode(const void *prev_, const void *e_, unsigned char *out)
{
	const struct el *prev = prev_, *e = e_;
	size_t o = 0;

	o += pb_put_varint(out + o, prev ? e->key - prev->key : e->key);
	o += pb_put_varint(out + o, pb_zigzag(e->seq, prev ? prev->seq : 0));
	memcpy(out + o, e->pad, sizeof(e->pad));
	return o + sizeof(e->pad);
}

static size_t el_decode(const void *prev_, const unsigned char *in, void *e_)
{
	const struct el *prev = prev_;
	struct el *e = e_;
	uint64_t v;
	size_t o = 0;

	o += pb_get_varint(in + o, &v);
	e->key = prev ? prev->key + v : v;
	o += pb_get_varint(in + o, &v);
	e->seq = pb_unzigzag(v, prev ? prev->seq : 0);
	memcpy(e->pad, in + o, sizeof(e->pad));
	return o + sizeof(e->pad);
}

static const struct pb_spill_codec el_codec = { el_encode, el_decode, 20 + 2 * 10 };

/* n elements through a sort of `budget` elements' bytes, read back,
 * written whole or through the codec. */
static void through_with(size_t n, uint64_t keys, size_t budget, const struct pb_spill_codec *codec)
{
	struct el *v = make(n, keys), *got = calloc(n ? n : 1, sizeof(*got));
	struct pb_spill s;
	const struct el *e;
	size_t k = 0;

	pb_spill_init(&s, sizeof(struct el), cmp_void, sort_el, codec, budget * sizeof(struct el));
	for (size_t i = 0; i < n; i++)
		pb_spill_add(&s, &v[i]);
	assert_int_equal(s.count, n);
	pb_spill_sorted(&s);
	assert_int_equal(s.nruns, budget >= n ? 0 : (n + budget - 1) / budget);
	while ((e = pb_spill_next(&s))) {
		assert_true(k < n);
		got[k++] = *e;
	}
	assert_null(pb_spill_next(&s)); /* and stays at the end */
	assert_int_equal(k, n);
	check_sorted_like_qsort(got, v, n);
	pb_spill_free(&s);
	free(v);
	free(got);
}

static void through(size_t n, uint64_t keys, size_t budget)
{
	through_with(n, keys, budget, NULL);
	through_with(n, keys, budget, &el_codec);
}

static void test_budgets(void **state)
{
	size_t sizes[] = { 0, 1, 2, 17, 1000, 30000 };
	size_t budgets[] = { 1, 2, 3, 16, 100, 4096, 40000 };

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t j = 0; j < sizeof(budgets) / sizeof(budgets[0]); j++) {
			through(sizes[i], 7, budgets[j]);
			through(sizes[i], UINT64_MAX, budgets[j]);
		}
}

/* A run that cannot be written: exit status 3, nothing else. */
static void test_no_room(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct pb_spill s;
		struct el e = { 0 };
		setenv("TMPDIR", "/nonexistent-kprof-test-dir", 1);
		freopen("/dev/null", "w", stderr);
		pb_spill_init(&s, sizeof(e), cmp_void, sort_el, NULL, sizeof(e));
		pb_spill_add(&s, &e);
		pb_spill_add(&s, &e); /* the first run goes out */
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_sort),
		cmocka_unit_test(test_budgets),
		cmocka_unit_test(test_no_room),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
