/*
 * boot.c - scenario=boot: check that the machine that came up
 * works, and print what it measured.
 *
 *   - every CPU runs a DPC targeted at it, at DISPATCH_LEVEL, in DPC
 *     context (queued from the boot CPU: exercises the DPC interrupt);
 *   - every CPU's clock ticks over 200 ms, at about tick_hz= (ticks plus
 *     the periods they came late) on bare metal;
 *   - a one-shot timer-queue entry fires, and how late it was;
 *   - the cost of an empty interrupt round trip (a self-IPI), and of
 *     reaching the serial port (a read, a write, a string write: under
 *     a hypervisor, VM exits).
 * Any check that fails makes the run end with KPROF_EXIT_FAILURE.
 */
#include "kernel/workloads/scenario.h"
#include "kernel/workloads/api/descriptor.h"
#include "kernel/workloads/workload_keys.h"
#include "kernel/ke/ke_keys.h"


#include <arch/cpu.h>
#include <arch/interrupt.h>
#include <arch/dev/serial.h>

#include "kernel/ke/time/clock.h"
#include "kernel/console/console.h"
#include "kernel/ke/dpc.h"
#include "kernel/ke/irql.h"
#include "kernel/workloads/measure.h"
#include "kernel/ke/prcb.h"
#include "kernel/ke/time/time.h"

#define TICK_WINDOW_US 200000
#define TICK_WAIT_US   5000000 /* in a VM: for a CPU's first tick after the window */
#define IPI_ROUNDS     2000

static KDPC check_dpc[KPROF_MAX_CPUS];
static volatile uint32_t dpc_ran_on[KPROF_MAX_CPUS]; /* CPU number + 1, 0 = not yet */
static volatile uint8_t dpc_irql[KPROF_MAX_CPUS];
static volatile uint8_t dpc_active[KPROF_MAX_CPUS];
static volatile uint32_t dpc_done;

static void check_dpc_routine(KDPC *dpc, void *context, void *a1, void *a2)
{
	uint32_t slot = (uint32_t)(uintptr_t)context;
	dpc_ran_on[slot] = ke_get_current_processor_number() + 1;
	dpc_irql[slot] = ke_get_current_irql();
	dpc_active[slot] = ke_is_executing_dpc();
	__atomic_fetch_add(&dpc_done, 1, __ATOMIC_RELEASE);
}

static bool wait_until(volatile uint32_t *counter, uint32_t want, uint64_t us)
{
	uint64_t start = arch_rdtsc(), limit = ke_us_to_tsc(us);
	while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) < want)
		if (arch_rdtsc() - start > limit)
			return false;
	return true;
}

static bool check_dpcs(void)
{
	uint32_t n = ke_number_processors, good = 0;

	for (uint32_t i = 0; i < n; i++) {
		ke_initialize_dpc(&check_dpc[i], check_dpc_routine, (void *)(uintptr_t)i);
		ke_set_target_processor_dpc(&check_dpc[i], i);
		ke_insert_queue_dpc(&check_dpc[i], 0, 0);
	}
	/* A bound for a hang, not a timing: 64 vCPUs on a loaded 2-core host
	 * took over 1 s to run them all. */
	wait_until(&dpc_done, n, 30000000);
	for (uint32_t i = 0; i < n; i++) {
		bool ok = dpc_ran_on[i] == i + 1 && dpc_irql[i] == DISPATCH_LEVEL && dpc_active[i];
		if (!ok)
			kprintf("check: DPC for CPU %u: ran on %d at IRQL %u, in DPC context %u: wrong\n", i,
				(int)dpc_ran_on[i] - 1, dpc_irql[i], dpc_active[i]);
		good += ok;
	}
	kprintf("check: DPCs: %u of %u CPUs ran the DPC targeted at them, at IRQL %u in DPC context\n", good, n,
		DISPATCH_LEVEL);
	return good == n;
}

/* Every CPU's clock ticks at about tick_hz.  A tick the CPU could not
 * take in time (a vCPU the host did not run, interrupts masked) is not
 * lost from the count: the clock interrupt that finally comes measures
 * how late it is (ClockLateCycles, kernel/ke/time/clock.c), so ticks taken +
 * periods late = the periods that passed, whatever the host's load.  The
 * check is on that sum; the ticks alone are printed too. */
