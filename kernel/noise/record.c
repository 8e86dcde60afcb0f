/*
 * record.c - scenario=noise's records go out with trace=clock when it is
 * on, else with the thread names (PERF_KPROF_THREAD, on in every run that
 * traces), as the SMI count does, so a run traced for something else
 * still holds them.  Any IRQL the trace writer takes.
 */
#include "kernel/noise/record.h"

#include "include/kprof/wmi.h"
#include "kernel/trace/trace.h"

void noise_log(uint16_t hook, uint8_t version, const void *k, uint16_t size)
{
	if (trace_enabled(PERF_KPROF_CLOCK))
		trace_log(PERF_KPROF_CLOCK, hook, version, k, size);
	else
		trace_log(PERF_KPROF_THREAD, hook, version, k, size);
}
