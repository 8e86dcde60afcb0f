/*
 * perfetto_flows.c - who readied whom: a flow arrow per ReadyThread
 * record that a run of the readied thread follows, from the readier's
 * run on the CPU that wrote the record ("s" on "CPU n") to the readied
 * thread's run ("f" with "bp":"e" on its "running" track).  Both sit at
 * the start of their run, with its category: Perfetto binds a flow event
 * to the slice open at its time, Chrome DevTools to the slice with the
 * same ts, pid, tid and cat, so this is the one place both agree on.  The
 * time of the record itself is the "ReadyThread" instant on "CPU n" (and
 * the sched_wakeup line).  Flow ids count from 1 in the records' order.
 *
 * Both ends can fall on one time (in ns, as written) only where a CPU's
 * stamps stood still (a TSC that stepped back, clamped by the kernel, or
 * by the decoder on an older kernel's log): Chrome DevTools keys a flow's
 * events by time and keeps one of the two, so it draws no arrow there
 * (Perfetto does).  They are written all the same and counted in
 * otherData's "wakeup_flows_at_one_instant".
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/read/fields.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/kpassert.h"

/* A flow's start or end: one element of the array the queue walks (32
 * bytes; an item of the queue took 56, and a big log has a flow for about
 * every third record).  The array holds them in the order the items were
 * queued (each flow's start, then its end), so each has the place in the
 * queue an item had. */
struct pf_flow_end {
	uint64_t ts;            /* where it sits: the start of a run          */
	const struct kp_ready *r; /* the ReadyThread record                   */
	uint32_t id;            /* the flow's (from 1, fewer than 2^32)       */
	uint32_t tid;           /* start: the readier, the running thread     */
	uint16_t cpu;           /* the CPU that wrote the record              */
	uint8_t lane;           /* end: the readied thread's running lane     */
	bool end;
};
_Static_assert(sizeof(struct pf_flow_end) == 32, "a flow's end is 32 bytes");

static void write_flow(struct pf *p, const struct pf_item *it)
{
	const struct pf_flow_end *fe = it->obj;
	const struct kp_ready *r = fe->r;

	if (fe->end) {
		pf_begin(p, "f", PF_THREAD_PID(r->tid), PF_RUN_TID(r->tid, fe->lane));
		fputs(",\"bp\":\"e\"", p->f);
	} else {
		pf_begin(p, "s", PF_CPUS_PID, CPU_TID + fe->cpu);
	}
	pf_time(p, "ts", it->ts);
	fprintf(p->f, ",\"id\":%" PRIu32 ",\"name\":\"wakeup\",\"cat\":\"thread\"", fe->id);
	if (!fe->end) {
		fprintf(p->f, ",\"args\":{\"TThreadId\":%" PRIu32, r->tid);
		pf_str_arg(p, "AdjustReason", kp_adjust_reason_name((uint8_t)r->reason));
		pf_time(p, "ReadiedAt", r->ts);
		fputs("}", p->f);
	}
	fputs("}", p->f);
}

static void describe_flow(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct pf_flow_end *fe = it->obj;
	const struct kp_ready *r = fe->r;

	(void)p;
	*e = (struct pf_event){ .ph = fe->end ? 'f' : 's', .pid = fe->end ? PF_THREAD_PID(r->tid) : PF_CPUS_PID,
				.tid = fe->end ? PF_RUN_TID(r->tid, fe->lane) : CPU_TID + fe->cpu, .start = it->ts,
				.flow = fe->id };
	strcpy(e->name, "wakeup");
}

static const struct pf_kind flow_kind = { write_flow, describe_flow };

void pf_flow_events(struct pf *p)
{
	uint64_t id = p->flows;
	size_t n = 0, cap = 0;

	for (uint32_t cpu = 0; cpu < p->m->ncpus; cpu++) {
		const struct kp_model_cpu *c = &p->m->cpu[cpu];
		for (size_t i = 0; i < c->nreadies; i++) {
			const struct pf_wake *w = &p->wake[cpu][i];
			if (!w->found)
				continue;
			const struct kp_run *by = pf_running_at(c, c->readies[i].ts);
			if (!by)
				continue;
			id++;
			KP_ASSERT(id <= UINT32_MAX && cpu <= UINT16_MAX, "flow %" PRIu64 " on cpu %" PRIu32, id, cpu);
			p->flows_one_instant += pf_ns(p->m, by->start) == pf_ns(p->m, w->run_start);
			KP_PUSH(p->flow_ends, n, cap,
				((struct pf_flow_end){ .ts = by->start, .r = &c->readies[i], .id = (uint32_t)id,
						       .tid = by->tid, .cpu = (uint16_t)cpu }));
			KP_PUSH(p->flow_ends, n, cap,
				((struct pf_flow_end){ .ts = w->run_start, .r = &c->readies[i], .id = (uint32_t)id,
						       .cpu = (uint16_t)cpu, .lane = (uint8_t)w->lane, .end = true }));
		}
	}
	pf_add_array(p, &flow_kind, p->flow_ends, sizeof(*p->flow_ends), n, offsetof(struct pf_flow_end, ts), 0);
	p->flows = id;
}

void pf_flow_events_free(struct pf *p)
{
	free(p->flow_ends);
	p->flow_ends = NULL;
}
