/*
 * ctf_wakeup.c - sched_wakeup's target_cpu for `kprof ctf --lttng`
 * (ctf_lttng.c): for each ReadyThread record, the CPU its thread is next
 * switched in on at or after the record (of switch-ins at one time, the
 * lowest CPU's), or the CPU that wrote it if the thread never runs again.
 *
 * Found in one pass over the records in time order (the CPUs merged by
 * stamp, read/records.h), holding only the ReadyThread records not yet
 * answered (a list per thread, their entries reused), not every
 * switch-in: the answers are 2 bytes a ReadyThread record, per CPU by its
 * place among the CPU's.  A switch-in at the stamp of a ReadyThread
 * answers it whichever of the two the merge gives first, so one stamp's
 * records are gathered; when the stamp moves on its ReadyThread records
 * wait, then its switch-ins answer their threads' waiting ones in the
 * merge's order, which at one stamp is the lowest CPU first.  (The switch-ins of 20 M records, sorted by thread and time,
 * took 177 MiB; of 106 M, 868 MiB.)
 */
#include "tools/kprof/export/ctf/ctf_shared.h"

#include <stdlib.h>
#include <string.h>

#include "include/kprof/wmi.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/hash.h"
#include "tools/kprof/util/kpassert.h"

#define NONE UINT32_MAX

struct waiting {               /* a ReadyThread record not answered yet   */
	uint32_t cpu;
	uint32_t next;             /* the thread's next one, or NONE           */
	size_t index;              /* its place among the CPU's                */
};

struct waiter {                /* a thread, and the head of its list       */
	uint32_t tid, head;
};

struct stamped {               /* one of the current stamp's records       */
	uint32_t tid, cpu;
	size_t index;              /* ready: its place among the CPU's         */
	bool ready;
};

struct pass {
	struct ctf_wakeups *w;
	struct waiting *pool;      /* the waiting entries; free ones listed    */
	size_t npool, cappool;
	uint32_t free;
	struct waiter *th;
	size_t nth, capth;
	struct kp_index ix;
	struct stamped *now;       /* the current stamp's readies, switch-ins  */
	size_t nnow, capnow;
	uint64_t ts;
	size_t *caps;              /* per CPU: room for its answers            */
};

static struct waiter *waiter(struct pass *p, uint32_t tid)
{
	uint64_t h = kp_hash_u64(tid, 0);
	size_t it;

	for (size_t at = kp_index_first(&p->ix, h, &it); at != KP_INDEX_NONE; at = kp_index_next(&p->ix, h, &it))
		if (p->th[at].tid == tid)
			return &p->th[at];
	kp_index_add(&p->ix, h, p->nth);
	KP_PUSH(p->th, p->nth, p->capth, ((struct waiter){ tid, NONE }));
	return &p->th[p->nth - 1];
}

static void wait_for(struct pass *p, const struct stamped *s)
{
	struct waiter *t = waiter(p, s->tid);
	uint32_t at;

	if (p->free != NONE) {
		at = p->free;
		p->free = p->pool[at].next;
	} else {
		KP_ASSERT(p->npool < NONE, "%zu ReadyThread records waiting", p->npool);
		KP_PUSH(p->pool, p->npool, p->cappool, ((struct waiting){ 0 }));
		at = (uint32_t)(p->npool - 1);
	}
	p->pool[at] = (struct waiting){ s->cpu, t->head, s->index };
	t->head = at;
}

static void answer(struct pass *p, uint32_t tid, uint32_t cpu)
{
	struct waiter *t = waiter(p, tid);

	while (t->head != NONE) {
		struct waiting *e = &p->pool[t->head];
		uint32_t next = e->next;
		p->w->cpu[e->cpu][e->index] = (uint16_t)cpu;
		e->next = p->free;
		p->free = t->head;
		t->head = next;
	}
}

/* The stamp's records: its readies wait, then its switch-ins answer, in
 * the merge's order (at one stamp, CPU by CPU: the lowest CPU's first). */
static void flush(struct pass *p)
{
	for (size_t i = 0; i < p->nnow; i++)
		if (p->now[i].ready)
			wait_for(p, &p->now[i]);
	for (size_t i = 0; i < p->nnow; i++)
		if (!p->now[i].ready)
			answer(p, p->now[i].tid, p->now[i].cpu);
	p->nnow = 0;
}

static void take(struct pass *p, const struct kp_record *r)
{
	bool ready = r->h.HookId == PERFINFO_LOG_TYPE_READY_THREAD;
	struct stamped s = { .cpu = r->cpu, .ready = ready };

	if (!(ready || r->h.HookId == PERFINFO_LOG_TYPE_CONTEXTSWAP) || !record_event(r))
		return;
	if (p->nnow && r->h.TimeStamp != p->ts)
		flush(p);
	p->ts = r->h.TimeStamp;
	if (ready) {
		WMI_READY_THREAD w;
		memcpy(&w, r->payload, sizeof(w));
		s.tid = w.TThreadId;
		s.index = p->w->n[r->cpu];
		KP_PUSH(p->w->cpu[r->cpu], p->w->n[r->cpu], p->caps[r->cpu], (uint16_t)r->cpu); /* none: its own */
	} else {
		WMI_CONTEXTSWAP w;
		memcpy(&w, r->payload, sizeof(w));
		s.tid = w.NewThreadId;
	}
	KP_PUSH(p->now, p->nnow, p->capnow, s);
}

void ctf_wakeups_find(struct ctf_wakeups *w, struct kp_log *log)
{
	struct pass p = { .w = w, .free = NONE };
	struct kp_merge mg;
	struct kp_record r;

	KP_ASSERT(log->ncpus <= UINT16_MAX + 1u, "%u CPUs", log->ncpus);
	*w = (struct ctf_wakeups){ .ncpus = log->ncpus };
	w->cpu = kp_xcalloc(log->ncpus ? log->ncpus : 1, sizeof(*w->cpu));
	w->n = kp_xcalloc(log->ncpus ? log->ncpus : 1, sizeof(*w->n));
	p.caps = kp_xcalloc(log->ncpus ? log->ncpus : 1, sizeof(*p.caps));
	kp_merge_init(&mg, log);
	while (kp_merge_next(&mg, &r))
		take(&p, &r);
	kp_merge_free(&mg);
	flush(&p);
	free(p.pool);
	free(p.th);
	kp_index_free(&p.ix);
	free(p.now);
	free(p.caps);
}

uint32_t ctf_wakeup_cpu(const struct ctf_wakeups *w, uint32_t cpu, size_t i)
{
	return cpu < w->ncpus && i < w->n[cpu] ? w->cpu[cpu][i] : cpu;
}

void ctf_wakeups_free(struct ctf_wakeups *w)
{
	for (uint32_t c = 0; c < w->ncpus; c++)
		free(w->cpu[c]);
	free(w->cpu);
	free(w->n);
	*w = (struct ctf_wakeups){ 0 };
}
