/*
 * phase.c - KprofPhase records and console lines for the start and end of
 * a scenario and of the mix's workloads (phase.h).
 *
 * The record is in no group: it is written whenever any group is traced
 * (the trace is running), since a picture of any records wants to know
 * which workload made them.  The console line gives the phase's length
 * from the TSC read just before each record is reserved, so it differs
 * from the records' own TimeStamps by the few microseconds of a write
 * (tests/boot/boot_tests.py, the mix check, holds the two together).
 */
#include "kernel/workloads/phase.h"

#include <arch/cpu.h>

#include "include/kprof/wmi.h"
#include "kernel/console/console.h"
#include "kernel/ke/time.h"
#include "kernel/lib/libk.h"
#include "kernel/trace/trace.h"

static uint64_t started[PHASE_MAX]; /* TSC at each phase's start          */

/* Any group on: the trace runs. */
static bool tracing(void)
{
	for (uint32_t i = 0; i < PERF_NUM_MASKS; i++)
		if (trace_groups.Masks[i])
			return true;
	return false;
}

static void write_record(uint32_t index, const char *name, bool end)
{
	struct trace_record rec;
	KPROF_PHASE r = { .Index = index, .Flags = end ? KPROF_PHASE_END : 0 };

	for (size_t i = 0; name[i] && i < sizeof(r.Name); i++)
		r.Name[i] = name[i];
	if (!tracing())
		return;
	void *p = trace_record_begin(&rec, KPROF_LOG_TYPE_PHASE, PHASE_VERSION, sizeof(r));
	if (!p)
		return; /* dropped: counted by the trace buffer */
	memcpy(p, &r, sizeof(r));
	trace_record_commit(&rec);
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
