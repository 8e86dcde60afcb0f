/*
 * bench_stats.h - what the in-process benchmarks (bench_trace.c,
 * bench_locks.c) share: pinning to one CPU, the cost of one time read,
 * and a ratio of medians with its interval.
 *
 * A ratio is ours / floor over interleaved rounds: round r ran both under
 * the same conditions (the same CPU, the host's load alike), so the rounds
 * are resampled in pairs.  The interval is a percentile bootstrap of the
 * ratio of the two medians (BENCH_RESAMPLES resamples of the rounds with
 * replacement, a fixed seed so a run prints the same interval for the same
 * figures): the 2.5th to the 97.5th percentile.  Benchmarks report; they
 * never fail.
 */
#ifndef KPROF_TESTS_BENCH_STATS_H
#define KPROF_TESTS_BENCH_STATS_H

#include <sched.h> /* the includer defines _GNU_SOURCE first */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#define BENCH_RESAMPLES 2000
#define BENCH_MAX_ROUNDS 128

/* Pin the calling thread to the CPU it runs on (or to `cpu` when it is
 * not negative): every block of every writer on the same core. */
static inline int bench_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("bench: sched_setaffinity");
		return -1;
	}
	return cpu;
}

/* Cycles of one rdtsc, back to back (the figure the floors are made of). */
static inline double bench_tsc_read_cost(void)
{
	enum { N = 100000 };
	uint64_t sink = 0, t0 = __rdtsc();

	for (int i = 0; i < N; i++)
		sink += __rdtsc();
	uint64_t t1 = __rdtsc();
	__asm__ volatile("" ::"r"(sink));
	return (double)(t1 - t0) / N;
}

static inline int bench_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n) (v untouched). */
static inline double bench_median(const double *v, int n)
{
	double s[BENCH_MAX_ROUNDS];

	memcpy(s, v, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), bench_cmp);
	return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

struct bench_ratio {
	double ours, floor; /* medians of the rounds, cycles */
	double ratio, lo, hi; /* ours / floor and its 95% interval */
};

/* ours[r] and floor[r] measured in the same round r, n rounds. */
static inline struct bench_ratio bench_ratio_of(const double *ours, const double *floor, int n)
{
	static double boot[BENCH_RESAMPLES];
	double a[BENCH_MAX_ROUNDS], b[BENCH_MAX_ROUNDS];
	uint64_t x = 0x9E3779B97F4A7C15ull;
	struct bench_ratio q = { bench_median(ours, n), bench_median(floor, n), 0, 0, 0 };

	q.ratio = q.ours / q.floor;
	for (int k = 0; k < BENCH_RESAMPLES; k++) {
		for (int i = 0; i < n; i++) {
			x ^= x >> 12;
			x ^= x << 25;
			x ^= x >> 27;
			int r = (int)(((x * 0x2545F4914F6CDD1Dull) >> 32) % (uint64_t)n);
			a[i] = ours[r];
			b[i] = floor[r];
		}
		boot[k] = bench_median(a, n) / bench_median(b, n);
	}
	qsort(boot, BENCH_RESAMPLES, sizeof(*boot), bench_cmp);
	q.lo = boot[BENCH_RESAMPLES * 25 / 1000];
	q.hi = boot[BENCH_RESAMPLES * 975 / 1000 - 1];
	return q;
}

/* "ratio 1.07 [1.05..1.09], goal <= 1.10: met" (goal 0: no goal). */
static inline void bench_print_ratio(const struct bench_ratio *q, double goal)
{
	printf("ratio %.3f [95%% %.3f..%.3f]", q->ratio, q->lo, q->hi);
	if (goal > 0)
		printf(", goal <= %.2f: %s", goal,
		       q->ratio <= goal ? "met" : q->lo <= goal ? "at the goal within the interval" : "MISSED");
	printf("\n");
}

#endif /* KPROF_TESTS_BENCH_STATS_H */
