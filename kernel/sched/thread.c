/*
 * thread.c - creating and ending threads, processes, idle threads, and
 * starting the scheduler.
 *
 * Thread and process ids are multiples of 4 from one counter, as on
 * Windows (System is PID 4); idle threads are thread 0 of process 0.
 * Every CPU's start-up context becomes its idle thread, except the boot
 * CPU's, which becomes the thread that runs kernel_main; the boot CPU gets
 * a separate idle thread.  An ended thread's stack is freed by the next
 * thread to run on that CPU (it cannot free the stack it stands on); the
 * KTHREAD itself stays, since others may still wait on it.
 */
#include "kernel/sched/ki.h"

#include <arch/context.h>
#include <arch/cpu.h>

#include "kernel/ke/time/clock.h"
#include "kernel/console/console.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/libk.h"
#include "kernel/debug/panic.h"

#define THREAD_STACK_SIZE (16 * 1024)
#define QUANTUM_TICKS 2 /* a quantum: two clock ticks' worth of cycles */

KPROCESS *ps_idle_process;
KPROCESS *ps_system_process;
volatile uint32_t ke_tick_count;
static uint32_t next_id = 4;        /* [D] */
static uint32_t next_ideal;         /* [D] round robin of ideal processors */

static void name_copy(char *dst, const char *src, size_t size)
{
	size_t i = 0;
	for (; src && src[i] && i + 1 < size; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}

KPROCESS *ps_create_process(const char *name, int8_t base_priority)
{
	KPROCESS *p = kzalloc(sizeof(*p));
	if (!p)
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, 0, 0, 0, 0, "no memory for a process");
	ki_header_init(&p->Header, ProcessObject, 0);
	list_init(&p->ProfileListHead);
	list_init(&p->ThreadListHead);
	p->BasePriority = base_priority;
	affinity_set_first(&p->Affinity, KPROF_MAX_CPUS); /* every CPU that comes online */
	name_copy(p->ImageFileName, name, sizeof(p->ImageFileName));
	unsigned long flags;
	KIRQL old = ki_enter(&flags);
	p->ProcessId = name && !strcmp(name, "Idle") ? 0 : (next_id += 4) - 4;
	ki_leave(old, flags);
	return p;
}

/* A KTHREAD with no stack of its own yet. [D] not needed: not yet visible. */
static KTHREAD *thread_alloc(KPROCESS *p, int8_t priority, const char *name)
{
	KTHREAD *t = kzalloc(sizeof(*t));
	if (!t)
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, 0, 0, 0, 0, "no memory for a thread");
	ki_header_init(&t->Header, ThreadObject, 0);
	list_init(&t->MutantListHead);
	list_init(&t->ReadyListEntry);
	t->Process = p;
	t->Priority = t->BasePriority = priority;
	t->Affinity = p->Affinity;
	t->State = Initialized;
	name_copy(t->Name, name, sizeof(t->Name));
	ki_reset_quantum(t);
	return t;
}

/* First code of every new thread (arch_thread_entry calls it after the
 * first switch to it): the switch left the lock held, by this CPU, and
 * DISPATCH_LEVEL; releasing it here is what the owner check expects. */
static void ki_thread_startup(void *arg)
{
	KTHREAD *t = arg;

	ki_after_switch();
	ki_unlock_dispatcher(0);
	arch_irq_enable();
	ke_lower_irql(PASSIVE_LEVEL);
	t->StartRoutine(t->StartContext);
	ps_terminate_system_thread();
}

KTHREAD *ps_create_system_thread(KPROCESS *process, PKSTART_ROUTINE start, void *context, int8_t priority,
				 const KAFFINITY_EX *affinity, const char *name)
{
	KPROCESS *p = process ? process : ps_system_process;
	KTHREAD *t = thread_alloc(p, priority, name);

	if (kva_alloc_stack(THREAD_STACK_SIZE, &t->Stack))
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, 0, 0, 0, 0, "no memory for a thread stack");
	if (affinity && !affinity_empty(affinity))
		t->Affinity = *affinity;
	t->StartRoutine = start;
	t->StartContext = context;
	t->KernelStackPointer = arch_context_init(t->Stack.top, ki_thread_startup, t);

	unsigned long flags;
	KIRQL old = ki_enter(&flags);
	t->ThreadId = (next_id += 4) - 4;
	uint32_t ideal = affinity_next(&t->Affinity, next_ideal++ % ke_number_processors);
	t->IdealProcessor = (uint8_t)(ideal < ke_number_processors ? ideal : affinity_next(&t->Affinity, 0));
	t->NextProcessor = t->IdealProcessor;
	list_insert_tail(&p->ThreadListHead, &t->ThreadListEntry);
	p->ActiveThreads++;
	t->WaitTick = ke_tick_count;
	ki_ready_thread(t, AdjustNone, 0);
	ki_leave(old, flags);
	ki_trace_thread(t);
	return t;
}

