/*
 * latency.h - scenario=noise's timer latency figures (latency.c): how
 * late each timer expiry came, in 1 us buckets up to LATENCY_BUCKETS us
 * (cyclictest's histogram), with the exact maximum; pure, so that the
 * host's unit tests check the percentiles.
 */
#ifndef KPROF_KERNEL_NOISE_LATENCY_H
#define KPROF_KERNEL_NOISE_LATENCY_H

#include <stdint.h>

#define LATENCY_BUCKETS 1000 /* bucket i: i us <= late < i + 1 us; beyond: overflow */

struct latency_hist {
	uint32_t bucket[LATENCY_BUCKETS];
	uint32_t overflow; /* LATENCY_BUCKETS us or later */
	uint32_t samples;
	uint64_t max_ns, sum_ns;
};

/* Count one expiry `late_ns` after its deadline. */
void latency_add(struct latency_hist *h, uint64_t late_ns);

/* The lateness in us that `permille` per mille of the samples do not
 * exceed (the lower bound of that sample's bucket: 500 is the median);
 * LATENCY_BUCKETS when that sample is in the overflow, 0 without samples. */
uint32_t latency_percentile_us(const struct latency_hist *h, uint32_t permille);

#endif /* KPROF_KERNEL_NOISE_LATENCY_H */
