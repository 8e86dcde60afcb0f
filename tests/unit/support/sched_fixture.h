/*
 * sched_fixture.h - four CPUs for the dispatcher tests (test_sched.c,
 * test_idle.c), which link the kernel's own scheduler files.
 *
 * One host thread plays CPU 0 (running the thread `runner`); CPUs 1..3
 * exist as KPRCBs whose state the tests set (cpu_runs(), which keeps
 * KiIdleSummary as the dispatcher would).  Thread switches are recorded
 * by the shadow arch/context.h, not made; IPIs are counted (ipis()); the
 * CSwitch and ReadyThread writers are replaced by recorders (swaps[],
 * readies[]).  The helpers take the dispatcher lock around each ki_ call,
 * as the kernel does.  Included by one test program each (its
 * definitions are static).
 */
#ifndef KPROF_TEST_SCHED_FIXTURE_H
#define KPROF_TEST_SCHED_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <arch/context.h>
#include <arch/cpu.h>
#include <arch/interrupt.h>

#include "kernel/ke/dpc.h"
#include "kernel/ke/time/clock.h"
#include "kernel/sched/ki.h"
#include "kernel/ke/time/time.h"
#include "shadow.h"

#define NCPU 4

KPRCB *KiProcessorBlock[KPROF_MAX_CPUS];
volatile uint32_t ke_number_processors;
volatile uint32_t ke_tick_count;

static KPRCB prcbs[NCPU];
static KTHREAD idle[NCPU];
static KTHREAD runner; /* what CPU 0 runs */

/* ---- what the dispatcher told the trace ---- */

static struct {
	uint32_t tid;
	int reason, increment;
} readies[64];
static int nready;

static struct {
	uint32_t cpu, old_tid, new_tid;
	uint8_t old_state, old_wait_reason;
} swaps[64];
static int nswap;

void ki_trace_ready_thread(const KTHREAD *t, enum ki_adjust_reason reason, int8_t increment)
{
	if (nready < 64)
		readies[nready++] = (__typeof__(readies[0])){ t->ThreadId, reason, increment };
}

void ki_trace_context_swap(KPRCB *prcb, KTHREAD *old, KTHREAD *next)
{
	if (nswap < 64)
		swaps[nswap++] = (__typeof__(swaps[0])){ prcb->Number, old->ThreadId, next->ThreadId, old->State,
							 old->WaitReason };
}

void kva_free_stack(struct kstack *st)
{
	(void)st;
}

/* The kicks idle CPUs answered (clock.c records the late ones). */
static struct {
	uint64_t sent, answered;
} kicks[16];
static int nkick;

void ke_clock_note_late_kick(uint64_t sent, uint64_t answered)
{
	if (nkick < 16)
		kicks[nkick++] = (__typeof__(kicks[0])){ sent, answered };
}

/* The clock's timer calls, on the CPU's own queue (as clock.c). */
void ke_set_timer_current(KTIMER_ENTRY *e, uint64_t deadline_tsc, uint64_t period_tsc)
{
	ki_timer_queue_insert(&ke_get_current_prcb()->TimerQueue, e, deadline_tsc, period_tsc);
}

bool ke_cancel_timer(KTIMER_ENTRY *e)
{
	return ki_timer_queue_remove(e);
}

/* ---- set-up ---- */

static void mk_thread(KTHREAD *t, uint32_t tid, int8_t prio, uint32_t ideal)
{
	memset(t, 0, sizeof(*t));
	ki_header_init(&t->Header, ThreadObject, 0);
	t->ThreadId = tid;
	t->Priority = t->BasePriority = prio;
	t->IdealProcessor = (uint8_t)ideal;
	t->NextProcessor = ideal;
	t->State = Initialized;
	affinity_set_first(&t->Affinity, NCPU);
	list_init(&t->MutantListHead);
	ki_reset_quantum(t);
}

static __attribute__((unused)) void only_on(KTHREAD *t, uint32_t cpu)
{
	affinity_clear_all(&t->Affinity);
	affinity_add(&t->Affinity, cpu);
}

/* CPU `cpu` runs t (NULL: its idle thread). */
static void cpu_runs(uint32_t cpu, KTHREAD *t)
{
	KTHREAD *run = t ? t : &idle[cpu];
	prcbs[cpu].CurrentThread = run;
	if (t)
		affinity_remove(&KiIdleSummary, cpu);
	else
		affinity_add(&KiIdleSummary, cpu); /* idle, nothing given to it yet */
	run->State = Running;
	run->NextProcessor = cpu;
	run->LastRunTsc = arch_rdtsc();
}

static int setup(void **state)
{
	(void)state;
	memset(prcbs, 0, sizeof(prcbs));
	affinity_clear_all(&KiIdleSummary);
	memset((void *)shadow_ipis, 0, sizeof(shadow_ipis));
	for (uint32_t i = 0; i < NCPU; i++) {
		KPRCB *p = &prcbs[i];
		p->Self = p;
		p->Number = i;
		ki_ready_queue_init(p);
		ki_dpc_data_init(&p->DpcData);
		memset(&idle[i], 0, sizeof(idle[i]));
		idle[i].Idle = 1;
		idle[i].State = Running;
		p->IdleThread = &idle[i];
		KiProcessorBlock[i] = p;
		cpu_runs(i, NULL);
	}
	ke_number_processors = NCPU;
	ke_tsc_hz = 1000000000;      /* deadlines in ns; real TSC time passes */
	ki_quantum_cycles = 1000000;
	mk_thread(&runner, 8, 8, 0);
	arch_percpu_set(&prcbs[0]);
	arch_set_irql(PASSIVE_LEVEL);
	cpu_runs(0, &runner);
	nready = nswap = nkick = 0;
	shadow_switches = 0;
	return 0;
}


static uint32_t ipis(uint32_t cpu)
{
	return shadow_ipis[cpu][ARCH_INT_DPC];
}

static bool queued_on(const KTHREAD *t, uint32_t cpu)
{
	const LIST_ENTRY *head = &prcbs[cpu].DispatcherReadyListHead[t->Priority];
	for (const LIST_ENTRY *e = head->Flink; e != head; e = e->Flink)
		if (e == &t->ReadyListEntry)
			return t->State == Ready && t->NextProcessor == cpu;
	return false;
}

/* ---- under the lock, as the kernel calls them ---- */

static void insert(KPRCB *prcb, KTHREAD *t, bool front)
{
	unsigned long flags = ki_lock_dispatcher();
	ki_ready_queue_insert(prcb, t, front);
	ki_unlock_dispatcher(flags);
}

static __attribute__((unused)) KTHREAD *find(uint32_t cpu, int min, bool take)
{
	unsigned long flags = ki_lock_dispatcher();
	KTHREAD *t = ki_find_ready_thread(cpu, min, take);
	ki_unlock_dispatcher(flags);
	return t;
}

static void ready(KTHREAD *t)
{
	unsigned long flags = ki_lock_dispatcher();
	ki_ready_thread(t, AdjustUnwait, 0);
	ki_unlock_dispatcher(flags);
}


#endif /* KPROF_TEST_SCHED_FIXTURE_H */
