/*
 * arch/dev/pci.h - what the architecture provides for PCI configuration space:
 * the firmware's ECAM windows and the legacy configuration mechanism.
 *
 * x86: the ACPI MCFG table (parsed by kernel/acpi/mcfg.c) and
 * configuration mechanism #1, ports 0xCF8 (address) / 0xCFC (data), which
 * reaches segment 0 only and is not reentrant (one CPU at a time; see
 * kernel/pci/pci.h).  Host unit tests have their own version of this
 * header (tests/unit/shadow/arch/dev/pci.h) and model these functions.
 */
#ifndef KPROF_ARCH_PCI_H
#define KPROF_ARCH_PCI_H

#include <stdbool.h>
#include <stdint.h>

struct acpi_mcfg_info;

/* The firmware's ECAM windows; false if it lists none. */
bool arch_pci_mcfg(struct acpi_mcfg_info *out);

/* True if the legacy mechanism answers on this machine. */
bool arch_pci_legacy_present(void);

/* Segment 0 only; width 1, 2 or 4 with off aligned to it (off < 256). */
uint32_t arch_pci_legacy_read(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, unsigned width);
void arch_pci_legacy_write(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, unsigned width, uint32_t v);

#endif /* KPROF_ARCH_PCI_H */