static bool check_ticks(uint32_t tick_hz)
{
	uint32_t n = ke_number_processors;
	uint64_t before[KPROF_MAX_CPUS], late_before[KPROF_MAX_CPUS];
	uint64_t lo = UINT64_MAX, hi = 0, alo = UINT64_MAX, ahi = 0, period = ke_clock_tick_cycles();

	for (uint32_t i = 0; i < n; i++) {
		before[i] = KiProcessorBlock[i]->ClockTicks;
		late_before[i] = KiProcessorBlock[i]->ClockLateCycles;
	}
	ke_stall_execution_processor(TICK_WINDOW_US);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t d = KiProcessorBlock[i]->ClockTicks - before[i];
		uint64_t a = d + (KiProcessorBlock[i]->ClockLateCycles - late_before[i]) / (period ? period : 1);
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
		alo = a < alo ? a : alo;
		ahi = a > ahi ? a : ahi;
	}
	uint64_t expect = (uint64_t)tick_hz * TICK_WINDOW_US / 1000000;
	kprintf("check: clock ticks in %u ms: %llu to %llu per CPU over %u CPUs, %llu to %llu with the periods they "
		"came late (expected %llu)\n",
		TICK_WINDOW_US / 1000, (unsigned long long)lo, (unsigned long long)hi, n, (unsigned long long)alo,
		(unsigned long long)ahi, (unsigned long long)expect);
	/* Every CPU took a tick, and none more than twice the rate.  On bare
	 * metal also half the periods accounted for (the window's edges and
	 * lateness under CLOCK_LATE_US are not counted); in a VM the host
	 * decides when a vCPU runs, and an overcommitted one (64 vCPUs on 2
	 * host cores) was seen at 6 of 20 with no lateness measured, so there
	 * the rate is printed, not judged. */
	bool rate_ok = arch_cpu_virtualized() || alo >= (expect + 1) / 2;
	/* In a VM a CPU may take no tick in the window at all (64 vCPUs on 2
	 * host cores, under TCG): the host did not run it, and its late tick,
	 * which would measure the lateness, comes only when it runs.  There
	 * every CPU must take one within TICK_WAIT_US more: its clock runs. */
	uint32_t silent = 0;
	if (lo == 0 && arch_cpu_virtualized()) {
		uint64_t start = arch_rdtsc(), limit = ke_us_to_tsc(TICK_WAIT_US);
		do {
			silent = 0;
			for (uint32_t i = 0; i < n; i++)
				silent += __atomic_load_n(&KiProcessorBlock[i]->ClockTicks, __ATOMIC_RELAXED) == before[i];
		} while (silent && arch_rdtsc() - start < limit);
		uint64_t ms = ke_tsc_to_us(arch_rdtsc() - start) / 1000;
		if (silent)
			kprintf("check: clock: %u CPUs took no tick in the window nor in the %llu ms after it\n", silent,
				(unsigned long long)ms);
		else
			kprintf("check: clock: the CPUs without a tick in the window each took one within %llu ms after it "
				"(a VM: the host did not run them in the window)\n", (unsigned long long)ms);
		lo = silent ? 0 : 1;
	}
	return lo >= 1 && rate_ok && hi <= expect * 2 + 2;
}

static volatile uint64_t oneshot_fired_tsc;

static void oneshot(KTIMER_ENTRY *e, KTRAP_FRAME *tf, void *ctx)
{
	oneshot_fired_tsc = arch_rdtsc();
}

static bool check_oneshot(void)
{
	static KTIMER_ENTRY e;
	uint64_t due = arch_rdtsc() + ke_us_to_tsc(20000);

	ke_timer_entry_init(&e, oneshot, 0);
	ke_set_timer_current(&e, due, 0);
	uint64_t start = arch_rdtsc();
	while (!oneshot_fired_tsc && arch_rdtsc() - start < ke_us_to_tsc(1000000))
		arch_cpu_relax();
	if (!oneshot_fired_tsc || oneshot_fired_tsc < due) {
		kprintf("check: one-shot timer: %s\n", oneshot_fired_tsc ? "fired early" : "never fired");
		return false;
	}
	kprintf("check: a 20 ms one-shot timer fired %llu us late\n",
		(unsigned long long)ke_tsc_to_us(oneshot_fired_tsc - due));
	return true;
}

static enum kprof_exit_status scenario_boot(uint32_t tick_hz)
{
	bool ok = check_dpcs();
	ok &= check_ticks(tick_hz);
	ok &= check_oneshot();
	struct irq_cost irq = measure_interrupt_round_trip(IPI_ROUNDS);
	kprintf("check: empty interrupt round trip (self-IPI at IRQL %u): %llu cycles median, %llu average, %llu best, "
		"over %u\n",
		arch_interrupt_irql(ARCH_INT_IPI), (unsigned long long)irq.median, (unsigned long long)irq.average,
		(unsigned long long)irq.best, irq.rounds);
	uint64_t rd, wr, str;
	uint32_t bytes;
	if (arch_serial_measure(&rd, &wr, &str, &bytes))
		kprintf("check: serial port access: a status read %llu cycles (%llu us), a register write %llu cycles, "
			"a string write of %u bytes %llu cycles (%llu a byte)\n",
			(unsigned long long)rd, (unsigned long long)ke_tsc_to_us(rd), (unsigned long long)wr, bytes,
			(unsigned long long)str, (unsigned long long)(str / bytes));
	kprintf("scenario boot: machine is up, %s\n", ok ? "every check passed" : "SOME CHECKS FAILED");
	return ok ? KPROF_EXIT_SUCCESS : KPROF_EXIT_FAILURE;
}

/* The descriptor: scenario=boot (or one workload of scenario=mix, for
 * the duration the mix gives it), with its own keys (workload_keys.c). */
static enum kprof_exit_status run(const struct workload_run *r)
{
	return scenario_boot(ke_config->tick_hz);
}

WORKLOAD_DEFINE(boot, .name = "boot", .description = "bring the machine up, print what was found, end", .run = run);
