/*
 * heap.c - kmalloc/kfree: power-of-two size classes over whole pages.
 *
 * Small objects (up to 2 KiB) come from per-class free lists; an empty list
 * is refilled by cutting one page from the page allocator into blocks of
 * that class.  Larger requests take contiguous pages.  Every block starts
 * with a 16-byte header naming its class (or page count) and a magic value,
 * so kfree needs no size and catches double frees and wild pointers.
 * Memory is reached through the direct map.
 *
 * Invariant: a block on a free list has hdr.magic == HEAP_FREE_MAGIC; a
 * block handed out has HEAP_LIVE_MAGIC.  Lock: heap.lock (raw), never held
 * while calling anything but the page allocator.
 */
#include "kernel/mm/heap.h"

#include <arch/mmu.h>

#include "kernel/lib/libk.h"
#include "kernel/debug/panic.h"
#include "kernel/mm/pmm.h"
#include "kernel/ke/rawlock.h"

#define HEAP_LIVE_MAGIC 0x4B484541u   /* "KHEA"            */
#define HEAP_FREE_MAGIC 0x46524545u   /* "FREE"            */
#define HEAP_MIN_SHIFT 5              /* 32-byte blocks (16 header + 16) */
#define HEAP_MAX_SHIFT 11             /* 2 KiB blocks                    */
#define HEAP_CLASSES (HEAP_MAX_SHIFT - HEAP_MIN_SHIFT + 1)
#define HEAP_BIG 0xFFu                /* class value of page-sized blocks */

struct heap_hdr {
	uint32_t magic;   /* HEAP_LIVE_MAGIC or HEAP_FREE_MAGIC         */
	uint8_t class;    /* size class, or HEAP_BIG                    */
	uint8_t pad[3];
	uint32_t pages;   /* HEAP_BIG: pages including the header's     */
	uint32_t size;    /* bytes requested (statistics)               */
};
_Static_assert(sizeof(struct heap_hdr) == 16, "heap header keeps 16-byte alignment");

struct heap_free {
	struct heap_hdr hdr;
	struct heap_free *next; /* next free block of the same class */
};

static struct {
	struct heap_free *free[HEAP_CLASSES]; /* per-class free lists */
	struct heap_stats st;
	raw_lock_t lock;                      /* the above; may take pmm's inside */
} heap;

static unsigned heap_class(size_t total)
{
	unsigned c = 0;
	while ((1UL << (HEAP_MIN_SHIFT + c)) < total)
		c++;
	return c;
}

static bool heap_refill(unsigned c)
{
	uint64_t pa = pmm_alloc_pages(1);
	if (!pa)
		return false;
	size_t bs = 1UL << (HEAP_MIN_SHIFT + c);
	char *page = phys_to_virt(pa);
	for (size_t off = 0; off + bs <= PAGE_SIZE; off += bs) {
		struct heap_free *f = (struct heap_free *)(page + off);
		f->hdr.magic = HEAP_FREE_MAGIC;
		f->hdr.class = (uint8_t)c;
		f->next = heap.free[c];
		heap.free[c] = f;
	}
	heap.st.pages++;
	return true;
}

void *kmalloc(size_t size)
{
	size_t total = size + sizeof(struct heap_hdr);
	struct heap_hdr *h = NULL;

	if (size == 0 || total < size)
		return NULL;
	if (total > (1UL << HEAP_MAX_SHIFT)) {
		/* Whole pages; the header takes the first 16 bytes, so a page-sized
		 * request needs one page more: user pointers are 16-aligned. */
		size_t pages = ALIGN_UP(total, PAGE_SIZE) / PAGE_SIZE;
		uint64_t pa = pmm_alloc_pages(pages);
		if (!pa)
			return NULL;
		h = phys_to_virt(pa);
		h->class = HEAP_BIG;
		h->pages = (uint32_t)pages;
		unsigned long flags = raw_lock_irqsave(&heap.lock);
		heap.st.pages += pages;
		raw_unlock_irqrestore(&heap.lock, flags);
	} else {
		unsigned c = heap_class(total);
		unsigned long flags = raw_lock_irqsave(&heap.lock);
		if (heap.free[c] || heap_refill(c)) {
			struct heap_free *f = heap.free[c];
			heap.free[c] = f->next;
			h = &f->hdr;
		}
		raw_unlock_irqrestore(&heap.lock, flags);
		if (!h)
			return NULL;
	}
	h->magic = HEAP_LIVE_MAGIC;
	h->size = (uint32_t)MIN(size, 0xFFFFFFFFu);

	unsigned long flags = raw_lock_irqsave(&heap.lock);
	heap.st.allocs++;
	heap.st.bytes_live += h->size;
	raw_unlock_irqrestore(&heap.lock, flags);
	return h + 1;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);
	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(void *p)
{
	if (!p)
		return;
	struct heap_hdr *h = (struct heap_hdr *)p - 1;
	if (((uintptr_t)p & 15) || h->magic != HEAP_LIVE_MAGIC)
		ke_bug_check_ex(KPROF_ASSERTION_FAILED, (uintptr_t)p, h->magic, 0, 0,
				"kfree(%p): not a live heap block (double free or wild pointer)", p);

	unsigned long flags = raw_lock_irqsave(&heap.lock);
	heap.st.frees++;
	heap.st.bytes_live -= h->size;
	h->magic = HEAP_FREE_MAGIC;
	if (h->class == HEAP_BIG) {
		size_t pages = h->pages;
		heap.st.pages -= pages;
		raw_unlock_irqrestore(&heap.lock, flags);
		pmm_free_pages(virt_to_phys(h), pages);
		return;
	}
	struct heap_free *f = (struct heap_free *)h;
	f->next = heap.free[h->class];
	heap.free[h->class] = f;
	raw_unlock_irqrestore(&heap.lock, flags);
}

void heap_get_stats(struct heap_stats *st)
{
	unsigned long flags = raw_lock_irqsave(&heap.lock);
	*st = heap.st;
	raw_unlock_irqrestore(&heap.lock, flags);
}
