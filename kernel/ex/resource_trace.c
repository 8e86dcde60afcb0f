/*
 * resource_trace.c - writing the WMI_RESOURCE records (their fields are
 * described in resource.h) and counting them, so a scenario can say
 * exactly what its trace must hold without reading the trace.
 *
 * Events counts every record-worthy event; Traced those the trace took
 * (the group was on and there was room).  Global atomic counters: these
 * events are rare next to the work they describe.
 */
#include "kernel/ex/resource_internal.h"

#include "kernel/trace/trace.h"

static struct ex_resource_counts counts;

static const uint32_t actions[ExResourceEventCount] = {
	[ExResourceInitialize] = WMI_RESOURCE_ACTION_INITIALIZE,
	[ExResourceReinitialize] = WMI_RESOURCE_ACTION_REINITIALIZE,
	[ExResourceReleaseExclusive] = WMI_RESOURCE_ACTION_COMPLETE_RELEASE_EXCLUSIVE,
	[ExResourceReleaseShared] = WMI_RESOURCE_ACTION_COMPLETE_RELEASE_SHARED,
	[ExResourceWaitExcessiveExclusive] = WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_EXCLUSIVE,
	[ExResourceWaitExcessiveShared] = WMI_RESOURCE_ACTION_WAIT_EXCESSIVE_FOR_SHARED,
};

uint32_t ex_resource_action(enum ex_resource_event e)
{
	return (unsigned)e < ExResourceEventCount ? actions[e] : 0;
}

uint32_t exp_thread_id(const KTHREAD *t)
{
	return t ? t->ThreadId : 0;
}

void exp_trace(enum ex_resource_event e, const WMI_RESOURCE *w)
{
	__atomic_fetch_add(&counts.Events[e], 1, __ATOMIC_RELAXED);
	if (trace_log(PERF_SYNC_OBJECTS, PERFINFO_LOG_TYPE_RESOURCE, RESOURCE_VERSION, w, sizeof(*w)))
		__atomic_fetch_add(&counts.Traced[e], 1, __ATOMIC_RELAXED);
}

void exp_count_boost(void)
{
	__atomic_fetch_add(&counts.OwnerBoosts, 1, __ATOMIC_RELAXED);
}

void exp_count_resources(int delta)
{
	__atomic_fetch_add(&counts.Resources, (uint64_t)(int64_t)delta, __ATOMIC_RELAXED);
}

void ex_resource_get_counts(struct ex_resource_counts *c)
{
	for (int i = 0; i < ExResourceEventCount; i++) {
		c->Events[i] = __atomic_load_n(&counts.Events[i], __ATOMIC_RELAXED);
		c->Traced[i] = __atomic_load_n(&counts.Traced[i], __ATOMIC_RELAXED);
	}
	c->OwnerBoosts = __atomic_load_n(&counts.OwnerBoosts, __ATOMIC_RELAXED);
	c->Resources = __atomic_load_n(&counts.Resources, __ATOMIC_RELAXED);
}
