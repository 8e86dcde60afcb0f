/*
 * acpi.h - reading the firmware's ACPI tables.
 *
 * From the RSDP (found by the loader) to the XSDT (or RSDT), then the
 * tables kprof uses: FADT (PM timer), HPET, SPCR (serial console), MCFG
 * (PCI configuration space); the MADT is parsed in arch code (madt.h).
 * A table whose checksum is wrong, or that is shorter than its own header
 * says, is skipped with a warning naming it; the rest still count.
 *
 * Pure code: physical memory is reached through the caller's map function,
 * and warnings go to the caller's warn function, so the host unit tests run
 * these parsers on synthetic tables.
 */
#ifndef KPROF_KERNEL_ACPI_H
#define KPROF_KERNEL_ACPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct __attribute__((packed)) acpi_rsdp {
	char signature[8];         /* "RSD PTR "                         */
	uint8_t checksum;          /* bytes 0..19 sum to 0                */
	char oem_id[6];
	uint8_t revision;          /* 0: ACPI 1.0 (RSDT only), 2+: XSDT   */
	uint32_t rsdt_address;
	uint32_t length;           /* revision 2+: whole structure        */
	uint64_t xsdt_address;
	uint8_t extended_checksum; /* all `length` bytes sum to 0         */
	uint8_t reserved[3];
};

struct __attribute__((packed)) acpi_sdt_header {
	char signature[4];         /* "APIC", "FACP", ...                 */
	uint32_t length;           /* whole table, header included        */
	uint8_t revision;
	uint8_t checksum;          /* all `length` bytes sum to 0         */
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	uint32_t creator_id;
	uint32_t creator_revision;
};

/* Generic Address Structure. */
struct __attribute__((packed)) acpi_gas {
	uint8_t space_id;          /* ACPI_GAS_MEMORY, ACPI_GAS_IO, ...   */
	uint8_t bit_width;
	uint8_t bit_offset;
	uint8_t access_size;       /* 1 byte, 2 word, 3 dword, 4 qword    */
	uint64_t address;
};

enum { ACPI_GAS_MEMORY = 0, ACPI_GAS_IO = 1, ACPI_GAS_PCI = 2 };

_Static_assert(sizeof(struct acpi_rsdp) == 36, "RSDP size");
_Static_assert(sizeof(struct acpi_sdt_header) == 36, "SDT header size");
_Static_assert(sizeof(struct acpi_gas) == 12, "GAS size");

/* Map `len` bytes of physical memory for reading; NULL if impossible. */
typedef const void *(*acpi_map_fn)(uint64_t phys, size_t len);
/* One warning line, without the trailing newline. */
typedef void (*acpi_warn_fn)(const char *msg);

#define ACPI_MAX_TABLES 64

struct acpi_table_ref {
	char signature[5];         /* NUL-terminated copy                 */
	uint64_t phys;             /* where the table is                  */
	uint32_t length;           /* from its header                     */
	const void *va;            /* mapped, whole table                 */
};

struct acpi_tables {
	uint64_t rsdp_phys;
	uint8_t revision;          /* RSDP revision                       */
	char oem_id[7];            /* RSDP OEM id, NUL-terminated         */
	bool xsdt;                 /* walked the XSDT (else the RSDT)     */
	uint32_t count;            /* valid tables in table[]             */
	uint32_t skipped;          /* bad checksum, truncated, unmappable */
	uint32_t dropped;          /* valid but beyond ACPI_MAX_TABLES    */
	struct acpi_table_ref table[ACPI_MAX_TABLES];
};

/* Validate the RSDP and the root table, then every table it lists.
 * Returns 0, or -1 when neither the RSDP nor a root table is usable. */
int acpi_scan(uint64_t rsdp_phys, acpi_map_fn map, acpi_warn_fn warn, struct acpi_tables *out);

/* The index-th valid table with this signature, or NULL. */
const struct acpi_table_ref *acpi_find(const struct acpi_tables *t, const char *signature, unsigned index);

/* Format a warning and pass it to warn (if any): for the parsers. */
void acpi_warnf(acpi_warn_fn warn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Checksum of n bytes (0 means valid for ACPI structures). */
uint8_t acpi_checksum(const void *p, size_t n);

/* FADT ("FACP"): what kprof needs of it. */
struct acpi_fadt_info {
	uint32_t pm_timer_port;    /* I/O port of the PM timer, 0 if none */
	bool pm_timer_32bit;       /* TMR_VAL_EXT: 32-bit, else 24-bit    */
	bool hw_reduced;           /* HW_REDUCED_ACPI: no PM timer        */
	uint16_t iapc_boot_arch;   /* legacy devices, 8042, VGA, ...      */
};

/* HPET: the first timer block. */
struct acpi_hpet_info {
	uint64_t base;             /* MMIO address of the registers       */
	uint8_t number;            /* HPET sequence number                */
	uint16_t min_tick;         /* minimum periodic tick, counter units */
	uint32_t block_id;         /* event timer block id (vendor, count) */
};

/* SPCR: the firmware's serial console. */
struct acpi_spcr_info {
	uint8_t interface_type;    /* 0 full 16550, 1 16550 subset, 0x12 16550 by GAS, ... */
	struct acpi_gas base;      /* SystemIO port or SystemMemory address */
	uint32_t baud;             /* decoded; 0 = keep what firmware set */
	uint8_t baud_code;         /* as in the table                     */
	uint16_t pci_vendor;       /* 0xFFFF when not a PCI device        */
	uint16_t pci_device;
	uint8_t pci_bus, pci_dev, pci_fn, pci_segment;
	uint32_t uart_clock;       /* revision 3+: input clock Hz, else 0 */
};

#define ACPI_MCFG_MAX 16
struct acpi_mcfg_info {
	uint32_t count;            /* segments below                      */
	uint32_t dropped;          /* beyond ACPI_MCFG_MAX                */
	struct {
		uint64_t base;     /* ECAM base address                   */
		uint16_t segment;  /* PCI segment group                   */
		uint8_t bus_start, bus_end;
	} seg[ACPI_MCFG_MAX];
};

/* Each returns 0, or -1 with a warning when the table is too short for
 * what it must contain. `len` is the table's length from its header. */
int acpi_parse_fadt(const void *table, uint32_t len, acpi_warn_fn warn, struct acpi_fadt_info *out);
int acpi_parse_hpet(const void *table, uint32_t len, acpi_warn_fn warn, struct acpi_hpet_info *out);
int acpi_parse_spcr(const void *table, uint32_t len, acpi_warn_fn warn, struct acpi_spcr_info *out);
int acpi_parse_mcfg(const void *table, uint32_t len, acpi_warn_fn warn, struct acpi_mcfg_info *out);

#endif /* KPROF_KERNEL_ACPI_H */
