/*
 * broadcast.c - run a function on every CPU through targeted DPCs.
 *
 * Until threads exist this is how work reaches the other CPUs: each gets a
 * DPC (KDPC targeted at it), which runs fn at DISPATCH_LEVEL and counts
 * itself done.  The calling CPU runs its share directly, at its own IRQL
 * (so its own DPCs, such as the trace flush, still run in between), then
 * waits for the others.
 */
#include "kernel/broadcast.h"

#include <arch/cpu.h>

#include "kernel/dpc.h"
#include "kernel/irql.h"
#include "kernel/panic.h"
#include "kernel/prcb.h"

static struct {
	void (*fn)(uint32_t cpu, void *ctx);
	void *ctx;
	volatile uint32_t done;
	KDPC dpc[KPROF_MAX_CPUS];
} bc;

static void broadcast_dpc(KDPC *dpc, void *context, void *a1, void *a2)
{
	uint32_t cpu = (uint32_t)(uintptr_t)context;
	bc.fn(cpu, bc.ctx);
	__atomic_fetch_add(&bc.done, 1, __ATOMIC_RELEASE);
}

void ke_run_on_all_processors(void (*fn)(uint32_t cpu, void *ctx), void *ctx)
{
	uint32_t n = ke_number_processors, self = ke_get_current_processor_number();

	KASSERT(ke_get_current_irql() < DISPATCH_LEVEL);
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
}
