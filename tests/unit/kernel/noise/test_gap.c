/*
 * test_gap.c - kernel/noise/gap.c with a model clock: each read
 * returns the next value of a script (a CPU reading the TSC every cycle,
 * with the gaps the test puts in), the SMI counter a value the script
 * raises at a gap.  So every gap, total, maximum, kept set and overlap is
 * known beforehand, whatever host runs the test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/noise/gap.h"

/* The model: reads go 1 cycle apart, except that the read after
 * `at[i]` comes `len[i]` cycles later; smi() returns how many gaps the
 * clock has jumped so far times `smi_per_gap`. */
struct model {
	uint64_t t;
	const uint64_t *at, *len;
	uint32_t n, next;
	uint64_t smis, smi_per_gap;
	uint32_t smi_reads;
};

static uint64_t model_now(void *ctx)
{
	struct model *m = ctx;
	if (m->next < m->n && m->t == m->at[m->next]) {
		m->t += m->len[m->next++];
		m->smis += m->smi_per_gap;
	} else {
		m->t += 1;
	}
	return m->t;
}

static uint64_t model_smi(void *ctx)
{
	struct model *m = ctx;
	m->smi_reads++;
	return m->smis;
}

static void scan(struct noise_scan *s, struct model *m, uint64_t begin, uint64_t end, uint64_t threshold, bool smi)
{
	memset(s, 0, sizeof(*s));
	m->t = begin;
	s->now = model_now;
	s->smi = smi ? model_smi : NULL;
	s->ctx = m;
	s->begin = begin;
	s->end = end;
	s->threshold = threshold;
	noise_scan_run(s);
}

/* A scan from 0 to `end` of a script of n jumps (no SMI count). */
static void scan_script(struct noise_scan *s, const uint64_t *at, const uint64_t *len, uint32_t n, uint64_t end,
			uint64_t threshold)
{
	static struct model m;

	m = (struct model){ .at = at, .len = len, .n = n };
	scan(s, &m, 0, end, threshold, false);
}

/* Three gaps over a threshold of 10 cycles: found with their start and
 * length; a step of exactly the threshold is not a gap. */
static void test_gaps_found(void **state)
{
	(void)state;
	static const uint64_t at[] = { 100, 200, 300, 400 }, len[] = { 50, 10, 11, 1000 };
	struct model m = { .at = at, .len = len, .n = 4 };
	static struct noise_scan s;

	scan(&s, &m, 0, 2000, 10, false);
	assert_int_equal(s.count, 3);
	assert_int_equal(s.kept, 3);
	assert_int_equal(s.gap[0].start, 100);
	assert_int_equal(s.gap[0].cycles, 50);
	assert_int_equal(s.gap[1].start, 300);
	assert_int_equal(s.gap[1].cycles, 11);
	assert_int_equal(s.gap[2].start, 400);
	assert_int_equal(s.gap[2].cycles, 1000);
	assert_int_equal(s.total, 1061);
	assert_int_equal(s.max, 1000);
	assert_true(s.last >= 2000);
}

/* A clock that never jumps: no gap, the scan still ends at its deadline. */
static void test_quiet_clock(void **state)
{
	(void)state;
	struct model m = { 0 };
	static struct noise_scan s;

	scan(&s, &m, 5000, 6000, 1, false);
	assert_int_equal(s.count, 0);
	assert_int_equal(s.total, 0);
	assert_int_equal(s.last, 6000);
}

/* A gap right at the start (from the caller's first read) counts. */
static void test_gap_at_begin(void **state)
{
	(void)state;
	static const uint64_t at[] = { 10 }, len[] = { 500 };
	struct model m = { .at = at, .len = len, .n = 1 };
	static struct noise_scan s;

	scan(&s, &m, 10, 2000, 100, false);
	assert_int_equal(s.count, 1);
	assert_int_equal(s.gap[0].start, 10);
	assert_int_equal(s.gap[0].cycles, 500);
}

/* `begin` read on another CPU whose clock is ahead: the reads below it
 * are no step (not a gap of 2^64 cycles), and the scan goes on. */
