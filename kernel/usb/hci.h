/*
 * hci.h - what the USB layers above (core/usb.c, core/hub.c,
 * storage/bot.c) ask of a host controller driver (xhci/xhci_*.c), and
 * nothing more.
 *
 * Everything is polled: each call waits, bounded by a timeout, for its
 * own completion and returns an enum usb_status; a timeout prints one
 * console line naming what did not answer (the command, the port, the
 * slot and endpoint) before it returns USB_TIMEOUT.  No interrupts, no
 * locks: one thread at a time drives a controller (the trace sender, then
 * trace_finish), which the callers guarantee.
 *
 * Memory: every data buffer handed to hci_control() or hci_bulk() must be
 * physically contiguous, in the direct map and below USB_DMA_LIMIT
 * (usb_dma_alloc(), or pmm_alloc_pages_below(n, USB_DMA_LIMIT) +
 * phys_to_virt; not the heap, whose pages may lie higher): every
 * controller reaches 4 GiB, including one without 64-bit addressing or
 * one whose claim to it is not trusted.  The driver translates with
 * virt_to_phys() and refuses a buffer past its controller's reach.
 *
 * Host unit tests link a fake controller implementing these functions
 * (tests/unit/support/fake_hci.c) in place of xhci/xhci_*.c.
 */
#ifndef KPROF_USB_HCI_H
#define KPROF_USB_HCI_H

#include <stdbool.h>
#include <stdint.h>

/* xHCI's default Protocol Speed IDs (xHCI 1.2, 7.2.2.1.1). */
enum usb_speed {
	USB_SPEED_NONE = 0,
	USB_SPEED_FULL = 1,
	USB_SPEED_LOW = 2,
	USB_SPEED_HIGH = 3,
	USB_SPEED_SUPER = 4,
};

enum usb_status {
	USB_OK = 0,
	USB_STALL = -1,   /* the endpoint answered STALL (halted)            */
	USB_TIMEOUT = -2, /* no completion in time (message printed)         */
	USB_ERROR = -3,   /* transaction, babble or other completion error   */
	USB_NODEV = -4,   /* nothing connected, or the device went away      */
	USB_NOMEM = -5,   /* no memory for rings, contexts or buffers        */
	USB_BADARG = -6,  /* a request the driver does not support           */
};

/* A SETUP packet (USB 2.0, 9.3), little-endian as on the wire. */
struct usb_setup {
	uint8_t bmRequestType;
	uint8_t bRequest;
	uint16_t wValue;
	uint16_t wIndex;
	uint16_t wLength;
} __attribute__((packed));

#define USB_DMA_LIMIT (1ull << 32) /* data buffers lie below this address */

struct usb_hci; /* one controller, opaque to the USB layer */

/* One device on the bus.  The USB layer fills speed, root_port, route,
 * depth and (for low/full speed behind a high-speed hub) tt_slot/tt_port
 * before hci_device_add(); the driver fills slot, ep0_mps and hcpriv. */
struct usb_device {
	struct usb_hci *hci;
	uint8_t slot;        /* controller's slot id, 0 = none yet          */
	uint8_t speed;       /* enum usb_speed                              */
	uint8_t root_port;   /* 1-based root hub port the path starts at    */
	uint8_t depth;       /* hubs between the root port and the device   */
	uint32_t route;      /* xHCI route string: hub port per tier, 4 bits
			      * each, tier 1 in bits 3:0                     */
	uint8_t tt_slot;     /* slot of the high-speed hub whose TT serves a
			      * low/full-speed device, else 0               */
	uint8_t tt_port;     /* that hub's port (1-based)                   */
	uint16_t ep0_mps;    /* default control pipe max packet size        */
	void *hcpriv;        /* the driver's per-device state               */
	uint8_t descriptor[18]; /* the device descriptor as the USB layer's
				 * enumeration read it (core/usb_enum.c), all
				 * 0 before; the driver leaves it alone      */
};

/* Endpoint description for hci_configure() (from the endpoint
 * descriptor: bEndpointAddress, bmAttributes & 3, wMaxPacketSize,
 * bInterval; max_burst from the SuperSpeed companion, else 0). */
struct usb_endpoint {
	uint8_t address;     /* bit 7 = IN                                   */
	uint8_t type;        /* 0 control, 1 isochronous, 2 bulk, 3 interrupt */
	uint16_t max_packet;
	uint8_t interval;
	uint8_t max_burst;
};

/* How long the firmware gets to let go of a controller (xHCI, EHCI;
 * Linux waits 1 s too). */
