/*
 * paging.c - the kernel's own page tables (4-level, x86-64).
 *
 * paging_init() builds, while the loader's identity map is still active:
 *   - the direct map at KPROF_HHDM_BASE: every 2 MiB page that overlaps RAM
 *     (usable, loader, kernel, ACPI), write-back, no-execute;
 *   - the kernel image at its link address in 4 KiB pages: text read-only
 *     and executable, rodata read-only, data and bss writable, both NX;
 * then loads CR3 and switches phys_to_virt() to the direct map.  Nothing
 * else is mapped: address 0 and the rest of the low half fault.
 *
 * PAT is reprogrammed so that PWT selects write-combining (framebuffers) and
 * PCD|PWT strong uncacheable (device registers); every CPU must load the
 * same PAT (arch_mmu_init_cpu()).
 *
 * Locking: arch_map_pages() is called at boot and from kernel/mm/kva.c under
 * its lock; page-table pages are never freed.
 */
#include <arch/mmu.h>
#include <arch/sections.h>

#include "arch/x86_64/paging.h"
#include "arch/x86_64/x86.h"
#include "boot/bootinfo.h"
#include "kernel/lib/libk.h"
#include "kernel/arch_services.h"

#define PTE_P    (1ULL << 0)
#define PTE_W    (1ULL << 1)
#define PTE_PWT  (1ULL << 3)
#define PTE_PCD  (1ULL << 4)
#define PTE_PS   (1ULL << 7)
#define PTE_G    (1ULL << 8)
#define PTE_NX   (1ULL << 63)
#define PTE_ADDR 0x000FFFFFFFFFF000ULL

#define MSR_PAT 0x277u
/* PA0 WB, PA1 WC, PA2 UC-, PA3 UC, and the same again for PA4..PA7. */
#define PAT_VALUE 0x0007010600070106ULL

#define SZ_2M (2ULL << 20)

uint64_t arch_hhdm_offset;      /* 0: identity (loader tables); then HHDM */
static uint64_t kernel_pml4;    /* physical address of our PML4           */
static uint64_t kernel_phys_base;
static bool nx_ok;              /* EFER.NXE may be set                    */

static uint64_t *table_va(uint64_t pa)
{
	return phys_to_virt(pa);
}

static uint64_t pt_alloc(void)
{
	/* Until our tables run, new tables must be reachable through the
	 * loader's identity map, which every loader provides below 4 GiB. */
	uint64_t pa = arch_hhdm_offset ? pmm_alloc_pages(1) : pmm_alloc_pages_below(1, 1ULL << 32);
	if (!pa)
		return 0;
	memset(table_va(pa), 0, PAGE_SIZE);
	return pa;
}

/* The entry for va at `level` (1 = PTE, 2 = PDE), creating tables above. */
static uint64_t *pte_get(uint64_t va, int level, bool create)
{
	uint64_t table = kernel_pml4;

	for (int l = 4; l > level; l--) {
		uint64_t *e = &table_va(table)[(va >> (12 + 9 * (l - 1))) & 511];
		if (!(*e & PTE_P)) {
			if (!create)
				return 0;
			uint64_t pa = pt_alloc();
			if (!pa)
				return 0;
			*e = pa | PTE_P | PTE_W; /* leaf entries restrict access */
		} else if (*e & PTE_PS) {
			return 0; /* covered by a large page */
		}
		table = *e & PTE_ADDR;
	}
	return &table_va(table)[(va >> (12 + 9 * (level - 1))) & 511];
}

static uint64_t prot_bits(unsigned prot)
{
	uint64_t b = PTE_P | PTE_G;
	if (prot & MAP_WRITE)
		b |= PTE_W;
	if (!(prot & MAP_EXEC) && nx_ok)
		b |= PTE_NX;
	if (prot & MAP_UNCACHED)
		b |= PTE_PCD | PTE_PWT;
	else if (prot & MAP_WC)
		b |= PTE_PWT;
	return b;
}

int arch_map_pages(uintptr_t va, uint64_t pa, size_t npages, unsigned prot)
{
	uint64_t bits = prot_bits(prot);
	for (size_t i = 0; i < npages; i++) {
		uint64_t *e = pte_get(va + i * PAGE_SIZE, 1, true);
		if (!e)
			return -1;
		*e = ((pa + i * PAGE_SIZE) & PTE_ADDR) | bits;
		invlpg(va + i * PAGE_SIZE);
	}
	return 0;
}