static void test_begin_ahead(void **state)
{
	(void)state;
	struct model m = { 0 };
	static struct noise_scan s;

	scan(&s, &m, 1000, 1100, 10, false);
	m.t = 900; /* this CPU's clock: 100 cycles behind */
	s.begin = 1000;
	noise_scan_run(&s);
	assert_int_equal(s.count, 0);
	assert_int_equal(s.last, 1100);
}

/* SMI counts: before is the count at the scan's start or after the
 * previous gap, after is read right after the gap; the read's own
 * cost (the model's next read after it) is not a gap. */
static void test_smi_counts(void **state)
{
	(void)state;
	static const uint64_t at[] = { 100, 300 }, len[] = { 40, 60 };
	struct model m = { .at = at, .len = len, .n = 2, .smis = 7, .smi_per_gap = 2 };
	static struct noise_scan s;

	scan(&s, &m, 0, 1000, 20, true);
	assert_int_equal(s.count, 2);
	assert_int_equal(s.gap[0].smi_before, 7);
	assert_int_equal(s.gap[0].smi_after, 9);
	assert_int_equal(s.gap[1].smi_before, 9);
	assert_int_equal(s.gap[1].smi_after, 11);
	assert_int_equal(m.smi_reads, 3); /* the start, then one a gap */
}

/* More gaps than a scan keeps: the longest NOISE_GAPS_MAX are kept, in
 * time order; count, total and max still count every one. */
static void test_longest_kept(void **state)
{
	(void)state;
	enum { N = NOISE_GAPS_MAX + 100 };
	static uint64_t at[N], len[N];
	uint64_t t = 0, total = 0;
	for (uint32_t i = 0; i < N; i++) {
		t += 10;
		at[i] = t;
		len[i] = 100 + (i * 37) % N; /* every length once: 100 .. 100 + N - 1 */
		t += len[i];
		total += len[i];
	}
	struct model m = { .at = at, .len = len, .n = N };
	static struct noise_scan s;

	scan(&s, &m, 0, t + 10, 50, false);
	assert_int_equal(s.count, N);
	assert_int_equal(s.kept, NOISE_GAPS_MAX);
	assert_int_equal(s.total, total);
	assert_int_equal(s.max, 100 + N - 1);
	for (uint32_t i = 0; i < s.kept; i++) {
		assert_true(s.gap[i].cycles >= 100 + N - NOISE_GAPS_MAX);
		if (i)
			assert_true(s.gap[i - 1].start < s.gap[i].start);
	}
}

/* The scan found one gap, from `start`, `cycles` long: counted, kept,
 * the total and the longest. */
static void assert_only_gap(const struct noise_scan *s, uint64_t start, uint64_t cycles)
{
	assert_int_equal(s->count, 1);
	assert_int_equal(s->kept, 1);
	assert_int_equal(s->gap[0].start, start);
	assert_int_equal(s->gap[0].cycles, cycles);
	assert_int_equal(s->total, cycles);
	assert_int_equal(s->max, cycles);
}

/* The machine stopped while a gap was being kept (the read after the
 * gap's bookkeeping jumps by more than the bookkeeping limit, 16
 * thresholds): the gap lasts to that read, it is counted once, and its
 * SMI count is read again after it.  A detector that read the clock
 * again after its bookkeeping without checking the step lost such a stop
 * (under TCG, 1 run in 4 of the noise-stop test). */
static void test_stop_in_bookkeeping(void **state)
{
	(void)state;
	static const uint64_t at[] = { 100, 150 }, len[] = { 50, 100000 };
	struct model m = { .at = at, .len = len, .n = 2, .smis = 3, .smi_per_gap = 1 };
	static struct noise_scan s;

	scan(&s, &m, 0, 200000, 20, true);
	assert_only_gap(&s, 100, 100050);
	assert_int_equal(s.gap[0].smi_before, 3);
	assert_int_equal(s.gap[0].smi_after, 5); /* both jumps' SMIs */
}

/* The machine stopped again during the lengthened gap's own bookkeeping,
 * and again: every step after a bookkeeping is checked, so the one gap
 * lasts through all of them.  The detector before checked only the first
 * bookkeeping, and a 300 ms stop that fell into the second went unseen
 * (1 noise-stop run in 10 under TCG): here it ended at 500 cycles. */
