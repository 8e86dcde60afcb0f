/*
 * pci_model.h - a modelled PCI configuration space behind the <arch/dev/pci.h>
 * hooks (arch_pci_legacy_*, arch_pci_mcfg), for the host unit tests of
 * kernel/pci/ (test_pci.c) and of the USB controllers' firmware hand-off
 * (test_usb_handoff.c).
 *
 * Functions are the tests' own structs (pci_model_add puts one on the
 * machine), read and written through the legacy mechanism as 256 bytes
 * of memory, except that BARs keep only the address bits they implement
 * (bar_mask) and their read-only type bits, as sizing expects; a BAR
 * written all ones while the function decodes memory or I/O is counted
 * (pci_model_decode_violations).  A test adds its own side effects with
 * on_read / on_write (an EHCI's legacy support capability in
 * configuration space).  No MCFG: ECAM is the test's own window.
 * Single-threaded; pci_model_reset() before each test.
 */
#ifndef KPROF_TESTS_PCI_MODEL_H
#define KPROF_TESTS_PCI_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define PCI_MODEL_FNS 16

struct pci_model_fn {
	uint8_t bus, dev, fn;
	uint8_t cfg[256];
	uint32_t bar_mask[6]; /* address bits a BAR implements (0: none)   */
	/* before a read of the dword at off (may change cfg) */
	void (*on_read)(struct pci_model_fn *f, uint16_t off);
	/* a write of width bytes at off: returns the value to store */
	uint32_t (*on_write)(struct pci_model_fn *f, uint16_t off, unsigned width, uint32_t v);
};

extern bool pci_model_legacy_on;             /* arch_pci_legacy_present() */
extern unsigned pci_model_decode_violations; /* BAR written all ones while decoding */

/* An empty machine, the legacy mechanism present. */
void pci_model_reset(void);
/* f zeroed, given its location and identity (vendor, device, class,
 * subclass, prog-if, header type) and put on the machine; returns f. */
struct pci_model_fn *pci_model_add(struct pci_model_fn *f, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t vendor,
				   uint16_t device, uint8_t cls, uint8_t sub, uint8_t pif, uint8_t header);
struct pci_model_fn *pci_model_lookup(uint8_t bus, uint8_t dev, uint8_t fn);
uint32_t pci_model_cfg32(const struct pci_model_fn *f, unsigned off);
void pci_model_set_cfg32(struct pci_model_fn *f, unsigned off, uint32_t v);
/* BAR i reads value; mask: the address bits it implements. */
void pci_model_set_bar(struct pci_model_fn *f, unsigned i, uint32_t value, uint32_t mask);

#endif /* KPROF_TESTS_PCI_MODEL_H */
