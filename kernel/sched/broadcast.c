/*
 * broadcast.c - run a function on every CPU through targeted DPCs.
 *
 * Each other CPU gets a DPC (KDPC targeted at it), which runs fn at
 * DISPATCH_LEVEL and counts itself done.  The calling CPU raises to
 * DISPATCH_LEVEL (so it cannot be switched to another CPU half-way and its
 * `self` stays true), runs its share, then waits for the others.
 *
 * Invariants: one broadcast at a time (bc_mutex, a KMUTANT taken at
 * PASSIVE_LEVEL: a caller that waited spinning instead could hold off the
 * DPC the broadcast in progress is waiting for on its CPU).  Every CPU's
 * share has returned when ke_run_on_all_processors returns, and since a
 * CPU runs DPCs only below DISPATCH_LEVEL, every interrupt it was taking
 * when the broadcast began has ended too (the grace period profile.c
 * relies on).
 * Lock order: bc_mutex, then whatever fn takes.
 */
#include "kernel/sched/broadcast.h"

#include <arch/cpu.h>

#include "kernel/ke/dpc.h"
#include "kernel/ke/irql.h"
#include "kernel/debug/panic.h"
#include "kernel/ke/prcb.h"
#include "kernel/sched/sched.h"

static struct {
	void (*fn)(uint32_t cpu, void *ctx);
	void *ctx;
	volatile uint32_t done;
	KDPC dpc[KPROF_MAX_CPUS];
} bc;
static KMUTANT bc_mutex;

void ke_broadcast_init(void)
{
	ke_initialize_mutant(&bc_mutex, false);
}

static void broadcast_dpc(KDPC *dpc, void *context, void *a1, void *a2)
{
	uint32_t cpu = (uint32_t)(uintptr_t)context;
	bc.fn(cpu, bc.ctx);
	__atomic_fetch_add(&bc.done, 1, __ATOMIC_RELEASE);
}

void ke_run_on_all_processors(void (*fn)(uint32_t cpu, void *ctx), void *ctx)
{
	KASSERT(ke_get_current_irql() < DISPATCH_LEVEL);
	ke_wait_for_single_object(&bc_mutex, Executive, KernelMode, KE_WAIT_FOREVER);

	KIRQL old = ke_raise_irql(DISPATCH_LEVEL);
	uint32_t n = ke_number_processors, self = ke_get_current_processor_number();
	bc.fn = fn;
	bc.ctx = ctx;
	bc.done = 0;
	/* Others first, so they run while this CPU runs its own share. */
	for (uint32_t i = 0; i < n; i++) {
		if (i == self)
			continue;
		ke_initialize_dpc(&bc.dpc[i], broadcast_dpc, (void *)(uintptr_t)i);
		ke_set_target_processor_dpc(&bc.dpc[i], i);
		ke_insert_queue_dpc(&bc.dpc[i], 0, 0);
	}
	fn(self, ctx);
	__atomic_fetch_add(&bc.done, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&bc.done, __ATOMIC_ACQUIRE) < n)
		arch_cpu_relax();
	ke_lower_irql(old);
	ke_release_mutant(&bc_mutex, 0, false);
}
