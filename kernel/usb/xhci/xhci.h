/*
 * xhci.h - the xHCI driver's own view: the controller, its rings and the
 * functions the xhci_*.c files share.  The USB layer sees only hci.h.
 *
 * The host-controller layer (kernel/usb/xhci/), the lowest of the USB
 * stack's three (then core/, then storage/).  Its files are the xHCI
 * protocol (rings, commands, contexts, ports, transfers, reset, quirks);
 * kernel/usb/xhci/pci/ is its machine side: register access and time
 * (xhci_hw.c, which the unit tests' model replaces), finding and opening
 * the controller on PCI (xhci_open.c), Intel port routing, the boot-time
 * firmware hand-off of every controller (xhci_takeover.c) and the
 * driver's keys.
 *  - It offers kernel/usb/hci.h and nothing else: this header and
 *    xhci_regs.h are private to the folder (and the driver's unit tests).
 *  - Below it, it calls kernel/pci (finding and enabling the function),
 *    kernel/mm (pages, heap, kernel virtual addresses), kernel/ke/time/time.h,
 *    the console and <arch/...>.  It includes nothing from the layers
 *    above (core/, storage/) or from probe/; the one name it takes from
 *    above is usb_status_name(), which hci.h declares with enum
 *    usb_status and the core defines (core/usb_status.c): the words are
 *    the USB stack's.  tools/check-layering.sh checks the includes.
 *
 * Invariants every file keeps:
 *  - One thread drives a controller at a time (hci.h); nothing here locks.
 *  - Software owns a producer ring's TRB at the enqueue index until it
 *    writes the TRB's cycle bit equal to the ring's cycle state (PCS);
 *    from then on it belongs to the controller.  The event ring is the
 *    other way round: a TRB whose cycle bit equals the consumer cycle
 *    state (CCS) is software's to read.
 *  - Everything the controller reads or writes (rings, contexts, DCBAA,
 *    scratchpads, data buffers) is physically contiguous memory in the
 *    direct map, below 4 GiB unless HCCPARAMS1.AC64 says otherwise.
 *  - Every wait is bounded; when it expires the driver prints one line
 *    naming what did not answer and returns USB_TIMEOUT.
 */
#ifndef KPROF_KERNEL_XHCI_H
#define KPROF_KERNEL_XHCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/pci/pci.h"
#include "kernel/usb/hci.h"
#include "kernel/usb/xhci/xhci_regs.h"

#define XHCI_RING_TRBS   256 /* one page of TRBs per ring              */
#define XHCI_MAX_PORTS   255
#define XHCI_MAX_SLOTS   255

/* Timeouts, ms (docs/xhci.md says what each message means). */
#define XHCI_HANDOFF_MS  HCI_HANDOFF_MS /* firmware lets go (hci.h)  */
#define XHCI_HALT_MS     100  /* USBSTS.HCH after R/S = 0 (spec: 16)  */
#define XHCI_RESET_MS    10000 /* HCRST and CNR clear (Linux: 10 s)   */
#define XHCI_CONNECT_MS  3000 /* a device shows up after start (Linux) */
#define XHCI_POLLING_MS  360  /* USB 3 link may sit in Polling (USB 3.2
                               * 7.5.4: tPollingLFPSTimeout)        */
#define XHCI_PORT_RESET_MS 500
#define XHCI_COMMAND_MS  1000
#define XHCI_CONTROL_MS  2000

/* A producer ring (command, transfer: link TRB last, Toggle Cycle) or the
 * event ring (no link TRB; wraps by the ERST segment size). */
struct xhci_ring {
	struct xhci_trb *trb;  /* size TRBs, in the direct map            */
	uint64_t phys;         /* of trb[0]                               */
	uint32_t size;         /* TRBs, the link TRB included             */
	uint32_t index;        /* enqueue (producer) or dequeue (event)   */
	uint32_t cycle;        /* PCS (producer) or CCS (event), 0 or 1   */
	bool link;             /* producer ring: trb[size - 1] is a link  */
	int32_t td_first;      /* index of an open TD's first TRB, or -1  */
};

