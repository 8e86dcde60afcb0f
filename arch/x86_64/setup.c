/*
 * setup.c - boot CPU bring-up, from the loader hand-off to kernel_main().
 *
 * Order matters and each step depends only on the ones before it:
 *   1. per-CPU base, serial console      (report anything that goes wrong)
 *   2. descriptor tables and the IDT     (faults are now reported)
 *   3. check and copy the bootinfo       (the loader's copy may be reused)
 *   4. page allocator, kernel page tables, release loader memory
 *   5. a guarded kernel stack            (overflow hits a guard page)
 *   6. kernel_main() on that stack
 * Interrupts stay disabled throughout.
 */
#include <arch/cpu.h>
#include <arch/mmu.h>
#include <arch/percpu.h>

#include "arch/x86_64/smp/cpu_local.h"
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/entry/idt.h"
#include "arch/x86_64/paging.h"
#include "arch/x86_64/serial/serial_setup.h"
#include "arch/x86_64/x86.h"
#include "boot/bootinfo.h"
#include "kernel/arch_services.h"
#include "kernel/lib/libk.h"

#define KERNEL_STACK_SIZE (32 * 1024)

void arch_boot_main(const struct bootinfo *loader_bi);
void arch_switch_stack(uintptr_t top, void (*fn)(void *), void *arg) __attribute__((noreturn));

static struct bootinfo boot_info;                /* the kernel's own copy */
static KPRCB bsp_prcb __attribute__((aligned(64)));
struct x86_cpu x86_bsp_cpu;
static uint8_t bsp_ist[3][IST_STACK_SIZE] __attribute__((aligned(16)));

/* Both 8259 PICs masked: the local APIC is the only interrupt source. */
static void pic_mask_all(void)
{
	outb(0x21, 0xFF);
	outb(0xA1, 0xFF);
}

static void check_bootinfo(const struct bootinfo *bi)
{
	if (bi && bi->magic == BOOTINFO_MAGIC && bi->version == BOOTINFO_VERSION && bi->size == sizeof(*bi))
		return;
	kprintf("boot: the loader's hand-off is unusable: magic 0x%llx version %u size %u; this kernel needs "
		"magic 0x%llx version %u size %u (boot/bootinfo.h)\n",
		bi ? (unsigned long long)bi->magic : 0ULL, bi ? bi->version : 0, bi ? bi->size : 0,
		(unsigned long long)BOOTINFO_MAGIC, BOOTINFO_VERSION, (unsigned)sizeof(*bi));
	ke_bug_check_ex(KPROF_BAD_BOOTINFO, (uintptr_t)bi, 0, 0, 0, "bad bootinfo");
}

static void kernel_main_thunk(void *arg)
{
	kernel_main(arg);
}

void arch_boot_main(const struct bootinfo *loader_bi)
{
	raw_lock_select(); /* before any lock is taken */
	ki_prcb_init(&bsp_prcb, 0);
	bsp_prcb.ArchData = &x86_bsp_cpu;
	arch_percpu_set(&bsp_prcb);

	serial_setup_early();
	pic_mask_all();

	uint64_t ist_tops[3];
	for (int i = 0; i < 3; i++)
		ist_tops[i] = (uint64_t)(uintptr_t)(bsp_ist[i] + IST_STACK_SIZE);
	gdt_load(&x86_bsp_cpu.desc, ist_tops);
	idt_init();
	idt_load();

	check_bootinfo(loader_bi);
	memcpy(&boot_info, loader_bi, sizeof(boot_info));
	if (read_cr4() & CR4_LA57)
		ke_bug_check_ex(KPROF_BAD_BOOTINFO, read_cr4(), 0, 0, 0, "5-level paging is not supported");

	if (pmm_init(&boot_info))
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, 0, 0, 0, 0, "no room for the page bitmap below 4 GiB");
	paging_init(&boot_info);
	pmm_release_type(&boot_info, BOOTINFO_MEM_LOADER);

	if (kva_alloc_stack(KERNEL_STACK_SIZE, &kernel_main_stack))
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, 0, 0, 0, 0, "no memory for the kernel stack");
	arch_switch_stack(kernel_main_stack.top, kernel_main_thunk, &boot_info);
}
