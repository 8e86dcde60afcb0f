/*
 * madt.h - the ACPI MADT ("APIC"): processors, I/O APICs, NMI wiring.
 */
#ifndef KPROF_ARCH_MADT_H
#define KPROF_ARCH_MADT_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/arch_services.h"

#define MADT_MAX_CPUS      KPROF_MAX_CPUS /* entries kept; more are counted */
#define MADT_MAX_IOAPICS   16
#define MADT_MAX_OVERRIDES 32
#define MADT_MAX_NMIS      16
#define MADT_ALL_CPUS      0xFFFFFFFFu    /* NMI entry applies to every CPU */

struct madt_cpu {
	uint32_t apic_id;      /* local APIC id (x2APIC id from type 9) */
	uint32_t acpi_uid;     /* ACPI processor UID / id               */
	bool enabled;          /* flags bit 0: usable now               */
	bool online_capable;   /* flags bit 1: could be enabled later   */
	bool x2apic_entry;     /* from a Local x2APIC (type 9) entry    */
};

struct madt_ioapic {
	uint8_t id;
	uint32_t address;      /* MMIO base                             */
	uint32_t gsi_base;     /* first global system interrupt         */
};

struct madt_override {
	uint8_t bus;           /* 0 = ISA                               */
	uint8_t source;        /* ISA IRQ                               */
	uint32_t gsi;
	uint16_t flags;        /* polarity, trigger mode                */
};

struct madt_nmi {
	uint32_t acpi_uid;     /* MADT_ALL_CPUS or one processor UID    */
	uint8_t lint;          /* LINT0 or LINT1                        */
	uint16_t flags;        /* polarity, trigger mode                */
};

struct madt_info {
	uint64_t lapic_phys;   /* local APIC MMIO (override applied)    */
	bool pcat_compat;      /* flags bit 0: 8259 PICs present        */
	uint32_t ncpus;        /* entries in cpu[] (enabled or not)     */
	uint32_t cpus_enabled; /* of those, enabled                     */
	uint32_t cpus_dropped; /* processor entries beyond MADT_MAX_CPUS */
	struct madt_cpu cpu[MADT_MAX_CPUS];
	uint32_t nioapics;
	struct madt_ioapic ioapic[MADT_MAX_IOAPICS];
	uint32_t noverrides;
	struct madt_override override[MADT_MAX_OVERRIDES];
	uint32_t nnmis;
	struct madt_nmi nmi[MADT_MAX_NMIS];
	uint32_t bad_entries;  /* entries too short or of unknown length */
};

/* Parse a whole MADT (header included, `len` from its header).  A
 * processor listed twice (type 0 and type 9) is kept once.  Returns 0, or
 * -1 with a warning when the table cannot be read at all. */
int madt_parse(const void *table, uint32_t len, acpi_warn_fn warn, struct madt_info *out);

#endif /* KPROF_ARCH_MADT_H */