/* One TRB's share of a transfer buffer (xhci_td_split, xhci_ring.c). */
struct xhci_td_piece {
	uint64_t phys;
	uint32_t len;
	uint32_t td_size; /* TD Size field (4.11.2.4; max 31)      */
};
/* Per device (usb_device.hcpriv). */
struct xhci_slot {
	struct usb_device *dev;
	uint8_t root_port;          /* where the device is (dev's, kept)  */
	uint32_t route;
	void *in_ctx;               /* input context page                 */
	uint64_t in_phys;
	void *out_ctx;              /* output (device) context page       */
	uint64_t out_phys;
	struct xhci_ring *ring[32]; /* by DCI (1 = ep0), NULL if none     */
};

struct usb_hci {
	struct pci_addr pci;
	uint16_t vendor, device;
	volatile uint8_t *cap;   /* BAR0                                 */
	volatile uint8_t *op;    /* operational registers                */
	volatile uint8_t *rt;    /* runtime registers                    */
	volatile uint32_t *db;   /* doorbell array                       */
	uint32_t hcsparams1, hcsparams2, hccparams1;
	uint16_t version;        /* HCIVERSION, BCD                      */
	unsigned csz;            /* context size: 32 or 64 bytes         */
	unsigned max_slots, max_ports;
	uint64_t dma_limit;      /* highest address + 1 the HC can reach */
	uint32_t quirks;         /* XHCI_QUIRK_* (xhci_quirks.c)         */
	bool dma_log;            /* usb.dmalog=on: print each DMA region */
	uint64_t dma_logged[8][2]; /* buffer ranges printed (start, end) */
	uint64_t *dcbaa;
	uint64_t dcbaa_phys;
	struct xhci_ring cmd, event;
	struct xhci_erst_entry *erst;
	uint64_t erst_phys;
	uint64_t started_us;     /* when R/S was set                     */
	uint8_t port_major[XHCI_MAX_PORTS + 1]; /* 2 or 3 from the Supported
						 * Protocol caps, 0 unknown */
	struct xhci_slot *slot[XHCI_MAX_SLOTS + 1];
	bool running;
	struct xhci_td_piece td[XHCI_RING_TRBS]; /* the TD being built   */
};

/* --- xhci_hw.c: the only contact with hardware (a model replaces it in
 * host unit tests). */
uint32_t xhci_read32(const volatile void *reg);
void xhci_write32(volatile void *reg, uint32_t v);
uint64_t xhci_time_us(void);
void xhci_delay_us(uint64_t us);

static inline uint32_t xhci_op_read(struct usb_hci *hc, unsigned off) { return xhci_read32(hc->op + off); }
static inline void xhci_op_write(struct usb_hci *hc, unsigned off, uint32_t v) { xhci_write32(hc->op + off, v); }
/* 64-bit registers as two 32-bit writes, low dword first (5.1). */
static inline void xhci_write64(volatile uint8_t *reg, uint64_t v)
{
	xhci_write32(reg, (uint32_t)v);
	xhci_write32(reg + 4, (uint32_t)(v >> 32));
}

/* xhci_event.c: poll reg until (value & mask) == want, at most ms
 * milliseconds; true if it got there. */
bool xhci_wait_bits(const volatile void *reg, uint32_t mask, uint32_t want, unsigned ms);

/* --- xhci_ring.c */
void xhci_ring_init(struct xhci_ring *r, struct xhci_trb *trbs, uint64_t phys, uint32_t size, bool link);
/* Write one TRB at the enqueue index with the ring's cycle bit (control
 * without TRB_CYCLE), step over the link TRB (handing it over with the
 * chain bit of the TRB before it, toggling PCS); returns its address. */
