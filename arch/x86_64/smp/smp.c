/*
 * smp.c - starting application processors with INIT-SIPI-SIPI.
 *
 * arch_smp_prepare() copies trampoline.asm to a page below 1 MiB, completes
 * its parameter block (page tables, CR4, EFER, GDT and far pointers),
 * identity-maps that page in the kernel's tables and sends INIT to every
 * other CPU, waiting the 10 ms the MP specification asks for once.
 * arch_start_cpu() then starts one CPU at a time: it fills the per-CPU part
 * of the parameter block (stack, KPRCB), sends the start-up IPI, a second
 * one after 200 us if the CPU has not answered, and waits for the CPU to
 * reach kernel code and say so.
 *
 * A CPU that answers too late finds that its slot was given up, or that
 * the parameters are another CPU's (its APIC id does not match), and halts.
 */
#include <arch/cpu.h>
#include <arch/mmu.h>
#include <arch/percpu.h>
#include <arch/smp.h>

#include "arch/x86_64/smp/cpu_local.h"
#include "arch/x86_64/entry/idt.h"
#include "arch/x86_64/apic/lapic.h"
#include "arch/x86_64/paging.h"
#include "arch/x86_64/platform_x86.h"
#include "arch/x86_64/smp/trampoline.h"
#include "arch/x86_64/x86.h"
#include "kernel/arch_services.h"
#include "kernel/lib/libk.h"

#define AP_STACK_SIZE (32 * 1024)
#define SIPI_RETRY_US 200

extern const uint8_t _binary_trampoline_bin_start[], _binary_trampoline_bin_end[];
extern char ap_entry64[], ap_park64[];

static struct arch_cpu_entry cpu_list[MADT_MAX_CPUS];
static uint32_t cpu_list_len;
static uint64_t tramp_phys;                 /* 0 when not prepared      */
static volatile struct tramp_params *tramp;
static volatile uint32_t ap_arrived;        /* APIC id of the AP that just started */
static volatile uint32_t ap_cancelled_id = ~0u;

uint32_t arch_cpu_list(const struct arch_cpu_entry **list, uint32_t *beyond_limit)
{
	uint32_t bsp = lapic_id();

	cpu_list_len = 0;
	cpu_list[cpu_list_len++] = (struct arch_cpu_entry){ .hw_id = bsp, .enabled = true };
	for (uint32_t i = 0; x86.have_madt && i < x86.madt.ncpus; i++) {
		if (x86.madt.cpu[i].apic_id == bsp || cpu_list_len >= MADT_MAX_CPUS)
			continue;
		cpu_list[cpu_list_len++] = (struct arch_cpu_entry){
			.hw_id = x86.madt.cpu[i].apic_id,
			.enabled = x86.madt.cpu[i].enabled,
		};
	}
	*list = cpu_list;
	*beyond_limit = x86.have_madt ? x86.madt.cpus_dropped : 0;
	return cpu_list_len;
}

static uint32_t acpi_uid_of(uint32_t apic_id)
{
	for (uint32_t i = 0; x86.have_madt && i < x86.madt.ncpus; i++)
		if (x86.madt.cpu[i].apic_id == apic_id)
			return x86.madt.cpu[i].acpi_uid;
	return MADT_ALL_CPUS;
}

int arch_smp_prepare(void)
{
	size_t size = (size_t)(_binary_trampoline_bin_end - _binary_trampoline_bin_start);
	uint64_t cr3 = paging_kernel_root();

	if (size > PAGE_SIZE || cr3 >= (1ULL << 32)) {
		kprintf("smp: cannot start other CPUs: trampoline %zu bytes, page tables at 0x%llx\n", size,
			(unsigned long long)cr3);
		return -1;
	}
	tramp_phys = pmm_alloc_low_page();
	if (!tramp_phys) {
		kprintf("smp: no free page below 1 MiB for the start-up code\n");
		return -1;
	}
	/* Identity map: the AP turns paging on while executing this page. */
	if (arch_map_pages(tramp_phys, tramp_phys, 1, MAP_WRITE | MAP_EXEC)) {
		pmm_free_pages(tramp_phys, 1);
		tramp_phys = 0;
		return -1;
	}
	memcpy((void *)tramp_phys, _binary_trampoline_bin_start, size);
	tramp = (volatile struct tramp_params *)(tramp_phys + TRAMP_PARAMS);
	KASSERT(tramp->magic == TRAMP_MAGIC);
	tramp->cr3 = cr3;
	tramp->cr4 = read_cr4() & ((1ULL << 5) | (1ULL << 7)); /* PAE, PGE */
	tramp->efer = rdmsr(MSR_EFER) & ((1ULL << 8) | EFER_NXE);
	tramp->gdt_base += (uint32_t)tramp_phys;
	tramp->far32_off += (uint32_t)tramp_phys;
	tramp->far64_off += (uint32_t)tramp_phys;
	tramp->entry = (uint64_t)(uintptr_t)ap_entry64;

	/* INIT every other CPU once, then the 10 ms the MP spec wants. */
	lapic_send_ipi(0, ICR_INIT | ICR_LEVEL_ASSERT | ICR_ALL_BUT_SELF);
	ke_stall_execution_processor(10000);
	return 0;
}