static void test_stop_in_lengthening(void **state)
{
	(void)state;
	static const uint64_t at[] = { 100, 150, 550, 950 }, len[] = { 50, 400, 400, 400 };
	static struct noise_scan s;

	scan_script(&s, at, len, 4, 5000, 20);
	assert_only_gap(&s, 100, 1250);
}

/* A bookkeeping slower than the threshold but within the limit is its
 * own cost: no gap, and it starts no chain (here the read after each
 * gap's bookkeeping is 30 cycles late against a threshold of 20); the
 * next step is held against the threshold again. */
static void test_slow_bookkeeping_no_chain(void **state)
{
	(void)state;
	static const uint64_t at[] = { 100, 150, 300, 340 }, len[] = { 50, 30, 40, 30 };
	static struct noise_scan s;

	scan_script(&s, at, len, 4, 1000, 20);
	assert_int_equal(s.count, 2);
	assert_int_equal(s.gap[0].start, 100);
	assert_int_equal(s.gap[0].cycles, 50);
	assert_int_equal(s.gap[1].start, 300);
	assert_int_equal(s.gap[1].cycles, 40);
	assert_int_equal(s.total, 90);
	assert_int_equal(s.max, 50);
}

/* A step of exactly the limit after a bookkeeping is the bookkeeping's;
 * one cycle more lengthens the gap. */
static void test_bookkeeping_limit(void **state)
{
	(void)state;
	static const uint64_t at[] = { 100, 150, 600, 650 }, len[] = { 50, 16 * 20, 50, 16 * 20 + 1 };
	static struct noise_scan s;

	scan_script(&s, at, len, 4, 2000, 20);
	assert_int_equal(s.count, 2);
	assert_int_equal(s.gap[0].cycles, 50);
	assert_int_equal(s.gap[1].start, 600);
	assert_int_equal(s.gap[1].cycles, 50 + 16 * 20 + 1);
}

/* With every slot taken, a gap too short to be kept that the machine
 * then lengthens during its bookkeeping is kept at its whole length, in
 * place of the shortest. */
static void test_lengthened_gap_kept(void **state)
{
	(void)state;
	enum { N = NOISE_GAPS_MAX + 2 };
	static uint64_t at[N], len[N];
	uint64_t t = 0;
	for (uint32_t i = 0; i < NOISE_GAPS_MAX; i++) { /* lengths 1000 .. 1255 */
		t += 10;
		at[i] = t;
		len[i] = 1000 + i;
		t += len[i];
	}
	t += 10;
	at[NOISE_GAPS_MAX] = t; /* 100: shorter than every kept gap */
	len[NOISE_GAPS_MAX] = 100;
	t += 100;
	at[NOISE_GAPS_MAX + 1] = t; /* the read after its bookkeeping: 5000 later */
	len[NOISE_GAPS_MAX + 1] = 5000;
	t += 5000;
	struct model m = { .at = at, .len = len, .n = N };
	static struct noise_scan s;

	scan(&s, &m, 0, t + 100, 50, false);
	assert_int_equal(s.count, NOISE_GAPS_MAX + 1);
	assert_int_equal(s.kept, NOISE_GAPS_MAX);
	assert_int_equal(s.max, 5100);
	assert_int_equal(s.gap[NOISE_GAPS_MAX - 1].cycles, 5100); /* the last in time */
	assert_int_equal(s.gap[NOISE_GAPS_MAX - 1].start, at[NOISE_GAPS_MAX]);
	assert_int_equal(s.gap[0].cycles, 1001); /* 1000, the shortest, gave its place */
	for (uint32_t i = 1; i < s.kept; i++)
		assert_true(s.gap[i - 1].start < s.gap[i].start);
}

/* Three CPUs: a stop seen by all (overlapping, not equal), one gap of
 * CPU 0's that only touches CPU 1's end (start == end: no overlap), one
 * gap of CPU 2 alone.  Each scan's gaps in time order, as noise_scan_run
 * leaves them (noise_correlate sweeps them in that order). */