void ps_terminate_system_thread(void)
{
	unsigned long flags;
	ki_enter(&flags);
	KTHREAD *t = ke_get_current_thread();

	ki_abandon_mutants(t);
	t->State = Terminated;
	t->WaitReason = WrTerminated;
	t->Header.SignalState = 1;
	ki_signal_waiters(&t->Header, 0);
	list_remove(&t->ThreadListEntry);
	if (--t->Process->ActiveThreads == 0) {
		t->Process->Header.SignalState = 1;
		ki_signal_waiters(&t->Process->Header, 0);
	}
	ki_block_current();
	ke_bug_check_ex(KPROF_ASSERTION_FAILED, t->ThreadId, 0, 0, 0, "a terminated thread ran again");
}

/* The idle thread: first take any thread queued before this CPU came
 * online that may run here (idle.c); then run what this CPU is given
 * (DispatchPending), else halt until an interrupt: a thread made ready
 * for this CPU comes with an IPI whose exit path switches to it.  It does
 * not look through the queues before every halt: with many CPUs, every
 * idle CPU taking the dispatcher lock at each wake-up, for threads that
 * kicked CPUs are about to take, costs more than it finds (the idle set
 * already keeps work off busy CPUs while one idles, and the kick timer
 * covers a kicked CPU that does not answer). */
static __attribute__((noreturn)) void idle_loop(void)
{
	ki_idle_look_for_work();
	for (;;) {
		KPRCB *prcb = ke_get_current_prcb();
		if (prcb->DispatchPending) {
			ke_lower_irql(ke_raise_irql(DISPATCH_LEVEL)); /* reschedules */
			continue;
		}
		prcb->IdleCState = 1; /* hlt is C1 */
		arch_idle();
	}
}

static KTHREAD *idle_thread_alloc(KPRCB *prcb)
{
	KTHREAD *t = thread_alloc(ps_idle_process, 0, "Idle");
	t->Idle = 1;
	t->ThreadId = 0;
	t->IdealProcessor = (uint8_t)prcb->Number;
	t->NextProcessor = prcb->Number;
	affinity_clear_all(&t->Affinity);
	affinity_add(&t->Affinity, prcb->Number);
	return t;
}

void ki_idle_thread_start(KPRCB *prcb, uintptr_t stack_base, uintptr_t stack_top)
{
	KTHREAD *t = idle_thread_alloc(prcb);

	t->Stack = (struct kstack){ .base = stack_base, .top = stack_top };
	t->State = Running;
	t->LastRunTsc = arch_rdtsc();
	/* CPU start-up, interrupts off: the lock without DISPATCH_LEVEL is
	 * enough, nothing here queues a DPC (dispatcher_lock.h). */
	unsigned long flags = ki_lock_dispatcher();
	prcb->IdleThread = t;
	prcb->CurrentThread = t;
	ki_idle_summary_update(prcb->Number, true);
	ki_unlock_dispatcher(flags);
	arch_irq_enable();
	idle_loop();
}

/* The boot CPU's idle thread starts from a switch, like any new thread. */
static void boot_idle_entry(void *arg)
{
	ki_after_switch();
	ki_unlock_dispatcher(0);
	arch_irq_enable();
	ke_lower_irql(PASSIVE_LEVEL);
	idle_loop();
}

void ke_init_scheduler(uintptr_t boot_stack_base, uintptr_t boot_stack_top)
{
	KPRCB *prcb = ke_get_current_prcb();

	ki_quantum_cycles = ke_clock_tick_cycles() * QUANTUM_TICKS;
	ps_idle_process = ps_create_process("Idle", 0);
	ps_system_process = ps_create_process("System", 8);

	/* The running context (kernel_main) becomes the first thread. */
	KTHREAD *main = thread_alloc(ps_system_process, 8, "main");
	main->Stack = (struct kstack){ .base = boot_stack_base, .top = boot_stack_top };
	main->ThreadId = (next_id += 4) - 4;
	main->State = Running;
	main->LastRunTsc = arch_rdtsc();
	list_insert_tail(&ps_system_process->ThreadListHead, &main->ThreadListEntry);
	ps_system_process->ActiveThreads = 1;

	KTHREAD *idle = idle_thread_alloc(prcb);
	if (kva_alloc_stack(THREAD_STACK_SIZE, &idle->Stack))
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, 0, 0, 0, 0, "no memory for the idle thread");
	idle->KernelStackPointer = arch_context_init(idle->Stack.top, boot_idle_entry, idle);

	unsigned long flags = ki_lock_dispatcher(); /* boot: queues nothing (dispatcher_lock.h) */
	prcb->IdleThread = idle;
	prcb->CurrentThread = main;
	ki_unlock_dispatcher(flags);
	kprintf("sched: quantum %llu cycles (%u clock ticks), threads: main %u on CPU 0, idle thread per CPU\n",
		(unsigned long long)ki_quantum_cycles, QUANTUM_TICKS, main->ThreadId);
}
