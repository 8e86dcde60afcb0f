# tests/unit/kernel/pci/unit.mk - kernel/pci/ against a modelled
# configuration space (included by tests/unit/unit.mk):
# tests/unit/support/pci_model.c defines the <arch/dev/pci.h> hooks over it
# (test_usb_handoff uses the same model), the test kva_map_phys over its
# ECAM window.

UNIT_TESTS += tests/unit/kernel/pci/test_pci.c
unit_pci_SRCS := kernel/pci/pci_config.c kernel/pci/pci_enum.c kernel/pci/pci_bar.c kernel/usb/xhci/pci/xhci_intel.c \
	tests/unit/support/pci_model.c

$(BUILD)/tests/unit/kernel/pci/test_pci: tests/unit/support/pci_model.h