uint64_t xhci_ring_push(struct xhci_ring *r, uint64_t param, uint32_t status, uint32_t control);
/* A TD's TRBs are pushed between begin and commit; the first keeps the
 * wrong cycle bit until commit, so the controller never sees half a TD. */
void xhci_ring_td_begin(struct xhci_ring *r);
void xhci_ring_td_commit(struct xhci_ring *r);
/* TRBs a TD may use (the link TRB excluded). */
uint32_t xhci_ring_capacity(const struct xhci_ring *r);
/* Enqueue pointer with the cycle state in bit 0 (Set TR Dequeue Pointer,
 * CRCR, endpoint context). */
uint64_t xhci_ring_enqueue_ptr(const struct xhci_ring *r);
/* Event ring: copy the TRB at the dequeue index into *ev and return true
 * if software owns it (cycle bit == CCS). */
bool xhci_event_peek(const struct xhci_ring *r, struct xhci_trb *ev);
/* Consume it: advance, toggling CCS at the end of the segment; returns
 * the new dequeue address for ERDP. */
uint64_t xhci_event_advance(struct xhci_ring *r);
/* Index of a TRB address inside the ring, or -1. */
int xhci_ring_index_of(const struct xhci_ring *r, uint64_t phys);
/* Pieces of at most 64 KiB that never cross a 64 KiB boundary (6.4.1);
 * returns how many, or 0 if max is too small (a zero-length transfer is
 * one piece of length 0). */
unsigned xhci_td_split(uint64_t phys, uint32_t len, uint16_t mps, uint16_t version, struct xhci_td_piece *out,
		       unsigned max);

/* --- xhci_ctx.c: input and device contexts (6.2). */
/* Context i of a device context (0 slot, DCI 1-31 endpoints). */
uint32_t *xhci_dev_ctx(void *base, unsigned csz, unsigned i);
/* Context i of an input context (0 input control, 1 slot, 2-32 DCI+1). */
uint32_t *xhci_in_ctx(void *base, unsigned csz, unsigned i);
static inline unsigned xhci_dci(uint8_t ep_address)
{
	unsigned n = ep_address & 0xF;
	return n ? n * 2u + ((ep_address & 0x80) ? 1u : 0u) : 1u;
}
/* ep0's context: control, max packet size, dequeue pointer. */
void xhci_ctx_ep0(uint32_t *ep, uint16_t mps, uint64_t deq);
/* An endpoint's context from its descriptor at the device's speed; -1
 * for an unsupported type. */
int xhci_ctx_endpoint(uint32_t *ep, const struct usb_endpoint *e, enum usb_speed speed, uint64_t deq);
/* The slot context of a device (route, speed, root port, TT). */
void xhci_ctx_slot(uint32_t *slot, const struct usb_device *dev, unsigned entries);

/* --- xhci_xecp.c: byte offset (from BAR0) of the next extended
 * capability with this id after the one at `after` (0: from the first),
 * or 0 when there is none. */
uint32_t xhci_xecp_find(struct usb_hci *hc, uint32_t after, unsigned id);

/* --- xhci_reset.c: the hand-off alone, silent (xhci_takeover.c), and
 * with its console line (hci_open) */
enum usb_handoff xhci_legacy_take(struct usb_hci *hc);
int xhci_bios_handoff(struct usb_hci *hc);
int xhci_halt(struct usb_hci *hc);
int xhci_reset(struct usb_hci *hc);

/* --- xhci_quirks.c: controllers by PCI id, rules by HCIVERSION. */
#define XHCI_QUIRK_NO_AC64   (1u << 0) /* AC64 set but wrong: 32-bit DMA  */
#define XHCI_QUIRK_FORCED_32 (1u << 1) /* usb.dma32=on: treated the same  */
#define XHCI_QUIRK_ZERO_64B_REGS (1u << 2) /* upper halves kept over HCRST */
#define XHCI_DMA_LIMIT_32    (1ull << 32)
/* The table's quirks for vendor:device (0 if none); *chip gets its name. */
uint32_t xhci_quirks_lookup(uint16_t vendor, uint16_t device, const char **chip);
/* dma_limit for HCCPARAMS1 and the quirks: 4 GiB unless AC64 is trusted. */
uint64_t xhci_quirks_dma_limit(uint32_t hccparams1, uint32_t quirks);
/* true: TD Size by the 0.96 rule (bytes left incl. this TRB, 1 KiB units). */
bool xhci_td_size_096(uint16_t version);

