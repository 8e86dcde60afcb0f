# unit-pci.mk - kernel/pci/ against a modelled configuration space
# (included by unit.mk): tests/unit/support/pci_model.c defines the <arch/dev/pci.h>
# hooks over it (test_usb_handoff uses the same model), the test
# kva_map_phys over its ECAM window.

unit_pci_SRCS := kernel/pci/pci_config.c kernel/pci/pci_enum.c kernel/pci/pci_bar.c kernel/usb/xhci/pci/xhci_intel.c \
	tests/unit/support/pci_model.c

UNIT_NAMES += pci
$(BUILD)/tests/unit/test_pci: tests/unit/support/pci_model.h
