/*
 * kva.h - the kernel virtual area: stacks with guard pages, MMIO windows.
 */
#ifndef KPROF_KERNEL_KVA_H
#define KPROF_KERNEL_KVA_H

#include <stddef.h>
#include <stdint.h>

struct kstack {
	uintptr_t base;  /* lowest usable address; the page below is a guard */
	uintptr_t top;   /* one past the highest byte (initial stack pointer) */
	size_t pages;    /* usable pages                                     */
};

/* A stack of `bytes` (rounded up to pages) with an unmapped guard page
 * below it, so an overflow faults instead of corrupting memory.
 * 0 on success, -1 when out of memory. */
int kva_alloc_stack(size_t bytes, struct kstack *st);
void kva_free_stack(struct kstack *st);

/* Map physical [pa, pa+size) (device memory) and return its address, or
 * NULL.  prot is MAP_UNCACHED or MAP_WC, plus MAP_WRITE. */
void *kva_map_phys(uint64_t pa, size_t size, unsigned prot);

/* Fresh zeroed pages mapped at a new address with an unmapped guard page
 * on each side (for tests that must fault just past a buffer). */
void *kva_alloc_guarded(size_t bytes);

#endif /* KPROF_KERNEL_KVA_H */
