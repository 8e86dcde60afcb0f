# unit-xhci.mk - the xHCI driver on the host (included by unit.mk):
# test_xhci_ring: rings, event ring, TD splitting, contexts;
# test_xhci_hc: a model of the controller's registers and command ring
# for the hand-off, halt, reset, start and command sequences and their
# timeouts; test_xhci_xfer: devices and transfers against the same model
# (tests/unit/xhci_model.c, xhci_model_slots.c), which replaces
# kernel/usb/xhci_hw.c (register access, time), the page allocator and
# the heap.

unit_xhci_ring_SRCS := kernel/usb/xhci_ring.c kernel/usb/xhci_event.c kernel/usb/xhci_td.c kernel/usb/xhci_ctx.c

UNIT_NAMES += xhci_ring

unit_xhci_hc_SRCS := kernel/usb/xhci_reset.c kernel/usb/xhci_wait.c kernel/usb/xhci_xecp.c kernel/usb/xhci_start.c \
	kernel/usb/xhci_mem.c kernel/usb/xhci_ring.c kernel/usb/xhci_event.c kernel/usb/xhci_cmd.c \
	kernel/usb/xhci_port.c kernel/usb/xhci_status.c kernel/lib/printf.c tests/unit/xhci_model.c \
	tests/unit/xhci_model_slots.c

UNIT_NAMES += xhci_hc

unit_xhci_xfer_SRCS := $(unit_xhci_hc_SRCS) kernel/usb/xhci_device.c kernel/usb/xhci_xfer.c \
	kernel/usb/xhci_endpoint.c kernel/usb/xhci_ctx.c kernel/usb/xhci_td.c

UNIT_NAMES += xhci_xfer
$(BUILD)/tests/unit/test_xhci_hc $(BUILD)/tests/unit/test_xhci_xfer: tests/unit/xhci_model.h