#define HCI_HANDOFF_MS 1000

/* How a controller's USB legacy support was taken from the firmware
 * (hci_take_from_firmware, and the EHCI hand-off in kernel/usb/handoff/). */
enum usb_handoff {
	USB_HANDOFF_NO_CAPABILITY, /* no legacy support capability: nothing to take */
	USB_HANDOFF_OS_OWNED,      /* the firmware did not own it; SMIs turned off   */
	USB_HANDOFF_TAKEN,         /* the firmware let go when asked; SMIs off       */
	USB_HANDOFF_FORCED,        /* the firmware did not let go in time: taken
				    * anyway (BIOS Owned cleared), SMIs off          */
};

/* Only the firmware hand-off (USB Legacy Support, its SMIs off) of the
 * xHCI controller there, nothing else: for every controller at boot, the
 * stick's or not, before the trace starts.  Prints nothing; USB_NODEV if
 * it is no xHCI controller with an assigned BAR0. */
int hci_take_from_firmware(uint16_t segment, uint8_t bus, uint8_t dev, uint8_t fn, enum usb_handoff *how);

/* Take over the controller at PCI segment/bus/device/function: firmware
 * hand-off, halt, reset, rings, run.  Prints what it found.  The same
 * controller opened twice returns the same handle. */
int hci_open(uint16_t segment, uint8_t bus, uint8_t dev, uint8_t fn, struct usb_hci **out);

/* The index-th xHCI controller on PCI (0, 1, ...): true with its
 * location filled, false past the last one. */
bool hci_find(unsigned index, uint16_t *segment, uint8_t *bus, uint8_t *dev, uint8_t *fn);

/* Reset a controller hci_open() took (halt, HCRST, start again, ports
 * powered): every device on it is gone and must be added again.  The
 * last rung of the stick's recovery (stick.c); the old rings and contexts
 * are not reused (a few pages, once per reset). */
int hci_controller_reset(struct usb_hci *hc);

/* Root hub ports, 1-based, as the controller numbers them. */
unsigned hci_port_count(struct usb_hci *hc);

/* Reset a root port (USB 2: PORTSC.PR; USB 3: warm reset when needed)
 * and wait until it is enabled; *speed gets the device's speed.
 * USB_NODEV when nothing is connected. */
int hci_port_reset(struct usb_hci *hc, unsigned port, enum usb_speed *speed);

/* Enable a slot and address the device (SET_ADDRESS is the controller's);
 * reads the first 8 bytes of the device descriptor to learn ep0's max
 * packet size when the speed does not fix it, and updates ep0_mps. */
int hci_device_add(struct usb_hci *hc, struct usb_device *dev);

/* Give a device's slot back (Disable Slot, its rings and contexts freed):
 * a device that was addressed but did not answer, before the USB layer
 * resets its port and adds it again.  dev->slot is 0 after; nothing if
 * it had none. */
void hci_device_remove(struct usb_device *dev);

/* A control transfer on ep0: setup, optional data stage in the direction
 * bmRequestType bit 7 says, status.  *actual (may be NULL) gets the data
 * bytes moved.  USB_STALL leaves ep0 usable again (the driver resets it). */
int hci_control(struct usb_device *dev, const struct usb_setup *setup, void *data, uint32_t *actual);

/* Tell the controller the device is a hub (slot context Hub bit, port
 * count, multi-TT, TT think time) after its hub descriptor was read. */
int hci_hub_configure(struct usb_device *dev, unsigned nports, bool multi_tt, unsigned tt_think_time);

/* Configure endpoint: add these endpoints (after SET_CONFIGURATION). */
int hci_configure(struct usb_device *dev, const struct usb_endpoint *eps, unsigned n);

/* One bulk transfer of len bytes (any length: the driver chains TRBs and
 * link TRBs as needed); *actual gets the bytes moved (a short IN transfer
 * is USB_OK with *actual < len). */
int hci_bulk(struct usb_device *dev, uint8_t ep_address, void *buf, uint32_t len, uint32_t *actual,
	     uint32_t timeout_ms);

/* After USB_STALL on a bulk endpoint: Reset Endpoint and Set TR Dequeue
 * Pointer in the controller.  The caller then sends CLEAR_FEATURE
 * (ENDPOINT_HALT) to the device itself (hci_control). */
int hci_clear_halt(struct usb_device *dev, uint8_t ep_address);

/* A short name for messages: "timeout", "stall", ... */
const char *usb_status_name(int status);

#endif /* KPROF_USB_HCI_H */
