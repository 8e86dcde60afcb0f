/*
 * xhci_mem.c - memory the controller reads and writes: whole pages from
 * the physical allocator (so 64-byte alignment, PAGESIZE alignment and
 * the 64 KiB boundary rule hold for anything up to a page), below the
 * controller's reach (4 GiB without HCCPARAMS1.AC64), zeroed, and used
 * through the direct map.
 */
#include "kernel/usb/xhci/xhci.h"

#include <arch/mmu.h>

#include "kernel/lib/libk.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/pmm.h"

void *xhci_alloc(struct usb_hci *hc, size_t pages, uint64_t *phys)
{
	uint64_t pa = pmm_alloc_pages_below(pages, hc->dma_limit);
	void *va;

	if (!pa)
		return NULL;
	va = phys_to_virt(pa);
	memset(va, 0, pages * PAGE_SIZE);
	*phys = pa;
	return va;
}

void xhci_free(void *va, size_t pages)
{
	if (va)
		pmm_free_pages(virt_to_phys(va), pages);
}

struct xhci_ring *xhci_ring_alloc(struct usb_hci *hc, bool link)
{
	struct xhci_ring *r = kzalloc(sizeof(*r));
	uint64_t phys;
	void *trbs;

	if (!r)
		return NULL;
	trbs = xhci_alloc(hc, 1, &phys);
	if (!trbs) {
		kfree(r);
		return NULL;
	}
	xhci_ring_init(r, trbs, phys, PAGE_SIZE / sizeof(struct xhci_trb), link);
	return r;
}
