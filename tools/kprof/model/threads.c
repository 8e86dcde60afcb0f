/*
 * threads.c - the model's thread table: every thread a KprofThread record
 * names or a CSwitch record switches, sorted by id.
 *
 *   - name, process, base priority: from the thread's first KprofThread
 *     record in time.  The kernel never reuses a thread id
 *     (kernel/sched/thread.c counts them up), so a later record for the
 *     same id can only be the idle threads, which all share id 0;
 *   - CPU time: the sum of the thread's runs on every CPU (schedule.c),
 *     less their time in holes (no trace: lost on the link or dropped by
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
#include "tools/kprof/util/sort.h"

static int cmp_tid(const void *a, const void *b)
{
	return kp_cmp_u64(*(const uint32_t *)a, *(const uint32_t *)b);
}

/* A thread known to be in the table (it was collected). */
static struct kp_model_thread *thread_of(struct kp_model *m, uint32_t tid)
{
	return (struct kp_model_thread *)kp_model_thread(m, tid);
}

/* ids[0..n) sorted, each once; returns the new n. */
static size_t sort_unique(uint32_t *ids, size_t n)
{
	size_t rows = 0;

	kp_sort(ids, n, sizeof(*ids), cmp_tid);
	for (size_t i = 0; i < n; i++)
		if (!i || ids[i] != ids[i - 1])
			ids[rows++] = ids[i];
	return rows;
}

/* An id to the list; a full list is made unique before it grows, so it
 * holds at most twice the distinct ids, not two per CSwitch record. */
static void push_id(uint32_t **ids, size_t *n, size_t *cap, uint32_t id)
{
	if (*n == *cap) {
		*n = *n ? sort_unique(*ids, *n) : 0;
		if (*n >= *cap / 2)
			*ids = kp_grow(*ids, cap, *cap + 1, sizeof(**ids));
	}
	(*ids)[(*n)++] = id;
}

/* Every id that occurs, once, in order: the table's rows. */
static void make_rows(struct kp_model *m, const KPROF_THREAD *names, size_t nnames, struct kp_switch **sw,
		      const size_t *nsw)
{
	uint32_t *ids = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < nnames; i++)
		push_id(&ids, &n, &cap, names[i].ThreadId);
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++)
		for (size_t i = 0; i < nsw[cpu]; i++) {
			push_id(&ids, &n, &cap, sw[cpu][i].c.NewThreadId);
			push_id(&ids, &n, &cap, sw[cpu][i].c.OldThreadId);
		}
	n = sort_unique(ids, n);
	m->threads = kp_xcalloc(n, sizeof(*m->threads));
	for (size_t i = 0; i < n; i++)
		m->threads[m->nthreads++].tid = ids[i];
	free(ids);
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

static void name_thread(struct kp_model_thread *t, const KPROF_THREAD *k)
{
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

static void count_switch(struct kp_model *m, const WMI_CONTEXTSWAP *c)
{
	struct kp_model_thread *in = thread_of(m, c->NewThreadId), *out = thread_of(m, c->OldThreadId);

	in->in++;
	KP_RANGE_ADD(in->have_prio, in->pmin, in->pmax, (int)c->NewThreadPriority);
	if (c->NewThreadWaitTime > in->max_wait)
		in->max_wait = c->NewThreadWaitTime;
	out->out++;
	out->out_ready += c->OldThreadState == Ready;
	KP_RANGE_ADD(out->have_prio, out->pmin, out->pmax, (int)c->OldThreadPriority);
	out->reasons[c->OldThreadWaitReason]++;
}

void kp_threads_build(struct kp_model *m, const KPROF_THREAD *names, size_t nnames, struct kp_switch **sw,
		      const size_t *nsw)
{
	make_rows(m, names, nnames, sw, nsw);
	for (size_t i = 0; i < nnames; i++) /* in time order */
		name_thread(thread_of(m, names[i].ThreadId), &names[i]);
	for (uint32_t cpu = 0; cpu < m->ncpus; cpu++) {
		for (size_t i = 0; i < nsw[cpu]; i++)
			count_switch(m, &sw[cpu][i].c);
		for (size_t i = 0; i < m->cpu[cpu].nruns; i++) {
			const struct kp_run *r = &m->cpu[cpu].runs[i];
			struct kp_model_thread *t = thread_of(m, r->tid);
			t->cycles += r->end - r->start - r->no_trace - r->stalled;
			t->stalled += r->stalled;
		}
	}
}
