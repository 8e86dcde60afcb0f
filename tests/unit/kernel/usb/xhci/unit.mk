# tests/unit/kernel/usb/xhci/unit.mk - the host-controller layer
# (kernel/usb/xhci/) on the host (included by tests/unit/unit.mk):
# test_xhci_ring: rings, event ring, TD splitting, contexts;
# test_xhci_hc: a model of the controller's registers and command ring
# for the hand-off, halt, reset, start and command sequences and their
# timeouts; test_xhci_xfer: devices and transfers against the same model
# (tests/unit/support/xhci_model.c, xhci_model_slots.c), which replaces
# kernel/usb/xhci/pci/xhci_hw.c (register access, time), the page allocator and
# the heap.  usb_status_name() is the core's (kernel/usb/core/usb_status.c).

UNIT_TESTS += $(addprefix tests/unit/kernel/usb/xhci/test_,xhci_ring.c xhci_hc.c xhci_xfer.c)

XHCI_DIR := kernel/usb/xhci
xhci_srcs = $(addprefix $(XHCI_DIR)/xhci_,$(addsuffix .c,$(1)))
XHCI_MODEL_SRCS := kernel/usb/core/usb_status.c kernel/lib/printf.c tests/unit/support/xhci_model.c tests/unit/support/xhci_model_slots.c

unit_xhci_ring_SRCS := $(call xhci_srcs,ring event ctx quirks)

unit_xhci_hc_SRCS := $(call xhci_srcs,reset xecp start mem ring event cmd port quirks) $(XHCI_MODEL_SRCS)

# The whole layer but its machine side, kernel/usb/xhci/pci/: the hardware
# (the model stands in), PCI (hci_open's search and the Intel port routing:
# test_pci; hci_take_from_firmware: test_usb_handoff) and the keys (the
# command line).
unit_xhci_xfer_SRCS := $(wildcard $(XHCI_DIR)/*.c) $(XHCI_MODEL_SRCS)

$(BUILD)/tests/unit/kernel/usb/xhci/test_xhci_hc $(BUILD)/tests/unit/kernel/usb/xhci/test_xhci_xfer: \
	tests/unit/support/xhci_model.h
