# unit-pci.mk - kernel/pci/ against a modelled configuration space
# (included by unit.mk); the test defines the <arch/pci.h> hooks and
# kva_map_phys over its model.

unit_pci_SRCS := kernel/pci/pci_config.c kernel/pci/pci_enum.c kernel/pci/pci_bar.c kernel/usb/xhci/xhci_intel.c

UNIT_NAMES += pci
