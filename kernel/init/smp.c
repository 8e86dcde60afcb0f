/*
 * smp.c - bringing up every CPU the firmware lists.
 *
 * The boot CPU starts the others one at a time through arch code (which
 * owns the start-up protocol) and does not wait for each to finish its
 * own set-up: started CPUs measure their clocks in parallel, and the boot
 * CPU waits for all of them at the end.  A CPU that does not answer within
 * SMP_START_TIMEOUT_US is reported and left out; CPUs the firmware lists as
 * disabled, CPUs beyond cpus=, and CPUs beyond KPROF_MAX_CPUS are counted
 * and reported too.
 *
 * KiProcessorBlock[n] is written before ke_number_processors becomes n + 1
 * (release order), so any CPU that sees the count sees the block.
 */
#include "kernel/init/smp.h"

#include <arch/cpu.h>
#include <arch/mmu.h>
#include <arch/smp.h>

#include "kernel/ke/time/clock.h"
#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/muldiv.h"
#include "kernel/debug/panic.h"
#include "kernel/mm/pmm.h"
#include "kernel/lib/printf.h"
#include "kernel/profile/source.h"
#include "kernel/sched/ki.h"
#include "kernel/ke/time/time.h"

#define SMP_START_TIMEOUT_US  500000  /* per CPU, to reach kernel code     */
#define SMP_ONLINE_TIMEOUT_US 5000000 /* all started CPUs to finish set-up */

KPRCB *KiProcessorBlock[KPROF_MAX_CPUS];
volatile uint32_t ke_number_processors;
static volatile uint32_t cpus_online;

void ki_prcb_init(KPRCB *prcb, uint32_t number)
{
	memset(prcb, 0, sizeof(*prcb));
	prcb->Self = prcb;
	prcb->Number = number;
	ki_dpc_data_init(&prcb->DpcData);
	ki_ready_queue_init(prcb);
}

uint32_t ke_processors_online(void)
{
	return __atomic_load_n(&cpus_online, __ATOMIC_ACQUIRE);
}

static void print_mhz(char *buf, size_t size, uint64_t hz)
{
	ksnprintf(buf, size, "%llu.%03llu MHz", (unsigned long long)(hz / 1000000),
		  (unsigned long long)(hz % 1000000) / 1000);
}

static void report(KPRCB *prcb)
{
	char tsc[32], timer[32];
	int64_t ppm = clock_error_ppm(prcb->TscHz, ke_tsc_hz);

	print_mhz(tsc, sizeof(tsc), prcb->TscHz);
	print_mhz(timer, sizeof(timer), prcb->TimerHz);
	kprintf("cpu %u: %s %u online, TSC %s (%+lld ppm from the boot CPU's), APIC timer %s\n", prcb->Number,
		arch_cpu_id_name(), prcb->ArchId, tsc, (long long)ppm, timer);
}

static void processor_common(KPRCB *prcb)
{
	arch_cpu_measure(prcb);
	ke_clock_start_cpu();
	ki_profile_source_start_cpu();
	prcb->OnlineTsc = arch_rdtsc();
	report(prcb);
	__atomic_fetch_add(&cpus_online, 1, __ATOMIC_RELEASE);
}

void ki_processor_start_boot(void)
{
	KPRCB *prcb = ke_get_current_prcb();

	KiProcessorBlock[0] = prcb;
	__atomic_store_n(&ke_number_processors, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&cpus_online, 0, __ATOMIC_RELEASE); /* counting starts here */
	processor_common(prcb);
	arch_irq_enable();
}

void ki_processor_start(KPRCB *prcb)
{
	uintptr_t base, top;

	processor_common(prcb);
	arch_cpu_stack(prcb, &base, &top);
	ki_idle_thread_start(prcb, base, top); /* this context is its idle thread */
}

static KPRCB *prcb_alloc(uint32_t number)
{
	uint64_t pa = pmm_alloc_pages(ALIGN_UP(sizeof(KPRCB), PAGE_SIZE) / PAGE_SIZE);
	if (!pa)
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, number, 0, 0, 0, "no memory for a KPRCB");
	KPRCB *prcb = phys_to_virt(pa);
	ki_prcb_init(prcb, number);
	return prcb;
}

void ke_start_processors(uint32_t limit)
{
	const struct arch_cpu_entry *list;
	uint32_t beyond_max, disabled = 0, left_off = 0, failed = 0;
	uint32_t n = arch_cpu_list(&list, &beyond_max);
	uint64_t t0 = arch_rdtsc();

	if (n > 1 && (limit == 0 || limit > 1) && arch_smp_prepare() == 0) {
		for (uint32_t i = 1; i < n; i++) {
			if (!list[i].enabled) {
				disabled++;
				continue;
			}
			uint32_t number = ke_number_processors;
			if ((limit && number >= limit) || number >= KPROF_MAX_CPUS) {
				left_off++;
				continue;
			}
			KPRCB *prcb = prcb_alloc(number);
			if (arch_start_cpu(i, prcb, SMP_START_TIMEOUT_US)) {
				kprintf("smp: CPU with %s %u did not start within %llu ms; continuing without it\n",
					arch_cpu_id_name(), list[i].hw_id,
					(unsigned long long)SMP_START_TIMEOUT_US / 1000);
				failed++;
				continue; /* its KPRCB stays allocated: a late CPU may still touch it */
			}
			KiProcessorBlock[number] = prcb;
			__atomic_store_n(&ke_number_processors, number + 1, __ATOMIC_RELEASE);
		}
		arch_smp_finish(failed != 0);
	} else {
		for (uint32_t i = 1; i < n; i++)
			list[i].enabled ? left_off++ : disabled++;
	}

	/* Wait for the started CPUs to finish their own set-up. */
	uint64_t limit_tsc = ke_us_to_tsc(SMP_ONLINE_TIMEOUT_US), start = arch_rdtsc();
	while (ke_processors_online() < ke_number_processors && arch_rdtsc() - start < limit_tsc)
		arch_cpu_relax();

	char extra[200];
	size_t len = 0;
	extra[0] = '\0';
	if (disabled)
		len += (size_t)ksnprintf(extra + len, sizeof(extra) - len, ", %u disabled in firmware", disabled);
	if (left_off)
		len += (size_t)ksnprintf(extra + len, sizeof(extra) - len, ", %u left off by cpus=%u", left_off, limit);
	if (beyond_max)
		len += (size_t)ksnprintf(extra + len, sizeof(extra) - len, ", %u beyond the %u supported", beyond_max,
					 KPROF_MAX_CPUS);
	if (failed)
		len += (size_t)ksnprintf(extra + len, sizeof(extra) - len, ", %u did not start", failed);
	if (ke_processors_online() < ke_number_processors)
		ksnprintf(extra + len, sizeof(extra) - len, ", %u started but never came online",
			  ke_number_processors - ke_processors_online());
	kprintf("smp: %u of %u listed CPUs online in %llu ms%s\n", ke_processors_online(), n + beyond_max,
		(unsigned long long)ke_tsc_to_us(arch_rdtsc() - t0) / 1000, extra);
}
