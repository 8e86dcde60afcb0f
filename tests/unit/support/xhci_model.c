/*
 * xhci_model.c - the xHCI controller model behind the driver's unit
 * tests (xhci_model.h says what it plays): memory for the driver (it
 * replaces the page allocator and heap), registers and their side effects
 * (it replaces kernel/usb/xhci/pci/xhci_hw.c), events.  Commands and transfer rings
 * are run in xhci_model_slots.c.
 */
#include "support/xhci_model.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/mm/heap.h"
#include "kernel/mm/pmm.h"

struct xhci_model model;
uint8_t model_bar[0x4000] __attribute__((aligned(4096)));

/* ------------------------------------------------ memory for the driver */

static void *pages[512];
static unsigned npages;

uint64_t pmm_alloc_pages_below(size_t n, uint64_t limit)
{
	void *p = aligned_alloc(4096, n * 4096);
	if (limit > model.alloc_limit_max)
		model.alloc_limit_max = limit;
	assert_true(npages < 512);
	pages[npages++] = p;
	return (uint64_t)(uintptr_t)p;
}

bool pmm_free_pages(uint64_t pa, size_t n)
{
	for (unsigned i = 0; i < npages; i++) {
		if (pages[i] == (void *)(uintptr_t)pa) {
			free(pages[i]);
			pages[i] = pages[--npages];
			return true;
		}
	}
	return false;
}

void model_free_pages(void)
{
	while (npages)
		free(pages[--npages]);
}

void *kzalloc(size_t size)
{
	return calloc(1, size);
}

void kfree(void *p)
{
	free(p);
}

/* ------------------------------------------------------------ registers */

uint32_t *model_reg(unsigned off)
{
	return (uint32_t *)(model_bar + off);
}

uint64_t model_reg64(unsigned off)
{
	return *model_reg(off) | (uint64_t)*model_reg(off + 4) << 32;
}

void model_post_event(uint64_t param, uint32_t cc, uint32_t residual, uint32_t type, uint32_t slot, uint32_t ep)
{
	struct xhci_erst_entry *erst = (void *)(uintptr_t)model_reg64(MODEL_RT + XHCI_IR0 + XHCI_ERSTBA);
	struct xhci_trb *t = (struct xhci_trb *)(uintptr_t)erst->base + model.ev_idx;

	t->param = param;
	t->status = cc << 24 | residual;
	t->control = TRB_TYPE(type) | TRB_SLOT(slot) | TRB_EP(ep) | model.ev_pcs;
	if (++model.ev_idx == erst->size) {
		model.ev_idx = 0;
		model.ev_pcs ^= 1;
	}
}

uint32_t *model_out_ctx(struct usb_hci *hc, unsigned slot, unsigned dci)
{
	uint64_t *dcbaa = (uint64_t *)(uintptr_t)model_reg64(MODEL_OP + XHCI_DCBAAP);
	return (uint32_t *)(uintptr_t)(dcbaa[slot] + (uint64_t)model.csz * dci);
}

/* ------------------------------------------------ register side effects */

static uint32_t model_read(unsigned off)
{
	uint32_t *r = model_reg(off);

	if (off == MODEL_XECP && (*r & USBLEGSUP_OS_OWNED) && (*r & USBLEGSUP_BIOS_OWNED) &&
	    ++model.legsup_reads >= model.bios_release_after)
		*r &= ~USBLEGSUP_BIOS_OWNED;
	if (off == MODEL_OP + XHCI_USBSTS) {
		if (model.halting && ++model.sts_reads >= model.halt_after) {
			*r |= USBSTS_HCH;
			model.halting = false;
		}
		if (model.cnr && ++model.sts_reads >= model.cnr_after) {
			*r &= ~USBSTS_CNR;
			model.cnr = false;
		}
	}
	if (off == MODEL_OP + XHCI_USBCMD && model.resetting && ++model.cmd_reads >= model.reset_after) {
		*r &= ~USBCMD_HCRST;
		model.resetting = false;
		model.sts_reads = 0;
	}
	for (unsigned p = 1; p <= MODEL_PORTS; p++) {
		if (off == MODEL_OP + XHCI_PORTSC(p) && model.connect_at_us[p] && model.now_us >= model.connect_at_us[p]) {
			*r |= PORTSC_CCS | PORTSC_CSC;
			model.connect_at_us[p] = 0;
		}
		if (off == MODEL_OP + XHCI_PORTSC(p) && model.port_resetting[p] &&
		    ++model.port_reads[p] >= model.port_reset_after) {
			bool warm = *r & PORTSC_WPR;
			*r &= ~(PORTSC_PR | PORTSC_WPR | (0xFu << 10) | (0xFu << PORTSC_PLS_SHIFT));
			model.port_resetting[p] = false;
			if (!warm && model.hot_reset_fails[p]) {
				/* the link falls into SS.Inactive instead of U0 */
				*r = (*r & ~PORTSC_PED) | PORTSC_PRC | PLS_SS_INACTIVE << PORTSC_PLS_SHIFT;
				continue;
			}
			if (warm) /* the device trains and connects */
				*r = (*r & ~PORTSC_CAS) | PORTSC_CCS;
			*r |= PORTSC_PED | PORTSC_PRC | (warm ? PORTSC_WRC : 0) | model.port_speed[p] << 10;
		}
	}
	return *r;
}

