/*
 * arch/mmu.h - the kernel's view of memory, as generic code sees it.
 *
 * Virtual layout (x86-64, 4-level paging):
 *   0x0000000000000000 ..            unmapped once the kernel's own tables
 *                                    run (a NULL dereference faults)
 *   KPROF_HHDM_BASE ..               every RAM range of the boot memory map,
 *                                    write-back, no execute ("direct map")
 *   KPROF_KVA_BASE .. +KPROF_KVA_SIZE
 *                                    kernel virtual area: stacks with guard
 *                                    pages and MMIO windows (kernel/mm/kva.c)
 *   KPROF_KERNEL_LINK_VA ..          the kernel image: text RX, rodata R,
 *                                    data and bss RW
 *
 * Until the arch boot code has loaded the kernel's own tables, the loader's
 * identity map is active and phys_to_virt() is the identity.
 */
#ifndef KPROF_ARCH_MMU_H
#define KPROF_ARCH_MMU_H

#include <stddef.h>
#include <stdint.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE  4096UL

#define KPROF_HHDM_BASE 0xFFFF800000000000ULL
#define KPROF_KVA_BASE  0xFFFFC00000000000ULL
#define KPROF_KVA_SIZE  0x0000010000000000ULL /* 1 TiB */

/* Protection and caching of a mapping. */
enum {
	MAP_READ = 0,         /* always readable                 */
	MAP_WRITE = 1u << 0,  /* writable                        */
	MAP_EXEC = 1u << 1,   /* executable (else no-execute)    */
	MAP_UNCACHED = 1u << 2, /* strong uncacheable: device registers */
	MAP_WC = 1u << 3,     /* write-combining: framebuffers   */
};

extern uint64_t arch_hhdm_offset; /* 0 until the kernel's tables run */

static inline void *phys_to_virt(uint64_t pa)
{
	return (void *)(uintptr_t)(pa + arch_hhdm_offset);
}

/* Physical address of a direct-map or kernel-image address. */
uint64_t virt_to_phys(const void *va);

/* Map/unmap 4 KiB pages in the kernel virtual area; 0 or -1 on failure
 * (no memory for a page table). */
int arch_map_pages(uintptr_t va, uint64_t pa, size_t npages, unsigned prot);
void arch_unmap_pages(uintptr_t va, size_t npages);

/* Physical address behind a kernel virtual address, or ~0 if unmapped. */
uint64_t arch_translate(uintptr_t va);

#endif /* KPROF_ARCH_MMU_H */
