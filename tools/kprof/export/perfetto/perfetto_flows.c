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
#include <string.h>

#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/read/fields.h"

/* it->a: the flow's id; it->b: 0 for its start, 1 for its end. */
static void write_flow(struct pf *p, const struct pf_item *it)
{
	const struct kp_ready *r = it->obj;

	if (it->b) {
		pf_begin(p, "f", PF_THREAD_PID(r->tid), PF_RUN_TID(r->tid, it->lane));
		fputs(",\"bp\":\"e\"", p->f);
	} else {
		pf_begin(p, "s", PF_CPUS_PID, CPU_TID + it->cpu);
	}
	pf_time(p, "ts", it->ts);
	fprintf(p->f, ",\"id\":%" PRIu64 ",\"name\":\"wakeup\",\"cat\":\"thread\"", it->a);
	if (!it->b) {
		fprintf(p->f, ",\"args\":{\"TThreadId\":%" PRIu32, r->tid);
		pf_str_arg(p, "AdjustReason", kp_adjust_reason_name((uint8_t)r->reason));
		pf_time(p, "ReadiedAt", r->ts);
		fputs("}", p->f);
	}
	fputs("}", p->f);
}

static void describe_flow(struct pf *p, const struct pf_item *it, struct pf_event *e)
{
	const struct kp_ready *r = it->obj;

	(void)p;
	*e = (struct pf_event){ .ph = it->b ? 'f' : 's', .pid = it->b ? PF_THREAD_PID(r->tid) : PF_CPUS_PID,
				.tid = it->b ? PF_RUN_TID(r->tid, it->lane) : CPU_TID + it->cpu, .start = it->ts, .flow = it->a };
	strcpy(e->name, "wakeup");
}

static const struct pf_kind flow_kind = { write_flow, describe_flow };

void pf_flow_events(struct pf *p)
{
	uint64_t id = p->flows;

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
			p->flows_one_instant += pf_ns(p->m, by->start) == pf_ns(p->m, w->run_start);
			pf_add(p, (struct pf_item){ .ts = by->start, .kind = &flow_kind, .obj = &c->readies[i], .cpu = cpu,
						    .tid = by->tid, .a = id, .b = 0 });
			pf_add(p, (struct pf_item){ .ts = w->run_start, .kind = &flow_kind, .obj = &c->readies[i],
						    .cpu = cpu, .lane = w->lane, .a = id, .b = 1 });
		}
	}
	p->flows = id;
}
