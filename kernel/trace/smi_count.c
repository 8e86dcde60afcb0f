/*
 * smi_count.c - the SMIs each CPU took during the trace: firmware code in
 * System Management Mode that stops the CPU and that no record can show.
 * At trace start every CPU reads its counter (<arch/dev/smi.h>) with the
 * time; at the end every CPU reads it again and writes one
 * KprofSmiCount record into its own buffer: whenever the trace holds the
 * CPUs' time (PERF_KPROF_THREAD, on with any group whose records carry
 * thread ids) or their stalls (PERF_KPROF_CLOCK); not in a trace of
 * trace=tracetest alone, whose records are counted one by one.  Where the CPU keeps no count the record says so
 * (Flags without KPROF_SMI_COUNTED, counts 0), so that the report says
 * "not counted", never 0.
 *
 * Both broadcasts come from the boot thread (ke_run_on_all_processors);
 * each CPU writes only its own slot of `start`, read back by the same CPU.
 */
#include "kernel/trace/smi_count.h"

#include <arch/dev/smi.h>
#include <arch/cpu.h>

#include "include/kprof/wmi.h"
#include "kernel/console/console.h"
#include "kernel/sched/broadcast.h"
#include "kernel/ke/cpus.h"
#include "kernel/lib/printf.h"
#include "kernel/trace/trace.h"

static struct {
	uint64_t time, count;
} start[KPROF_MAX_CPUS];
static const char *uncounted;

static void read_start(uint32_t cpu, void *ctx)
{
	(void)ctx;
	if (cpu >= KPROF_MAX_CPUS)
		return;
	start[cpu].count = uncounted ? 0 : arch_smi_count();
	start[cpu].time = arch_rdtsc();
}

static void write_record(uint32_t cpu, void *ctx)
{
	struct trace_record rec;
	KPROF_SMI_COUNT *k;

	(void)ctx;
	if (cpu >= KPROF_MAX_CPUS)
		return;
	k = trace_record_begin(&rec, KPROF_LOG_TYPE_SMI_COUNT, SMI_COUNT_VERSION, sizeof(*k));
	if (!k)
		return; /* no trace on this CPU, or dropped (counted) */
	*k = (KPROF_SMI_COUNT){
		.StartTime = start[cpu].time,
		.StartCount = start[cpu].count,
		.EndCount = uncounted ? 0 : arch_smi_count(),
		.Flags = uncounted ? 0 : KPROF_SMI_COUNTED,
	};
	trace_record_commit(&rec);
}

void trace_smi_count_start(void)
{
	uncounted = arch_smi_uncounted_reason();
	if (uncounted)
		kprintf("smi: not counted on this CPU (%s)\n", uncounted);
	else
		kprintf("smi: each CPU's SMIs counted over the trace (MSR_SMI_COUNT)\n");
	ke_run_on_all_processors(read_start, NULL);
}

void trace_smi_count_stop(void)
{
	if (trace_enabled(PERF_KPROF_THREAD) || trace_enabled(PERF_KPROF_CLOCK))
		ke_run_on_all_processors(write_record, NULL);
}
