/*
 * measure.h - small cost measurements shared by scenarios.
 */
#ifndef KPROF_KERNEL_MEASURE_H
#define KPROF_KERNEL_MEASURE_H

#include <stdint.h>

#define MEASURE_MAX_ROUNDS 4096

struct irq_cost {
	uint64_t average;   /* cycles per round trip */
	uint64_t median;
	uint64_t best;
};

/* An empty interrupt round trip on this CPU: a self-IPI at IPI_LEVEL to a
 * handler that only counts, `rounds` times (at most MEASURE_MAX_ROUNDS).  Connects the IPI vector. */
struct irq_cost measure_interrupt_round_trip(uint32_t rounds);

#endif
