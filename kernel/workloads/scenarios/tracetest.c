/*
 * tracetest.c - scenario=tracetest: every CPU writes a known
 * pattern of records so the decoder can prove that nothing is torn,
 * reordered within a CPU, or lost without being counted.
 *
 * Each CPU writes tracetest.records= thread-context records (Writer 0)
 * with payload lengths cycling through 0..64 bytes.  Every NEST_EVERY-th
 * record, between reserving and committing it, the writer sends itself an
 * IPI and waits until the handler has written its own record (Writer 1):
 * an interrupt landing in the middle of another write.  That outer record
 * carries Writer |= 2 so the decoder can check that the interrupt's record
 * follows it directly in the buffer.  The clock interrupt lands at random
 * points as well.  Each CPU then prints how many records of each kind it
 * attempted; the decoder checks stored + lost == attempted per CPU.
 */
#include "kernel/workloads/scenario.h"
#include "kernel/workloads/api/descriptor.h"
#include "kernel/workloads/workload_keys.h"

#include <arch/cpu.h>
#include <arch/interrupt.h>

#include "kernel/sched/broadcast.h"
#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/ke/prcb.h"
#include "kernel/trace/trace.h"

#define NEST_EVERY        16
#define WRITER_THREAD     0
#define WRITER_INTERRUPT  1
#define WRITER_NESTED     2 /* flag: an interrupt wrote while this was open */

struct tt_cpu {
	uint32_t thread_seq;            /* next thread sequence number    */
	volatile uint32_t irq_seq;      /* next interrupt sequence number */
	uint32_t nested;                /* writes an interrupt landed in  */
} __attribute__((aligned(64)));

static struct tt_cpu tt[KPROF_MAX_CPUS];

/* Fill a KPROF_TRACETEST payload. */
static void fill(KPROF_TRACETEST *t, uint32_t cpu, uint32_t writer, uint32_t seq, uint32_t len)
{
	t->Cpu = cpu;
	t->Writer = writer;
	t->Sequence = seq;
	t->Length = len;
	for (uint32_t i = 0; i < len; i++)
		t->Pattern[i] = kprof_tracetest_byte(seq, writer & 1, i);
}

static void tracetest_ipi(KTRAP_FRAME *tf)
{
	uint32_t cpu = ke_get_current_processor_number();
	struct trace_record rec;
	uint32_t seq = tt[cpu].irq_seq, len = (seq * 7) % (TRACETEST_MAX_PATTERN + 1);
	KPROF_TRACETEST *t = trace_record_begin(&rec, KPROF_LOG_TYPE_TRACETEST, TRACETEST_VERSION,
						(uint16_t)(sizeof(*t) + len));
	if (t) {
		fill(t, cpu, WRITER_INTERRUPT, seq, len);
		trace_record_commit(&rec);
	}
	tt[cpu].irq_seq = seq + 1; /* attempted, stored or not */
}

static void tracetest_cpu(uint32_t cpu, void *ctx)
{
	struct tt_cpu *me = &tt[cpu];

	uint32_t records = (uint32_t)(uintptr_t)ctx;

	for (uint32_t i = 0; i < records; i++) {
		struct trace_record rec;
		uint32_t seq = me->thread_seq, len = seq % (TRACETEST_MAX_PATTERN + 1);
		KPROF_TRACETEST *t = trace_record_begin(&rec, KPROF_LOG_TYPE_TRACETEST, TRACETEST_VERSION,
							(uint16_t)(sizeof(*t) + len));
		me->thread_seq = seq + 1;
		if (!t)
			continue;
		uint32_t writer = WRITER_THREAD;
		fill(t, cpu, writer, seq, len / 2); /* half now ... */
		if (i % NEST_EVERY == NEST_EVERY - 1) {
			uint32_t want = me->irq_seq + 1;
			arch_send_ipi(cpu, ARCH_INT_IPI);
			while (me->irq_seq != want)
				arch_cpu_relax();
			writer |= WRITER_NESTED;
			me->nested++;
		}
		fill(t, cpu, writer, seq, len); /* ... the rest after the interrupt */
		trace_record_commit(&rec);
	}
}

/* trace= includes tracetest: the command line was refused otherwise
 * (kernel/init/cmdline_rules.c). */
static enum kprof_exit_status scenario_tracetest(uint32_t records)
{
	memset(tt, 0, sizeof(tt));
	arch_interrupt_connect(ARCH_INT_IPI, tracetest_ipi);
	ke_run_on_all_processors(tracetest_cpu, (void *)(uintptr_t)records);
	for (uint32_t i = 0; i < ke_number_processors; i++)
		kprintf("tracetest: cpu %u attempted %u thread records and %u interrupt records, %u writes interrupted "
			"mid-record\n", i, tt[i].thread_seq, tt[i].irq_seq, tt[i].nested);
	kprintf("scenario tracetest: done on %u CPUs\n", ke_number_processors);
	return KPROF_EXIT_SUCCESS;
}

/* The descriptor: scenario=tracetest (or one workload of scenario=mix, for
 * the duration the mix gives it), with its own keys (workload_keys.c). */
static enum kprof_exit_status run(const struct workload_run *r)
{
	return scenario_tracetest(workload_config->tracetest_records);
}

WORKLOAD_DEFINE(tracetest, .name = "tracetest", .description = "every CPU writes a known pattern of records", .run = run);
