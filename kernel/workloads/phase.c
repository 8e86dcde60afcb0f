/*
 * phase.c - KprofPhase records and console lines for the start and end of
 * a scenario and of the mix's workloads (phase.h).
 *
 * The record is in PERF_KPROF_THREAD, the group of the thread names, on
 * whenever records that carry thread ids are traced: like a thread's
 * name, a phase says what made those records.  Not in a trace of
 * tracetest patterns or late clock interrupts alone, whose checks count
 * every record (tests/tools/tracecheck.py).  The console line gives the
 * phase's length from the TSC read just before each record is reserved,
 * so it differs from the records' own TimeStamps by the few microseconds
 * of a write (tests/boot/boot_tests.py, the mix check, holds the two
 * together).
 */
#include "kernel/workloads/phase.h"

#include <arch/cpu.h>

#include "include/kprof/wmi.h"
#include "kernel/console/console.h"
#include "kernel/ke/time.h"
#include "kernel/trace/trace.h"

static uint64_t started[PHASE_MAX]; /* TSC at each phase's start          */

static void write_record(uint32_t index, const char *name, bool end)
{
	KPROF_PHASE r = { .Index = index, .Flags = end ? KPROF_PHASE_END : 0 };

	for (size_t i = 0; name[i] && i < sizeof(r.Name); i++)
		r.Name[i] = name[i];
	trace_log(PERF_KPROF_THREAD, KPROF_LOG_TYPE_PHASE, PHASE_VERSION, &r, sizeof(r));
}

void workload_phase(uint32_t index, const char *name, bool end)
{
	uint64_t now = arch_rdtsc();

	write_record(index, name, end);
	if (!end) {
		if (index < PHASE_MAX)
			started[index] = now;
		kprintf("phase: [%u] %s starts\n", index, name);
	} else if (index < PHASE_MAX && started[index]) {
		kprintf("phase: [%u] %s ends after %llu us\n", index, name,
			(unsigned long long)ke_tsc_to_us(now - started[index]));
	} else {
		kprintf("phase: [%u] %s ends\n", index, name);
	}
}
