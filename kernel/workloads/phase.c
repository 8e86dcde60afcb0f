/*
 * phase.c - KprofPhase records and console lines for the start and end of
 * a scenario and of the mix's workloads (phase.h).
 *
 * The record is in PERF_KPROF_THREAD, the group of the thread names, on
 * whenever records that carry thread ids are traced: like a thread's
 * name, a phase says what made those records.  Not in a trace of
 * tracetest patterns or late clock interrupts alone, whose checks count
 * every record (tests/tools/tracecheck.py).  The console line gives the
 * phase's length from the records' own TimeStamps (the TSC the writer
 * stamped them with), so the two agree to the microsecond however long a
 * write is delayed (tests/boot/boot_tests.py, the mix check, holds the
 * two together); from the TSC read at the call only when a record was
 * not written (group off, dropped).
 */
#include "kernel/workloads/phase.h"

#include <arch/cpu.h>

#include "include/kprof/wmi.h"
#include "kernel/console/console.h"
#include "kernel/ke/time.h"
#include "kernel/trace/trace.h"

static uint64_t started[PHASE_MAX]; /* TSC at each phase's start          */

/* Write the record; the TSC it carries, or now if it was not written. */
static uint64_t write_record(uint32_t index, const char *name, bool end)
{
	struct trace_record rec;
	KPROF_PHASE *r;

	if (!trace_enabled(PERF_KPROF_THREAD) ||
	    !(r = trace_record_begin(&rec, KPROF_LOG_TYPE_PHASE, PHASE_VERSION, sizeof(*r))))
		return arch_rdtsc();
	*r = (KPROF_PHASE){ .Index = index, .Flags = end ? KPROF_PHASE_END : 0 };
	for (size_t i = 0; name[i] && i < sizeof(r->Name); i++)
		r->Name[i] = name[i];
	uint64_t stamped = ((const PERFINFO_TRACE_HEADER *)r - 1)->TimeStamp;
	trace_record_commit(&rec);
	return stamped;
}

void workload_phase(uint32_t index, const char *name, bool end)
{
	uint64_t now = write_record(index, name, end);

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
