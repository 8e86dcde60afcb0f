/*
 * paging.h - arch-internal page-table set-up.
 */
#ifndef KPROF_ARCH_PAGING_H
#define KPROF_ARCH_PAGING_H

#include <stdint.h>

struct bootinfo;

/* Build the kernel's page tables from the memory map and switch to them. */
void paging_init(const struct bootinfo *bi);
/* Per-CPU MMU state: PAT, NX, write protect, global pages. */
void arch_mmu_init_cpu(void);
/* Physical address of the kernel's PML4 (for other CPUs' CR3). */
uint64_t paging_kernel_root(void);

#endif
