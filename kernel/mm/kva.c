/*
 * kva.c - kernel virtual area allocator.
 *
 * The area [KPROF_KVA_BASE, +KPROF_KVA_SIZE) is handed out by a bump
 * pointer; every allocation is preceded by one unmapped guard page (and
 * followed by the next allocation's guard), so running off either end of a
 * stack or a guarded buffer faults.  Freed stacks go on a short list and
 * are reused by the next stack of the same size, pages and all.
 *
 * Locking: kva.lock (raw) around the bump pointer, the free list and the
 * page-table updates it makes.  Order (docs/locking.md): taken under the
 * dispatcher lock (a dead thread's stack is freed right after a switch);
 * takes the page allocator's lock inside, nothing else.
 */
#include "kernel/mm/kva.h"

#include <arch/mmu.h>

#include "kernel/lib/libk.h"
#include "kernel/mm/pmm.h"
#include "kernel/ke/rawlock.h"

#define KVA_FREE_MAX 64 /* freed stacks kept for reuse */

static struct {
	uintptr_t next;                     /* bump pointer          */
	struct kstack free[KVA_FREE_MAX];   /* freed stacks          */
	unsigned nfree;                     /* entries in free[]     */
	raw_lock_t lock;                    /* the above; may take pmm's inside */
} kva = { .next = KPROF_KVA_BASE };

/* Reserve guard + pages of address space; returns the first usable page. */
static uintptr_t kva_reserve(size_t pages)
{
	uintptr_t va = 0;
	size_t span = (pages + 1) * PAGE_SIZE;

	if (kva.next + span <= KPROF_KVA_BASE + KPROF_KVA_SIZE) {
		va = kva.next + PAGE_SIZE; /* skip the guard page */
		kva.next += span;
	}
	return va;
}

/* Back [va, va + pages) with fresh pages; undo on failure. */
static int kva_populate(uintptr_t va, size_t pages, unsigned prot)
{
	for (size_t i = 0; i < pages; i++) {
		uint64_t pa = pmm_alloc_pages(1);
		if (!pa || arch_map_pages(va + i * PAGE_SIZE, pa, 1, prot)) {
			if (pa)
				pmm_free_pages(pa, 1);
			for (size_t j = 0; j < i; j++) {
				pmm_free_pages(arch_translate(va + j * PAGE_SIZE), 1);
				arch_unmap_pages(va + j * PAGE_SIZE, 1);
			}
			return -1;
		}
		memset((void *)(va + i * PAGE_SIZE), 0, PAGE_SIZE);
	}
	return 0;
}

int kva_alloc_stack(size_t bytes, struct kstack *st)
{
	size_t pages = ALIGN_UP(bytes, PAGE_SIZE) / PAGE_SIZE;
	unsigned long flags = raw_lock_irqsave(&kva.lock);
	int rc = 0;

	for (unsigned i = 0; i < kva.nfree; i++) {
		if (kva.free[i].pages == pages) {
			*st = kva.free[i];
			kva.free[i] = kva.free[--kva.nfree];
			raw_unlock_irqrestore(&kva.lock, flags);
			return 0;
		}
	}
	uintptr_t va = kva_reserve(pages);
	if (!va || kva_populate(va, pages, MAP_WRITE))
		rc = -1;
	else
		*st = (struct kstack){ .base = va, .top = va + pages * PAGE_SIZE, .pages = pages };
	raw_unlock_irqrestore(&kva.lock, flags);
	return rc;
}

void kva_free_stack(struct kstack *st)
{
	unsigned long flags = raw_lock_irqsave(&kva.lock);
	if (kva.nfree < KVA_FREE_MAX) {
		kva.free[kva.nfree++] = *st;
	} else {
		/* List full: give the pages back, keep the address space. */
		for (size_t i = 0; i < st->pages; i++) {
			uintptr_t va = st->base + i * PAGE_SIZE;
			pmm_free_pages(arch_translate(va), 1);
			arch_unmap_pages(va, 1);
		}
	}
	raw_unlock_irqrestore(&kva.lock, flags);
	st->base = st->top = 0;
	st->pages = 0;
}

void *kva_map_phys(uint64_t pa, size_t size, unsigned prot)
{
	uint64_t first = ALIGN_DOWN(pa, PAGE_SIZE);
	size_t pages = (ALIGN_UP(pa + size, PAGE_SIZE) - first) / PAGE_SIZE;
	unsigned long flags = raw_lock_irqsave(&kva.lock);
	uintptr_t va = kva_reserve(pages);

	if (va && arch_map_pages(va, first, pages, prot)) {
		arch_unmap_pages(va, pages);
		va = 0;
	}
	raw_unlock_irqrestore(&kva.lock, flags);
	return va ? (void *)(va + (pa - first)) : NULL;
}

void *kva_alloc_guarded(size_t bytes)
{
	size_t pages = ALIGN_UP(bytes, PAGE_SIZE) / PAGE_SIZE;
	unsigned long flags = raw_lock_irqsave(&kva.lock);
	uintptr_t va = kva_reserve(pages);

	/* The page after the buffer is the next reservation's guard page. */
	if (va && kva_populate(va, pages, MAP_WRITE))
		va = 0;
	raw_unlock_irqrestore(&kva.lock, flags);
	return (void *)va;
}
