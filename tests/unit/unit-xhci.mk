# unit-xhci.mk - the xHCI driver on the host (included by unit.mk):
# test_xhci_ring: rings, event ring, TD splitting, contexts;
# test_xhci_hc: a model of the controller's registers and command ring
# for the hand-off, halt, reset, start and command sequences and their
# timeouts.  Both replace kernel/usb/xhci_hw.c (register access, time)
# with their own.

unit_xhci_ring_SRCS := kernel/usb/xhci_ring.c kernel/usb/xhci_event.c kernel/usb/xhci_td.c kernel/usb/xhci_ctx.c

UNIT_NAMES += xhci_ring

unit_xhci_hc_SRCS := kernel/usb/xhci_reset.c kernel/usb/xhci_wait.c kernel/usb/xhci_xecp.c kernel/usb/xhci_start.c \
	kernel/usb/xhci_mem.c kernel/usb/xhci_ring.c kernel/usb/xhci_event.c kernel/usb/xhci_cmd.c \
	kernel/usb/xhci_port.c kernel/usb/xhci_status.c kernel/lib/printf.c

UNIT_NAMES += xhci_hc
