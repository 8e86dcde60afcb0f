/*
 * thread_trace.c - KprofThread records: the id, process and name of every
 * thread, so a reader can name the ThreadIds in CSwitch, SampledProfile
 * and the rest.  One record per thread that exists when the trace starts
 * (the rundown: the System process's threads and the idle threads, which
 * are all thread 0), and one for each thread created later.
 *
 * Lock order: the rundown holds the dispatcher lock while it walks the
 * System process's thread list; the trace writer takes no lock, but a
 * record that fills a sub-buffer queues the flush DPC to this CPU.  So the
 * rundown raises to DISPATCH_LEVEL first (ki_enter): below it, the DPC
 * would run at once, with interrupts on and the lock held, and its
 * ke_set_event would take the dispatcher lock again.
 */
#include "kernel/sched/ki.h"

#include "kernel/lib/libk.h"
#include "kernel/trace/trace.h"

/* The names are copied whole: thread.c's name_copy() leaves them
 * NUL-terminated in zeroed objects, as the record wants them. */
_Static_assert(sizeof(((KPROF_THREAD *)0)->ThreadName) == sizeof(((KTHREAD *)0)->Name), "thread name size");
_Static_assert(sizeof(((KPROF_THREAD *)0)->ProcessName) == sizeof(((KPROCESS *)0)->ImageFileName),
	       "process name size");

void ki_trace_thread(const KTHREAD *t)
{
	KPROF_THREAD r = { .ThreadId = t->ThreadId, .BasePriority = t->BasePriority };

	if (!trace_enabled(PERF_KPROF_THREAD))
		return;
	memcpy(r.ThreadName, t->Name, sizeof(r.ThreadName));
	if (t->Process) {
		r.ProcessId = t->Process->ProcessId;
		memcpy(r.ProcessName, t->Process->ImageFileName, sizeof(r.ProcessName));
	}
	trace_log(PERF_KPROF_THREAD, KPROF_LOG_TYPE_THREAD, KPROF_THREAD_VERSION, &r, sizeof(r));
}

void ps_trace_rundown(void)
{
	KTHREAD *idle = ke_get_current_prcb()->IdleThread;
	if (idle)
		ki_trace_thread(idle);
	unsigned long flags;
	KIRQL old = ki_enter(&flags);
	for (LIST_ENTRY *e = ps_system_process->ThreadListHead.Flink; e != &ps_system_process->ThreadListHead;
	     e = e->Flink)
		ki_trace_thread(CONTAINING_RECORD(e, KTHREAD, ThreadListEntry));
	ki_leave(old, flags);
}