void arch_unmap_pages(uintptr_t va, size_t npages)
{
	for (size_t i = 0; i < npages; i++) {
		uint64_t *e = pte_get(va + i * PAGE_SIZE, 1, false);
		if (e) {
			*e = 0;
			invlpg(va + i * PAGE_SIZE);
		}
	}
}

uint64_t arch_translate(uintptr_t va)
{
	uint64_t table = read_cr3() & PTE_ADDR;

	for (int l = 4; l >= 1; l--) {
		uint64_t e = table_va(table)[(va >> (12 + 9 * (l - 1))) & 511];
		if (!(e & PTE_P))
			return ~0ULL;
		uint64_t span = 1ULL << (12 + 9 * (l - 1));
		if (l == 1 || (e & PTE_PS))
			return (e & PTE_ADDR & ~(span - 1)) + (va & (span - 1));
		table = e & PTE_ADDR;
	}
	return ~0ULL;
}

uint64_t virt_to_phys(const void *p)
{
	uintptr_t va = (uintptr_t)p;
	if (va >= (uintptr_t)__kernel_start)
		return va - (uintptr_t)__kernel_start + kernel_phys_base;
	if (va >= KPROF_HHDM_BASE && va < KPROF_KVA_BASE)
		return va - KPROF_HHDM_BASE;
	return arch_translate(va);
}

static bool is_ram_type(uint32_t t)
{
	return t == BOOTINFO_MEM_USABLE || t == BOOTINFO_MEM_LOADER || t == BOOTINFO_MEM_KERNEL ||
	       t == BOOTINFO_MEM_ACPI_RECLAIM || t == BOOTINFO_MEM_ACPI_NVS;
}

static void map_direct(const struct bootinfo *bi)
{
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct bootinfo_mmap_entry *m = &bi->mmap[i];
		if (!is_ram_type(m->type))
			continue;
		for (uint64_t pa = ALIGN_DOWN(m->base, SZ_2M); pa < m->base + m->length; pa += SZ_2M) {
			uint64_t *e = pte_get(KPROF_HHDM_BASE + pa, 2, true);
			if (!e)
				ke_bug_check_ex(KPROF_OUT_OF_MEMORY, pa, 0, 0, 0, "no page for the direct map");
			*e = pa | PTE_P | PTE_W | PTE_PS | PTE_G | (nx_ok ? PTE_NX : 0);
		}
	}
}

static void map_image(uintptr_t start, uintptr_t end, unsigned prot)
{
	uint64_t pa = start - (uintptr_t)__kernel_start + kernel_phys_base;
	if (arch_map_pages(start, pa, (end - start) / PAGE_SIZE, prot))
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, start, 0, 0, 0, "no page to map the kernel image");
}

void arch_mmu_init_cpu(void)
{
	uint32_t r[4];

	wrmsr(MSR_PAT, PAT_VALUE);
	cpuid_count(0x80000001, 0, r);
	if (r[3] & (1u << 20))
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	write_cr0(read_cr0() | CR0_WP);
	write_cr4(read_cr4() | CR4_PGE);
}

void paging_init(const struct bootinfo *bi)
{
	uint32_t r[4];

	cpuid_count(0x80000001, 0, r);
	nx_ok = (r[3] & (1u << 20)) != 0;
	kernel_phys_base = bi->kernel_phys_base;
	arch_mmu_init_cpu();

	kernel_pml4 = pt_alloc();
	if (!kernel_pml4)
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, 0, 0, 0, 0, "no page for the kernel PML4");
	map_direct(bi);
	map_image((uintptr_t)__kernel_start, (uintptr_t)__text_start, MAP_WRITE);
	map_image((uintptr_t)__text_start, (uintptr_t)__text_end, MAP_EXEC);
	map_image((uintptr_t)__rodata_start, (uintptr_t)__rodata_end, MAP_READ);
	map_image((uintptr_t)__data_start, (uintptr_t)__kernel_end, MAP_WRITE);
	/* Pre-create the top-level entry of the kernel virtual area so that
	 * every CPU's view of it is the same PML4 slot from the start. */
	if (!pte_get(KPROF_KVA_BASE, 3, true))
		ke_bug_check_ex(KPROF_OUT_OF_MEMORY, 0, 0, 0, 0, "no page for the KVA tables");

	write_cr3(kernel_pml4);
	arch_hhdm_offset = KPROF_HHDM_BASE;
}

uint64_t paging_kernel_root(void)
{
	return kernel_pml4;
}