static void write_crcr(uint32_t v)
{
	uint32_t *r = model_reg(MODEL_OP + XHCI_CRCR);

	if (v & CRCR_CA) {
		if (*r & CRCR_CRR) { /* the command in progress is aborted */
			model_post_event(model.cmd_deq, CC_COMMAND_ABORTED, 0, TRB_COMMAND_COMPLETION, 0, 0);
			model.cmd_deq += sizeof(struct xhci_trb);
		}
		*r &= ~CRCR_CRR;
		model_post_event(model.cmd_deq, CC_COMMAND_RING_STOPPED, 0, TRB_COMMAND_COMPLETION, 0, 0);
		return;
	}
	*r = v & ~0x3Fu;
	model.cmd_deq = (model.cmd_deq & ~0xFFFFFFFFull) | (v & ~0x3Fu);
	model.cmd_ccs = v & CRCR_RCS;
}

static void write_portsc(unsigned off, uint32_t v)
{
	uint32_t *r = model_reg(off), old = *r;
	unsigned p = (off - MODEL_OP - 0x400) / 0x10 + 1;

	if (v & PORTSC_PED)
		model.ped_written++; /* would disable the port */
	*r = (old & ~(v & PORTSC_CHANGE_BITS) & ~PORTSC_PP) | (v & PORTSC_PP) | (v & (PORTSC_PR | PORTSC_WPR));
	if (v & (PORTSC_PR | PORTSC_WPR)) {
		if (v & PORTSC_WPR)
			model.warm_resets[p]++;
		else
			model.hot_resets[p]++;
		model.port_resetting[p] = true;
		model.port_reads[p] = 0;
	}
}

static void model_write(unsigned off, uint32_t v)
{
	uint32_t *r = model_reg(off), old = *r;

	if (off == MODEL_XECP + USBLEGCTLSTS) {
		*r = (v & ~USBLEGCTLSTS_SMI_EVENTS) | (old & USBLEGCTLSTS_SMI_EVENTS & ~v);
	} else if (off == MODEL_OP + XHCI_USBCMD) {
		*r = v;
		if ((old & USBCMD_RS) && !(v & USBCMD_RS)) {
			model.halting = true;
			model.sts_reads = 0;
		}
		if (v & USBCMD_HCRST) {
			model.resetting = true;
			model.cmd_reads = 0;
			model.cnr = true;
			*model_reg(MODEL_OP + XHCI_USBSTS) |= USBSTS_CNR;
		}
		if (v & USBCMD_RS)
			*model_reg(MODEL_OP + XHCI_USBSTS) &= ~USBSTS_HCH;
	} else if (off == MODEL_OP + XHCI_USBSTS) {
		*r = old & ~(v & (USBSTS_HSE | USBSTS_EINT | USBSTS_PCD)); /* RW1C */
	} else if (off == MODEL_OP + XHCI_CRCR) {
		write_crcr(v);
	} else if (off == MODEL_OP + XHCI_CRCR + 4) {
		if (!(*model_reg(MODEL_OP + XHCI_CRCR) & CRCR_CRR))
			model.cmd_deq = (model.cmd_deq & 0xFFFFFFFFull) | (uint64_t)v << 32;
	} else if (off == MODEL_DB) {
		model_run_commands();
	} else if (off > MODEL_DB && off < MODEL_DB + 4 * (MODEL_SLOTS + 1)) {
		model_run_transfers((off - MODEL_DB) / 4, v & 0xFF);
	} else if (off >= MODEL_OP + 0x400 && off < MODEL_OP + 0x400 + 0x10 * MODEL_PORTS && (off & 0xF) == 0) {
		write_portsc(off, v);
	} else {
		*r = v;
	}
}

