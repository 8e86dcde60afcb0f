/*
 * thread_trace.c - KprofThread records: the id, process and name of every
 * thread, so a reader can name the ThreadIds in CSwitch, SampledProfile
 * and the rest.  One record per thread that exists when the trace starts
 * (the rundown: the System process's threads and the idle threads, which
 * are all thread 0), and one for each thread created later.
 *
 * Lock order: the rundown holds the dispatcher lock while it walks the
 * System process's thread list; the trace writer takes no lock.
 */
#include "kernel/sched/ki.h"

#include "kernel/libk.h"
#include "kernel/trace/trace.h"

static void copy_name(char *dst, const char *src, size_t size)
{
	size_t i = 0;
	for (; src && src[i] && i < size; i++)
		dst[i] = src[i];
	for (; i < size; i++)
		dst[i] = '\0';
}

void ki_trace_thread(const KTHREAD *t)
{
	KPROF_THREAD r = { .ThreadId = t->ThreadId, .BasePriority = t->BasePriority };

	if (!trace_enabled(PERF_KPROF_THREAD))
		return;
	r.ProcessId = t->Process ? t->Process->ProcessId : 0;
	copy_name(r.ThreadName, t->Name, sizeof(r.ThreadName));
	copy_name(r.ProcessName, t->Process ? t->Process->ImageFileName : "", sizeof(r.ProcessName));
	trace_log(PERF_KPROF_THREAD, KPROF_LOG_TYPE_THREAD, KPROF_THREAD_VERSION, &r, sizeof(r));
}

void ps_trace_rundown(void)
{
	KTHREAD *idle = ke_get_current_prcb()->IdleThread;
	if (idle)
		ki_trace_thread(idle);
	unsigned long flags = ki_lock_dispatcher();
	for (LIST_ENTRY *e = ps_system_process->ThreadListHead.Flink; e != &ps_system_process->ThreadListHead;
	     e = e->Flink)
		ki_trace_thread(CONTAINING_RECORD(e, KTHREAD, ThreadListEntry));
	ki_unlock_dispatcher(flags);
}
