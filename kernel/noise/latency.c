/*
 * latency.c - the timer latency histogram of scenario=noise (latency.h).
 * Invariant: samples = the buckets' sum + overflow.  Pure.
 */
#include "kernel/noise/latency.h"

void latency_add(struct latency_hist *h, uint64_t late_ns)
{
	uint64_t us = late_ns / 1000;

	if (us < LATENCY_BUCKETS)
		h->bucket[us]++;
	else
		h->overflow++;
	h->samples++;
	h->sum_ns += late_ns;
	if (late_ns > h->max_ns)
		h->max_ns = late_ns;
}

uint32_t latency_percentile_us(const struct latency_hist *h, uint32_t permille)
{
	/* The rank of the sample wanted, from 1: ceil(samples * permille / 1000). */
	uint64_t rank = ((uint64_t)h->samples * permille + 999) / 1000, seen = 0;

	if (!h->samples)
		return 0;
	if (!rank)
		rank = 1;
	for (uint32_t i = 0; i < LATENCY_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			return i;
	}
	return LATENCY_BUCKETS;
}