void arch_smp_finish(bool some_failed)
{
	if (!tramp_phys)
		return;
	if (some_failed) {
		/* A CPU may still arrive: keep the page, and send it to a stop. */
		tramp->entry = (uint64_t)(uintptr_t)ap_park64;
		return;
	}
	arch_unmap_pages(tramp_phys, 1);
	pmm_free_pages(tramp_phys, 1);
	tramp_phys = 0;
	tramp = 0;
}

static bool wait_arrival(uint32_t apic_id, uint64_t us)
{
	uint64_t start = arch_rdtsc(), limit = ke_us_to_tsc(us);
	while (__atomic_load_n(&ap_arrived, __ATOMIC_ACQUIRE) != apic_id) {
		if (arch_rdtsc() - start > limit)
			return false;
		arch_cpu_relax();
	}
	return true;
}

int arch_start_cpu(uint32_t index, KPRCB *prcb, uint64_t timeout_us)
{
	uint32_t apic_id = cpu_list[index].hw_id;
	struct x86_cpu *c = kzalloc(sizeof(*c));

	if (!c || kva_alloc_stack(AP_STACK_SIZE, &c->stack))
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, index, 0, 0, 0, "no memory to start a CPU");
	for (int i = 0; i < 3; i++)
		if (kva_alloc_stack(IST_STACK_SIZE, &c->ist[i]))
			ke_bug_check_ex(KPROF_OUT_OF_MEMORY, index, 0, 0, 0, "no memory for IST stacks");
	c->apic_id = apic_id;
	c->acpi_uid = acpi_uid_of(apic_id);
	prcb->ArchId = apic_id;
	prcb->ArchData = c;

	tramp->stack = c->stack.top;
	tramp->arg = (uint64_t)(uintptr_t)prcb;
	__atomic_store_n(&ap_arrived, ~0u, __ATOMIC_RELEASE);

	uint32_t sipi = ICR_STARTUP | (uint32_t)(tramp_phys >> 12);
	c->sipi_tsc = arch_rdtsc();
	lapic_send_ipi(apic_id, sipi);
	if (!wait_arrival(apic_id, SIPI_RETRY_US)) {
		lapic_send_ipi(apic_id, sipi);
		if (!wait_arrival(apic_id, timeout_us)) {
			/* Give the slot up; a late arrival halts itself. */
			__atomic_store_n(&ap_cancelled_id, apic_id, __ATOMIC_RELEASE);
			return -1;
		}
	}
	return 0;
}

void arch_ap_main(KPRCB *prcb)
{
	struct x86_cpu *c = prcb->ArchData;
	uint64_t ist_tops[3] = { c->ist[0].top, c->ist[1].top, c->ist[2].top };

	arch_percpu_set(prcb);
	gdt_load(&c->desc, ist_tops);
	idt_load();
	arch_mmu_init_cpu();
	lapic_init_cpu(x86.have_madt ? &x86.madt : 0, c->acpi_uid);
	if (lapic_id() != c->apic_id || __atomic_load_n(&ap_cancelled_id, __ATOMIC_ACQUIRE) == c->apic_id)
		arch_halt_forever(); /* late, or holding another CPU's parameters */
	__atomic_store_n(&ap_arrived, c->apic_id, __ATOMIC_RELEASE);
	ki_processor_start(prcb);
}

void arch_cpu_stack(KPRCB *prcb, uintptr_t *base, uintptr_t *top)
{
	const struct x86_cpu *c = prcb->ArchData;
	*base = c->stack.base;
	*top = c->stack.top;
}

const char *arch_cpu_id_name(void)
{
	return "APIC id";
}

void smp_setup_bsp(void)
{
	KPRCB *prcb = ke_get_current_prcb();

	x86_bsp_cpu.apic_id = lapic_id();
	x86_bsp_cpu.acpi_uid = acpi_uid_of(x86_bsp_cpu.apic_id);
	prcb->ArchId = x86_bsp_cpu.apic_id;
	lapic_init_cpu(x86.have_madt ? &x86.madt : 0, x86_bsp_cpu.acpi_uid);
}
