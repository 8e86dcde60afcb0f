/*
 * xhci_mem.c - memory the controller reads and writes: whole pages from
 * the physical allocator (so 64-byte alignment, PAGESIZE alignment and
 * the 64 KiB boundary rule hold for anything up to a page), below the
 * controller's reach (4 GiB without a trusted HCCPARAMS1.AC64:
 * xhci_quirks.c), zeroed, and used through the direct map.
 *
 * With usb.dmalog=on (hc->dma_log) every region the controller is given
 * is printed once, "xhci: DMA <kind> 0x<first>-0x<last>": its own pages
 * (rings, contexts, DCBAA, ERST, scratchpads) as they are allocated, and
 * each transfer buffer not inside one already printed.
 */
#include "kernel/usb/xhci/xhci.h"

#include <arch/mmu.h>

#include "kernel/console/console.h"
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
	if (hc->dma_log)
		kprintf("xhci: DMA pages 0x%llx-0x%llx\n", (unsigned long long)pa,
			(unsigned long long)(pa + pages * PAGE_SIZE - 1));
	return va;
}

void xhci_dma_note_buffer(struct usb_hci *hc, uint64_t phys, uint32_t len)
{
	const unsigned n = sizeof(hc->dma_logged) / sizeof(hc->dma_logged[0]);
	uint64_t end = phys + len;
	unsigned i, free_at = n;

	if (!hc->dma_log || !len)
		return;
	for (i = 0; i < n; i++) {
		if (hc->dma_logged[i][1] == 0 && free_at == n)
			free_at = i;
		if (phys >= hc->dma_logged[i][0] && end <= hc->dma_logged[i][1])
			return;
	}
	kprintf("xhci: DMA buffer 0x%llx-0x%llx\n", (unsigned long long)phys, (unsigned long long)(end - 1));
	if (free_at == n) { /* table full: the oldest range gives way */
		memmove(hc->dma_logged[0], hc->dma_logged[1], sizeof(hc->dma_logged[0]) * (n - 1));
		free_at = n - 1;
	}
	hc->dma_logged[free_at][0] = phys;
	hc->dma_logged[free_at][1] = end;
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
