/*
 * measure.h - the measurement helpers a workload may use (part of the
 * workload API, api/workload.h): the time base, busy waits of a given
 * length, sets of samples and their summary, and the console lines that
 * report a rate and a distribution (workload_measure.c).
 *
 * Times are in the trace's time base (the TSC, `cycles`) while measuring
 * and in nanoseconds when reported.  A sample set belongs to one thread
 * (no lock); merge the threads' sets at the end.
 */
#ifndef KPROF_KERNEL_WORKLOAD_MEASURE_API_H
#define KPROF_KERNEL_WORKLOAD_MEASURE_API_H

#include <stdbool.h>
#include <stdint.h>

/* The time stamp the trace's records carry (cycles), and conversions. */
uint64_t workload_cycles(void);
uint64_t workload_cycles_to_ns(uint64_t cycles);
uint64_t workload_ns_to_cycles(uint64_t ns);

/* Spin (no wait, no yield) for about ns nanoseconds. */
void workload_spin_ns(uint64_t ns);

/* A spin-wait loop's pause (the CPU's hint that it spins). */
void workload_cpu_relax(void);

/* Samples of one quantity: the first `capacity` kept, every one counted
 * (seen) so that a summary over fewer says so. */
struct workload_samples {
	uint64_t *v;
	uint32_t count, capacity;
	uint64_t seen;
};

/* false when the memory is not there (the set then keeps nothing). */
bool workload_samples_init(struct workload_samples *s, uint32_t capacity);
void workload_samples_add(struct workload_samples *s, uint64_t value);
/* Append src's kept samples to dst (as many as fit) and its count. */
void workload_samples_merge(struct workload_samples *dst, const struct workload_samples *src);
void workload_samples_free(struct workload_samples *s);

struct workload_summary {
	uint64_t seen;  /* samples counted          */
	uint32_t kept;  /* those summarised below   */
	uint64_t min, median, p99, max, mean;
};

/* The summary of the kept samples (reorders them). */
struct workload_summary workload_samples_summary(struct workload_samples *s);

/* Console lines: "WHAT: N per second (COUNT in MS ms)" and
 * "WHAT: n=K min A median B p99 C max D mean E UNIT" (with "of SEEN" when
 * fewer were kept than seen). */
void workload_print_rate(const char *what, uint64_t count, uint64_t cycles);
void workload_print_summary(const char *what, const char *unit, const struct workload_summary *sum);

#endif /* KPROF_KERNEL_WORKLOAD_MEASURE_API_H */