/* --- xhci_mem.c: DMA memory. */
void *xhci_alloc(struct usb_hci *hc, size_t pages, uint64_t *phys);
void xhci_free(void *va, size_t pages);
/* usb.dmalog=on: print a transfer buffer unless inside one printed. */
void xhci_dma_note_buffer(struct usb_hci *hc, uint64_t phys, uint32_t len);
struct xhci_ring *xhci_ring_alloc(struct usb_hci *hc, bool link);

/* --- xhci_event.c: waiting on the event ring (and xhci_wait_bits above). */
typedef bool (*xhci_event_match)(const struct xhci_trb *ev, void *ctx);
/* Consume events until match says yes (true, *ev filled) or ms pass
 * (false).  Events nobody waits for (port status changes, late transfer
 * events) are consumed and dropped. */
bool xhci_event_wait(struct usb_hci *hc, xhci_event_match match, void *ctx, unsigned ms, struct xhci_trb *ev);
int xhci_status_of(uint32_t completion);
const char *xhci_completion_name(uint32_t completion);

/* --- xhci_cmd.c */
/* Submit one command TRB (control: type, slot, ep, flags) and wait for
 * its completion; *cc gets the completion code, *slot_id the event's
 * slot.  USB_TIMEOUT with a message naming the command. */
int xhci_command(struct usb_hci *hc, uint64_t param, uint32_t control, uint32_t *cc, uint8_t *slot_id);
const char *xhci_command_name(unsigned type);
void xhci_ring_doorbell(struct usb_hci *hc, unsigned slot, unsigned target);

/* --- xhci_port.c */
void xhci_read_protocols(struct usb_hci *hc);
void xhci_power_ports(struct usb_hci *hc);

/* --- xhci_start.c */
int xhci_start(struct usb_hci *hc);

/* --- xhci_intel.c */
void xhci_intel_route_ports(struct usb_hci *hc);

/* --- xhci_xfer.c: endpoint recovery (4.6.8, 4.6.9, 4.6.10). */
/* Endpoint state from the output context (6.2.3: 1 running, 2 halted,
 * 3 stopped, 4 error). */
unsigned xhci_ep_state(struct usb_hci *hc, struct xhci_slot *s, unsigned dci);
/* Make the endpoint's ring usable again after a stall or a transfer that
 * timed out: Reset Endpoint if halted, Stop Endpoint if running, then Set
 * TR Dequeue Pointer to the enqueue index (the TD left behind is
 * skipped). */
int xhci_ep_recover(struct usb_hci *hc, struct xhci_slot *s, unsigned dci);
/* The controller's side of CLEAR_FEATURE(ENDPOINT_HALT): the ring usable
 * again and the endpoint's data toggle / sequence number back at 0,
 * halted or not (Reset Endpoint, or Stop Endpoint and xhci_ep_readd). */
int xhci_ep_clear_halt(struct usb_hci *hc, struct xhci_slot *s, unsigned dci);
/* xhci_device.c: drop and add a stopped endpoint with Configure Endpoint,
 * its context unchanged but for the dequeue pointer (the ring's enqueue
 * index): its toggle / sequence number restarts. */
int xhci_ep_readd(struct usb_hci *hc, struct xhci_slot *s, unsigned dci);

/* --- xhci_xfer.c: a TD on a transfer ring, waited for. */
struct xhci_td_result {
	uint32_t cc;      /* completion code of the event that ended it */
	uint32_t actual;  /* bytes moved                                */
};

#endif /* KPROF_KERNEL_XHCI_H */
