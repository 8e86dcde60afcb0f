/*
 * threads.c - the model's thread table: every thread a KprofThread record
 * names or a CSwitch record switches, sorted by id.  The model's pass
 * makes a thread's row the first time it meets its id (a hash of the ids
 * to their rows) and counts each switch into its two threads as it goes,
 * so no switch is kept; the rows are sorted by id at the end.
 *
 *   - name, process, base priority: from the thread's first KprofThread
 *     record in time.  The kernel never reuses a thread id
 *     (kernel/sched/thread.c counts them up), so a later record for the
 *     same id can only be the idle threads, which all share id 0;
 *   - CPU time: the sum of the thread's runs on every CPU (schedule.c
 *     adds each as it makes it, once the rows are sorted), less their
 *     time in holes (no trace: lost on the link or dropped by
 *     the kernel) and in stalls (stall.c: the CPU could not run);
 *   - in and out: CSwitch records with it as NewThreadId and OldThreadId,
 *     and of the outs those in state Ready (involuntary: preempted,
 *     quantum end, yield; the others waited or ended);
 *     the priorities those switches give it; the longest NewThreadWaitTime
 *     it was switched in with; the OldThreadWaitReason of every switch
 *     out.
 */
#include "tools/kprof/model/model.h"

#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/hash.h"
#include "tools/kprof/util/sort.h"

/* The row of tid, made (zeroed) the first time it is met. */
static struct kp_model_thread *row(struct kp_thread_rows *t, uint32_t tid)
{
	uint64_t h = kp_hash_u64(tid, 0);
	size_t it;

	for (size_t at = kp_index_first(&t->ix, h, &it); at != KP_INDEX_NONE; at = kp_index_next(&t->ix, h, &it))
		if (t->rows[at].tid == tid)
			return &t->rows[at];
	kp_index_add(&t->ix, h, t->n);
	KP_PUSH(t->rows, t->n, t->cap, ((struct kp_model_thread){ .tid = tid }));
	return &t->rows[t->n - 1];
}

static int cmp_row(const void *a, const void *b)
{
	return kp_cmp_u64(((const struct kp_model_thread *)a)->tid, ((const struct kp_model_thread *)b)->tid);
}

bool kp_thread_record(const struct kp_record *r, KPROF_THREAD *out)
{
	KPROF_THREAD_V1 v1;

	memset(out, 0, sizeof(*out));
	if (r->version >= 2) {
		if (r->payload_size < sizeof(*out))
			return false;
		memcpy(out, r->payload, sizeof(*out));
		return true;
	}
	if (r->payload_size < sizeof(v1))
		return false;
	memcpy(&v1, r->payload, sizeof(v1));
	out->ThreadId = v1.ThreadId;
	out->ProcessId = v1.ProcessId;
	out->BasePriority = v1.BasePriority;
	memcpy(out->ThreadName, v1.ThreadName, sizeof(v1.ThreadName));
	memcpy(out->ProcessName, v1.ProcessName, sizeof(v1.ProcessName));
	return true;
}

void kp_threads_name(struct kp_thread_rows *rows, const KPROF_THREAD *k)
{
	struct kp_model_thread *t = row(rows, k->ThreadId);

	if (t->named)
		return; /* the first record names it */
	t->named = true;
	t->pid = k->ProcessId;
	t->base_priority = k->BasePriority;
	_Static_assert(sizeof(t->name) == sizeof(k->ThreadName) + 1, "a whole name and its NUL");
	_Static_assert(sizeof(t->process) == sizeof(k->ProcessName) + 1, "a whole name and its NUL");
	memcpy(t->name, k->ThreadName, sizeof(k->ThreadName));
	memcpy(t->process, k->ProcessName, sizeof(k->ProcessName));
	t->name[sizeof(k->ThreadName)] = t->process[sizeof(k->ProcessName)] = 0;
}

void kp_threads_switch(struct kp_thread_rows *rows, const WMI_CONTEXTSWAP *c)
{
	struct kp_model_thread *in = row(rows, c->NewThreadId);

	in->in++;
	KP_RANGE_ADD(in->have_prio, in->pmin, in->pmax, (int)c->NewThreadPriority);
	if (c->NewThreadWaitTime > in->max_wait)
		in->max_wait = c->NewThreadWaitTime;
	struct kp_model_thread *out = row(rows, c->OldThreadId); /* may move in */
	out->out++;
	out->out_ready += c->OldThreadState == Ready;
	KP_RANGE_ADD(out->have_prio, out->pmin, out->pmax, (int)c->OldThreadPriority);
	out->reasons[c->OldThreadWaitReason]++;
}

void kp_threads_finish(struct kp_model *m, struct kp_thread_rows *rows)
{
	kp_index_free(&rows->ix);
	kp_sort(rows->rows, rows->n, sizeof(*rows->rows), cmp_row);
	m->threads = rows->rows;
	m->nthreads = rows->n;
	m->thread_ids = kp_xcalloc(m->nthreads + 1, sizeof(*m->thread_ids));
	for (size_t i = 0; i < m->nthreads; i++)
		m->thread_ids[i] = m->threads[i].tid;
	*rows = (struct kp_thread_rows){ 0 };
}
