/*
 * measure.c - the empty interrupt round trip: send a self-IPI, spin until
 * its handler (which only counts) has run, with the time stamp before and
 * after.  The average, the median and the best are kept: under emulation
 * on a busy host a few rounds take far longer than the rest, and the
 * median is the figure to quote.
 *
 * measure_handler_round_trip() does the same with work of the caller's in
 * the handler (a profile interrupt's dispatch, say), and can sample a
 * figure the work leaves behind after each round (its record-writing
 * cycles).
 */
#include "kernel/workloads/measure.h"

#include <arch/cpu.h>
#include <arch/interrupt.h>

#include "kernel/ke/irql.h"
#include "kernel/ke/prcb.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/stats.h"

static volatile uint32_t ipi_seen;
static void (*ipi_work)(KTRAP_FRAME *tf);
static uint64_t samples[MEASURE_MAX_ROUNDS]; /* one measurement at a time: callers are scenarios */
static uint64_t part_samples[MEASURE_MAX_ROUNDS];

static void ipi_handler(KTRAP_FRAME *tf)
{
	if (ipi_work)
		ipi_work(tf);
	ipi_seen++;
}

static struct irq_cost round_trips(void (*work)(KTRAP_FRAME *tf), uint32_t rounds, uint64_t (*part)(void),
				   struct irq_cost *part_cost, uint64_t budget_us);

struct irq_cost measure_interrupt_round_trip(uint32_t rounds)
{
	return round_trips(NULL, rounds, NULL, NULL, MEASURE_BUDGET_US);
}

struct irq_cost measure_interrupt_round_trip_within(uint32_t rounds, uint64_t budget_us)
{
	return round_trips(NULL, rounds, NULL, NULL, budget_us < MEASURE_BUDGET_US ? budget_us : MEASURE_BUDGET_US);
}

struct irq_cost measure_handler_round_trip(void (*work)(KTRAP_FRAME *tf), uint32_t rounds, uint64_t (*part)(void),
					   struct irq_cost *part_cost)
{
	return round_trips(work, rounds, part, part_cost, MEASURE_BUDGET_US);
}

static struct irq_cost round_trips(void (*work)(KTRAP_FRAME *tf), uint32_t rounds, uint64_t (*part)(void),
				   struct irq_cost *part_cost, uint64_t budget_us)
{
	struct irq_cost c = { .best = UINT64_MAX };
	uint64_t total = 0, part_total = 0;

	if (rounds > MEASURE_MAX_ROUNDS)
		rounds = MEASURE_MAX_ROUNDS;

	ipi_work = work;
	arch_interrupt_connect(ARCH_INT_IPI, ipi_handler);
	/* Stay on this CPU: a thread moved mid-measurement would wait forever. */
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	uint64_t start = arch_rdtsc(), budget = ke_us_to_tsc(budget_us);
	uint32_t i;
	for (i = 0; i < rounds && arch_rdtsc() - start < budget; i++) {
		uint32_t want = ipi_seen + 1;
		uint64_t t0 = arch_rdtsc();
		arch_send_ipi(ke_get_current_processor_number(), ARCH_INT_IPI);
		while (ipi_seen != want)
			arch_cpu_relax();
		uint64_t d = arch_rdtsc() - t0;
		total += d;
		samples[i] = d;
		c.best = d < c.best ? d : c.best;
		if (part) {
			part_samples[i] = part();
			part_total += part_samples[i];
		}
	}
	ke_lower_irql(old);
	ipi_work = NULL;
	rounds = i;
	c.rounds = rounds;
	c.average = rounds ? total / rounds : 0;
	c.median = median_u64(samples, rounds);
	if (part && part_cost) {
		part_cost->average = rounds ? part_total / rounds : 0;
		part_cost->median = median_u64(part_samples, rounds);
		part_cost->best = 0;
	}
	return c;
}
