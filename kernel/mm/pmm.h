/*
 * pmm.h - the physical page allocator.
 *
 * One bit per 4 KiB page from address 0 to the top of usable memory; a set
 * bit is a page in use (or not RAM).  Allocations are contiguous runs,
 * optionally below an address limit.  The first MiB is kept out of general
 * allocation (legacy areas, and the SMP start-up trampoline needs a page
 * there: pmm_alloc_low_page()).
 */
#ifndef KPROF_KERNEL_PMM_H
#define KPROF_KERNEL_PMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "boot/bootinfo.h"

#define PMM_LOW_LIMIT 0x100000ULL /* below this: only pmm_alloc_low_page() */

struct pmm_stats {
	uint64_t total_pages;  /* usable pages in the memory map, kernel's and loader's */
	uint64_t free_pages;   /* pages free now                                      */
	uint64_t top;          /* first address past the highest page tracked        */
	uint64_t bitmap_phys;  /* where the bitmap lives                              */
	uint64_t bitmap_bytes; /* its size                                            */
};

/* Build the bitmap from the memory map; 0 on success, -1 if no room. */
int pmm_init(const struct bootinfo *bi);

/* Free the pages of every map entry of the given type (LOADER once the
 * kernel runs on its own page tables). */
void pmm_release_type(const struct bootinfo *bi, uint32_t type);

/* n contiguous pages; returns the physical address or 0 when none. */
uint64_t pmm_alloc_pages(size_t n);
uint64_t pmm_alloc_pages_below(size_t n, uint64_t limit);
uint64_t pmm_alloc_low_page(void);
/* on: pmm_alloc_pages() above 4 GiB first (mm.high_first=on; a test of
 * code that must ask for memory below 4 GiB). */
void pmm_set_high_first(bool on);

/* Free n pages at pa; false (nothing changed) if any was not allocated
 * or lies outside the tracked range. */
bool pmm_free_pages(uint64_t pa, size_t n);

void pmm_get_stats(struct pmm_stats *st);

#endif /* KPROF_KERNEL_PMM_H */
