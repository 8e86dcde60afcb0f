/*
 * pci.h - PCI configuration space, bus enumeration and BARs.
 *
 * Configuration space is reached through ECAM (the ACPI MCFG windows)
 * where the firmware lists one for the segment and bus, else through the
 * architecture's legacy mechanism (<arch/dev/pci.h>: ports 0xCF8/0xCFC on x86,
 * segment 0 only).  pci_init() chooses once; every later call uses that.
 *
 * Callers: boot-time and driver code on one CPU at a time (no lock: the
 * legacy mechanism's address/data pair is not reentrant, so two CPUs must
 * not configure devices at once; kprof's drivers run on the trace sender).
 */
#ifndef KPROF_KERNEL_PCI_H
#define KPROF_KERNEL_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/acpi/acpi.h"

/* Registers of the type 0 and type 1 configuration headers. */
#define PCI_VENDOR_ID      0x00
#define PCI_DEVICE_ID      0x02
#define PCI_COMMAND        0x04
#define PCI_STATUS         0x06
#define PCI_REVISION       0x08 /* revision, prog-if, subclass, class */
#define PCI_PROG_IF        0x09
#define PCI_SUBCLASS       0x0A
#define PCI_CLASS          0x0B
#define PCI_HEADER_TYPE    0x0E
#define PCI_BAR0           0x10
#define PCI_PRIMARY_BUS    0x18 /* type 1 */
#define PCI_SECONDARY_BUS  0x19 /* type 1 */
#define PCI_SUBORDINATE_BUS 0x1A /* type 1 */

#define PCI_COMMAND_IO     (1u << 0)
#define PCI_COMMAND_MEMORY (1u << 1)
#define PCI_COMMAND_MASTER (1u << 2)
#define PCI_COMMAND_INTX_DISABLE (1u << 10)

#define PCI_HEADER_MULTIFUNCTION 0x80

struct pci_addr {
	uint16_t segment;
	uint8_t bus, dev, fn; /* dev < 32, fn < 8 */
};

/* How configuration space is reached. */
enum pci_access {
	PCI_ACCESS_NONE,   /* neither ECAM nor the legacy mechanism       */
	PCI_ACCESS_ECAM,   /* MCFG windows (legacy for buses they miss)   */
	PCI_ACCESS_LEGACY, /* the architecture's legacy mechanism only    */
};

/* Choose the access method: the MCFG windows in mcfg (may be NULL or
 * empty), else the legacy mechanism if the architecture finds one.
 * pci_init() asks the architecture for the MCFG, once (later calls return
 * the method chosen); pci_config_init() chooses again with the windows
 * given (unit tests). */
enum pci_access pci_init(void);
enum pci_access pci_config_init(const struct acpi_mcfg_info *mcfg);
enum pci_access pci_access_method(void);
/* The ECAM windows in use (count 0 with the legacy mechanism only). */
void pci_config_windows(struct acpi_mcfg_info *out);

/* width is 1, 2 or 4 and off is aligned to it; a function that does not
 * exist (or a bus nothing decodes) reads all ones. */
uint32_t pci_read(struct pci_addr a, uint16_t off, unsigned width);
void pci_write(struct pci_addr a, uint16_t off, unsigned width, uint32_t v);
static inline uint32_t pci_read32(struct pci_addr a, uint16_t off) { return pci_read(a, off, 4); }
static inline uint16_t pci_read16(struct pci_addr a, uint16_t off) { return (uint16_t)pci_read(a, off, 2); }
static inline uint8_t pci_read8(struct pci_addr a, uint16_t off) { return (uint8_t)pci_read(a, off, 1); }
static inline void pci_write32(struct pci_addr a, uint16_t off, uint32_t v) { pci_write(a, off, 4, v); }
static inline void pci_write16(struct pci_addr a, uint16_t off, uint16_t v) { pci_write(a, off, 2, v); }

/* A function answers (vendor id is not 0xFFFF). */
bool pci_present(struct pci_addr a);

/* One function found by the bus walk. */
struct pci_func {
	struct pci_addr addr;
	uint16_t vendor, device;
	uint8_t class_code, subclass, prog_if, header_type; /* header_type without the multi-function bit */
};

/* Called for each function; return true to stop the walk. */
typedef bool (*pci_visit_fn)(const struct pci_func *f, void *ctx);

/* Walk every segment's bus hierarchy from its first bus, descending
 * through PCI-to-PCI bridges by their secondary bus numbers (each bus
 * visited once).  Returns the number of functions visited. */
unsigned pci_enumerate(pci_visit_fn visit, void *ctx);

/* The index-th function (0 = first in walk order) with this class,
 * subclass and programming interface (0xFF in prog_if: any); true if
 * found. */
bool pci_find_class(uint8_t class_code, uint8_t subclass, uint8_t prog_if, unsigned index, struct pci_func *out);

/* The function at a: true and *out filled if it answers. */
bool pci_find_location(struct pci_addr a, struct pci_func *out);

struct pci_bar {
	uint64_t base;  /* address (memory) or port (I/O); 0 = unassigned */
	uint64_t size;  /* bytes decoded; 0 = BAR not implemented         */
	bool io;        /* I/O space BAR                                  */
	bool is64;      /* 64-bit memory BAR (uses the next BAR too)      */
	bool prefetch;  /* prefetchable memory                            */
};

/* Decode and size BAR index (0-5, header type 0): writes all ones to
 * learn the size with decoding turned off in the command register, then
 * restores the BAR and the command register.  -1 for a bad index or the
 * upper half of a 64-bit BAR. */
int pci_bar_read(struct pci_addr a, unsigned index, struct pci_bar *out);

/* Pure decoding, for the sizing above and for tests: the BAR value(s) as
 * read, and as read back after writing all ones (hi: the next BAR's, for
 * 64-bit memory BARs). */
void pci_bar_decode(uint32_t lo, uint32_t hi, uint32_t lo_mask, uint32_t hi_mask, struct pci_bar *out);

/* Set bits in the command register (PCI_COMMAND_MEMORY, _MASTER, ...);
 * returns the new value. */
uint16_t pci_enable(struct pci_addr a, uint16_t bits);

#endif /* KPROF_KERNEL_PCI_H */
