/*
 * measure.h - small cost measurements shared by scenarios.
 */
#ifndef KPROF_KERNEL_MEASURE_H
#define KPROF_KERNEL_MEASURE_H

#include <stdint.h>

#include <arch/trapframe.h>

#define MEASURE_MAX_ROUNDS 4096
#define MEASURE_BUDGET_US  2000000 /* a measurement stops after 2 s, however few rounds */

struct irq_cost {
	uint64_t average;   /* cycles per round trip */
	uint64_t median;
	uint64_t best;
	uint32_t rounds;    /* rounds done: fewer than asked when the budget ran out */
};

/* An empty interrupt round trip on this CPU: a self-IPI at IPI_LEVEL to a
 * handler that only counts, `rounds` times (at most MEASURE_MAX_ROUNDS, and
 * only as many as fit in MEASURE_BUDGET_US: nested KVM on a busy host was
 * seen at 11 ms a round).  Connects the IPI vector. */
struct irq_cost measure_interrupt_round_trip(uint32_t rounds);

/* The same within budget_us (at most MEASURE_BUDGET_US): for a workload
 * whose asked length bounds its measurements. */
struct irq_cost measure_interrupt_round_trip_within(uint32_t rounds, uint64_t budget_us);

/* The same round trip with work(tf) done in the handler (at IPI_LEVEL);
 * if part is not NULL it is called after each round and its figures go
 * into *part_cost (median and average). */
struct irq_cost measure_handler_round_trip(void (*work)(KTRAP_FRAME *tf), uint32_t rounds, uint64_t (*part)(void),
					   struct irq_cost *part_cost);

#endif