uint32_t xhci_read32(const volatile void *p)
{
	model.now_us++;
	return model_read((unsigned)((const volatile uint8_t *)p - model_bar));
}

void xhci_write32(volatile void *p, uint32_t v)
{
	model_write((unsigned)((volatile uint8_t *)p - model_bar), v);
}

uint64_t xhci_time_us(void)
{
	return model.now_us;
}

void xhci_delay_us(uint64_t us)
{
	model.now_us += us;
}

/* ---------------------------------------------------------------- setup */

void model_reset(struct usb_hci *hc, unsigned csz)
{
	memset(model_bar, 0, sizeof(model_bar));
	memset(&model, 0, sizeof(model));
	memset(hc, 0, sizeof(*hc));
	model.csz = csz;
	model.bios_release_after = 50;
	model.halt_after = 20;
	model.reset_after = 30;
	model.cnr_after = 10;
	model.port_reset_after = 40;
	model.answer_commands = true;
	model.ev_pcs = 1;

	*model_reg(XHCI_CAPLENGTH) = MODEL_OP | 0x0100u << 16;
	*model_reg(XHCI_HCSPARAMS1) = MODEL_SLOTS | 1u << 8 | (uint32_t)MODEL_PORTS << 24;
	*model_reg(XHCI_HCSPARAMS2) = (1u << 21) | (1u << 27); /* 33 scratchpad buffers */
	*model_reg(XHCI_HCCPARAMS1) = HCCPARAMS1_AC64 | (csz == 64 ? HCCPARAMS1_CSZ : 0) | (MODEL_XECP / 4u) << 16;
	*model_reg(XHCI_DBOFF) = MODEL_DB;
	*model_reg(XHCI_RTSOFF) = MODEL_RT;
	/* Legacy support (firmware owns it, SMIs on), then two protocols. */
	*model_reg(MODEL_XECP) = XECP_LEGACY | 4u << 8 | USBLEGSUP_BIOS_OWNED;
	*model_reg(MODEL_XECP + 4) = USBLEGCTLSTS_SMI_ENABLES | USBLEGCTLSTS_SMI_EVENTS;
	*model_reg(MODEL_XECP + 0x10) = XECP_PROTOCOL | 8u << 8 | 0x0300u << 16;
	*model_reg(MODEL_XECP + 0x18) = 1 | 2u << 8;
	*model_reg(MODEL_XECP + 0x30) = XECP_PROTOCOL | 0x0200u << 16;
	*model_reg(MODEL_XECP + 0x38) = 3 | 2u << 8;
	*model_reg(MODEL_OP + XHCI_USBCMD) = USBCMD_RS; /* the firmware left it running */
	*model_reg(MODEL_OP + XHCI_PAGESIZE) = 1;

	hc->cap = model_bar;
	hc->op = model_bar + MODEL_OP;
	hc->rt = model_bar + MODEL_RT;
	hc->db = (volatile uint32_t *)(model_bar + MODEL_DB);
	hc->hcsparams1 = *model_reg(XHCI_HCSPARAMS1);
	hc->hcsparams2 = *model_reg(XHCI_HCSPARAMS2);
	hc->hccparams1 = *model_reg(XHCI_HCCPARAMS1);
	hc->csz = csz;
	hc->max_slots = MODEL_SLOTS;
	hc->max_ports = MODEL_PORTS;
	hc->dma_limit = ~0ull;
}

void model_bring_up(struct usb_hci *hc)
{
	assert_int_equal(xhci_halt(hc), USB_OK);
	assert_int_equal(xhci_reset(hc), USB_OK);
	assert_int_equal(xhci_start(hc), USB_OK);
}