static void test_correlate(void **state)
{
	(void)state;
	static struct noise_scan a, b, c;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	a.kept = 2;
	a.gap[0] = (struct noise_gap){ .start = 1000, .cycles = 500 };
	a.gap[1] = (struct noise_gap){ .start = 3000, .cycles = 100 };
	b.kept = 2;
	b.gap[0] = (struct noise_gap){ .start = 1100, .cycles = 450 };
	b.gap[1] = (struct noise_gap){ .start = 2900, .cycles = 100 };
	c.kept = 2;
	c.gap[0] = (struct noise_gap){ .start = 1490, .cycles = 20 };
	c.gap[1] = (struct noise_gap){ .start = 5000, .cycles = 10 };
	struct noise_scan *scans[] = { &a, &b, &c, NULL };

	noise_correlate(scans, 4);
	assert_int_equal(a.gap[0].overlaps, 2);
	assert_int_equal(a.gap[1].overlaps, 0);
	assert_int_equal(b.gap[0].overlaps, 2);
	assert_int_equal(b.gap[1].overlaps, 0);
	assert_int_equal(c.gap[0].overlaps, 2);
	assert_int_equal(c.gap[1].overlaps, 0);
}

/* One CPU with two gaps overlapping one of another's counts that CPU once. */
static void test_correlate_counts_cpus(void **state)
{
	(void)state;
	static struct noise_scan a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.kept = 1;
	a.gap[0] = (struct noise_gap){ .start = 0, .cycles = 1000 };
	b.kept = 2;
	b.gap[0] = (struct noise_gap){ .start = 100, .cycles = 10 };
	b.gap[1] = (struct noise_gap){ .start = 500, .cycles = 10 };
	struct noise_scan *scans[] = { &a, &b };

	noise_correlate(scans, 2);
	assert_int_equal(a.gap[0].overlaps, 1);
	assert_int_equal(b.gap[0].overlaps, 1);
	assert_int_equal(b.gap[1].overlaps, 1);
}

/* The sweep against the definition: random scans of 4 CPUs, each up to
 * NOISE_GAPS_MAX gaps in time order and disjoint (as a scan makes them),
 * every gap's count of other CPUs with an overlapping gap computed pair by
 * pair here. */
static void test_correlate_matches_pairwise(void **state)
{
	(void)state;
	static struct noise_scan s[4];
	struct noise_scan *scans[4] = { &s[0], &s[1], &s[2], &s[3] };
	uint64_t x = 12345;

	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < 4; i++) {
			uint64_t at = 0;
			memset(&s[i], 0, sizeof(s[i]));
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			s[i].kept = (uint32_t)(x >> 33) % (NOISE_GAPS_MAX + 1);
			for (uint32_t g = 0; g < s[i].kept; g++) {
				x = x * 6364136223846793005ull + 1442695040888963407ull;
				at += 1 + (x >> 40) % 400; /* a step between gaps */
				uint64_t len = 1 + (x >> 20) % 300;
				s[i].gap[g] = (struct noise_gap){ .start = at, .cycles = len };
				at += len;
			}
		}
		noise_correlate(scans, 4);
		for (int i = 0; i < 4; i++)
			for (uint32_t g = 0; g < s[i].kept; g++) {
				uint16_t want = 0;
				for (int j = 0; j < 4; j++) {
					if (j == i)
						continue;
					for (uint32_t h = 0; h < s[j].kept; h++)
						if (noise_gaps_overlap(&s[i].gap[g], &s[j].gap[h])) {
							want++;
							break;
						}
				}
				assert_int_equal(s[i].gap[g].overlaps, want);
			}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gaps_found),
		cmocka_unit_test(test_quiet_clock),
		cmocka_unit_test(test_gap_at_begin),
		cmocka_unit_test(test_begin_ahead),
		cmocka_unit_test(test_smi_counts),
		cmocka_unit_test(test_longest_kept),
		cmocka_unit_test(test_stop_in_bookkeeping),
		cmocka_unit_test(test_stop_in_lengthening),
		cmocka_unit_test(test_slow_bookkeeping_no_chain),
		cmocka_unit_test(test_bookkeeping_limit),
		cmocka_unit_test(test_lengthened_gap_kept),
		cmocka_unit_test(test_correlate),
		cmocka_unit_test(test_correlate_counts_cpus),
		cmocka_unit_test(test_correlate_matches_pairwise),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
