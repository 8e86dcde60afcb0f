/*
 * collect.c - every event of the trace's tracks gathered into one queue
 * (struct pf's items, pf.h) by the part files (the CPUs', the
 * threads', the flows, the workload's own events, scenario=noise's), for
 * either writer to sort and write: the JSON (perfetto.c) and the protobuf
 * trace (proto/write.c).  The part files add to the queue through pf_add
 * (queue.c), so that they call nothing here: the calls run one way.
 */
#include "tools/kprof/export/perfetto/pf.h"

#include <stdlib.h>

#include "tools/kprof/util/alloc.h"

void pf_collect(struct pf *p, struct kp_log *log, bool stacks)
{
	if (stacks)
		pf_stacks_build(p, log);
	pf_cpu_events(p);
	pf_thread_events(p);
	pf_flow_events(p);
	pf_user_events(p);
	pf_noise_events(p);
}

void pf_collect_free(struct pf *p)
{
	free(p->items);
	free(p->arrays);
	pf_thread_events_free(p);
	pf_flow_events_free(p);
	pf_user_events_free(p);
	pf_noise_events_free(p);
	pf_stacks_free(p);
}

