# tests/unit/kernel/usb/handoff/unit.mk - every USB controller taken from
# the firmware at boot (kernel/usb/handoff/, and the xHCI driver's hand-off
# through hci_take_from_firmware) against a modelled PCI configuration
# space and modelled controller registers (included by tests/unit/unit.mk);
# the configuration space is tests/unit/support/pci_model.c (as
# test_pci's), the test stands in for kernel/usb/handoff/handoff_hw.c and
# kernel/usb/xhci/pci/xhci_hw.c.

UNIT_TESTS += tests/unit/kernel/usb/handoff/test_usb_handoff.c
unit_usb_handoff_SRCS := kernel/usb/handoff/handoff.c kernel/usb/handoff/ehci_handoff.c \
	kernel/usb/xhci/pci/xhci_takeover.c kernel/usb/xhci/xhci_reset.c kernel/usb/xhci/xhci_xecp.c \
	kernel/usb/xhci/xhci_event.c kernel/usb/xhci/xhci_ring.c kernel/usb/xhci/xhci_quirks.c kernel/usb/core/usb_status.c \
	kernel/pci/pci_config.c kernel/pci/pci_enum.c kernel/pci/pci_bar.c kernel/lib/printf.c tests/unit/support/pci_model.c

$(BUILD)/tests/unit/kernel/usb/handoff/test_usb_handoff: tests/unit/support/pci_model.h
