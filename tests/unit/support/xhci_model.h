/*
 * xhci_model.h - a software model of an xHCI controller, standing in for
 * kernel/usb/xhci/pci/xhci_hw.c in the host unit tests of the driver
 * (test_xhci_hc.c, test_xhci_xfer.c).
 *
 * Every register access of the driver lands in the model, which plays
 * the controller and the firmware: the USB Legacy Support hand-off (BIOS
 * Owned clears some reads after OS Owned is set, or never), halt, reset
 * and CNR (after a number of reads, or never), R/S, the command ring
 * (followed through link TRBs by its own cycle state; commands answered
 * with Command Completion Events, or left pending for Command Abort),
 * slots and endpoint contexts (Enable Slot, Address Device, Evaluate
 * Context, Configure Endpoint, Reset/Stop Endpoint, Set TR Dequeue
 * Pointer), transfer rings run on their doorbells against a scripted
 * device (model.device), and port resets: hot (PR) and warm (WPR, which
 * also brings a cold-attached or stuck USB 3 device to U0 and connects
 * it), a hot reset that leaves the link in SS.Inactive, an Address
 * Device that fails.  Time is virtual: 1 us per
 * register read plus whatever the driver waits, so timeouts of seconds
 * take no real time.  Memory is host memory (physical == virtual).
 */
#ifndef KPROF_TEST_XHCI_MODEL_H
#define KPROF_TEST_XHCI_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/usb/xhci/xhci.h"

#define MODEL_OP     0x80
#define MODEL_RT     0x2000
#define MODEL_DB     0x3000
#define MODEL_XECP   0x1000
#define MODEL_PORTS  4   /* 1-2 USB 3, 3-4 USB 2 */
#define MODEL_SLOTS  8
#define NEVER        0xFFFFFFFFu

/* What the scripted device does with one TRB's worth of data. */
#define MODEL_STALL (-1) /* the endpoint answers STALL                   */
#define MODEL_NAK   (-2) /* no answer: the TD stays pending              */

/* setup: the SETUP packet for a Setup TRB (buf NULL, len 0), else NULL.
 * Returns the bytes moved (less than len: a short packet), or one of the
 * two above. */
typedef int (*model_device_fn)(unsigned slot, unsigned dci, bool in, uint8_t *buf, uint32_t len,
			       const struct usb_setup *setup);

struct model_ep {
	uint64_t deq;   /* the controller's dequeue pointer               */
	uint32_t ccs;   /* and cycle state                                */
	uint32_t toggle; /* data toggle (sequence number mod 2): flips with
			  * each packet moved, 0 when the endpoint is added
			  * (Configure Endpoint) or reset (Reset Endpoint)  */
};

struct xhci_model {
	uint64_t now_us;
	unsigned csz;                /* context size, bytes                */
	unsigned bios_release_after; /* reads of USBLEGSUP after OS Owned  */
	unsigned halt_after;         /* USBSTS reads until HCH after R/S=0 */
	unsigned reset_after;        /* USBCMD reads until HCRST clears    */
	unsigned cnr_after;          /* USBSTS reads until CNR clears      */
	unsigned port_reset_after;   /* PORTSC reads until a reset is done */
	bool answer_commands;
	bool event_after_short;      /* also report the TD's IOC TRB after a
				      * short packet (as xHCI 1.0+ hosts may) */
	model_device_fn device;
	uint32_t port_speed[MODEL_PORTS + 1];
	uint64_t connect_at_us[MODEL_PORTS + 1]; /* CCS and CSC from then (0: as set) */
	bool hot_reset_fails[MODEL_PORTS + 1]; /* PR leaves the link in
						* SS.Inactive, not enabled */
	unsigned address_fails;      /* Address Devices answered with a USB
				      * transaction error before one succeeds */
	/* observed */
	uint64_t alloc_limit_max;    /* highest limit pages were asked below */
	unsigned commands, ped_written;
	unsigned hot_resets[MODEL_PORTS + 1], warm_resets[MODEL_PORTS + 1]; /* PR, WPR written */
	unsigned cmd_count[64];      /* commands by TRB type               */
	unsigned tds, trbs;          /* transfer TDs and TRBs run          */
	unsigned boundary_crossings; /* data TRBs crossing 64 KiB          */
	struct model_ep ep[MODEL_SLOTS + 1][32];
	bool enabled[MODEL_SLOTS + 1];       /* slots given out            */
	uint32_t addressed[MODEL_SLOTS + 1]; /* root port and route of each */
	/* internal */
	unsigned legsup_reads, sts_reads, cmd_reads, port_reads[MODEL_PORTS + 1];
	bool halting, resetting, cnr, port_resetting[MODEL_PORTS + 1];
	uint64_t cmd_deq;
	uint32_t cmd_ccs, ev_idx, ev_pcs;
};

extern struct xhci_model model;
extern uint8_t model_bar[0x4000];

/* A controller left running by the firmware that holds it: 8 slots, 4
 * ports, 33 scratchpads, AC64, csz-byte contexts (32 or 64: CSZ); hc is
 * filled as map_registers() in xhci_open.c would. */
void model_reset(struct usb_hci *hc, unsigned csz);
uint32_t *model_reg(unsigned off);
/* Halt, reset and start the controller through the driver. */
void model_bring_up(struct usb_hci *hc);
/* Free the pages the driver allocated (it never frees a running
 * controller's memory). */
void model_free_pages(void);
/* The output context the model keeps for a slot (DCBAA[slot]). */
uint32_t *model_out_ctx(struct usb_hci *hc, unsigned slot, unsigned dci);

/* Between the model's two files. */
uint64_t model_reg64(unsigned off);
void model_post_event(uint64_t param, uint32_t cc, uint32_t residual, uint32_t type, uint32_t slot, uint32_t ep);
void model_run_commands(void);                          /* doorbell 0    */
void model_run_transfers(unsigned slot, unsigned dci);  /* doorbell slot */

#endif /* KPROF_TEST_XHCI_MODEL_H */
