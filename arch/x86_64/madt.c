/*
 * madt.c - parsing the ACPI MADT ("APIC"): processors (local APIC and
 * x2APIC entries), I/O APICs, interrupt source overrides, NMI wiring and
 * the local APIC address override.
 *
 * The entries are walked by their own length; one that is too short for
 * its type, or runs past the end of the table, stops the walk (a zero
 * length would otherwise loop forever).  Pure: no output except through
 * the warn callback, so the host unit tests run it on synthetic tables.
 */
#include "arch/x86_64/madt.h"

#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"


enum {
	MADT_LAPIC         = 0x0, /* Processor Local APIC         */
	MADT_IOAPIC        = 0x1, /* I/O APIC                     */
	MADT_OVERRIDE      = 0x2, /* Interrupt Source Override    */
	MADT_LAPIC_NMI     = 0x4, /* Local APIC NMI               */
	MADT_LAPIC_ADDRESS = 0x5, /* Local APIC Address Override  */
	MADT_X2APIC        = 0x9, /* Processor Local x2APIC       */
	MADT_X2APIC_NMI    = 0xA, /* Local x2APIC NMI             */
};

#define MADT_FLAG_PCAT_COMPAT   (1u << 0) /* table flags: dual 8259 PICs  */
#define MADT_CPU_ENABLED        (1u << 0) /* processor: usable now        */
#define MADT_CPU_ONLINE_CAPABLE (1u << 1) /* processor: can be enabled    */
#define MADT_LAPIC_NMI_ALL      0xFF      /* type 4 uid: every processor  */

struct __attribute__((packed)) madt_header {
	struct acpi_sdt_header hdr;
	uint32_t lapic_address;    /* local APIC MMIO, 32-bit              */
	uint32_t flags;            /* bit 0 PCAT_COMPAT                    */
};

struct __attribute__((packed)) madt_entry {
	uint8_t type;
	uint8_t length;            /* whole entry, these two bytes included */
};

struct __attribute__((packed)) madt_lapic {
	struct madt_entry e;
	uint8_t acpi_processor_id;
	uint8_t apic_id;
	uint32_t flags;            /* bit 0 enabled, bit 1 online capable  */
};

struct __attribute__((packed)) madt_ioapic_entry {
	struct madt_entry e;
	uint8_t id;
	uint8_t reserved;
	uint32_t address;          /* MMIO base                            */
	uint32_t gsi_base;         /* first GSI it handles                 */
};

struct __attribute__((packed)) madt_override_entry {
	struct madt_entry e;
	uint8_t bus;               /* 0 ISA                                */
	uint8_t source;            /* ISA IRQ                              */
	uint32_t gsi;
	uint16_t flags;            /* MPS INTI flags                       */
};

struct __attribute__((packed)) madt_lapic_nmi {
	struct madt_entry e;
	uint8_t acpi_processor_uid; /* 0xFF: all processors               */
	uint16_t flags;            /* MPS INTI flags                       */
	uint8_t lint;              /* LINT0 or LINT1                       */
};

struct __attribute__((packed)) madt_lapic_address {
	struct madt_entry e;
	uint16_t reserved;
	uint64_t address;          /* 64-bit local APIC MMIO               */
};

struct __attribute__((packed)) madt_x2apic {
	struct madt_entry e;
	uint16_t reserved;
	uint32_t x2apic_id;
	uint32_t flags;            /* as in the local APIC entry           */
	uint32_t acpi_processor_uid;
};

struct __attribute__((packed)) madt_x2apic_nmi {
	struct madt_entry e;
	uint16_t flags;            /* MPS INTI flags                       */
	uint32_t acpi_processor_uid; /* 0xFFFFFFFF: all processors         */
	uint8_t lint;              /* LINT0 or LINT1                       */
	uint8_t reserved[3];
};

_Static_assert(sizeof(struct madt_header) == 44, "MADT header size");
_Static_assert(sizeof(struct madt_lapic) == 8, "MADT type 0 size");
_Static_assert(sizeof(struct madt_ioapic_entry) == 12, "MADT type 1 size");
_Static_assert(sizeof(struct madt_override_entry) == 10, "MADT type 2 size");
_Static_assert(sizeof(struct madt_lapic_nmi) == 6, "MADT type 4 size");
_Static_assert(sizeof(struct madt_lapic_address) == 12, "MADT type 5 size");
_Static_assert(sizeof(struct madt_x2apic) == 16, "MADT type 9 size");
_Static_assert(sizeof(struct madt_x2apic_nmi) == 12, "MADT type 0xA size");

/* The length an entry of this type must have at least; 2 for unknown types. */
static uint8_t min_length(uint8_t type)
{
	switch (type) {
	case MADT_LAPIC:
		return sizeof(struct madt_lapic);
	case MADT_IOAPIC:
		return sizeof(struct madt_ioapic_entry);
	case MADT_OVERRIDE:
		return sizeof(struct madt_override_entry);
	case MADT_LAPIC_NMI:
		return sizeof(struct madt_lapic_nmi);
	case MADT_LAPIC_ADDRESS:
		return sizeof(struct madt_lapic_address);
	case MADT_X2APIC:
		return sizeof(struct madt_x2apic);
	case MADT_X2APIC_NMI:
		return sizeof(struct madt_x2apic_nmi);
	default:
		return sizeof(struct madt_entry);
	}
}

/* Record one processor; the same APIC id seen before is kept once, enabled if either entry is. */
static void add_cpu(struct madt_info *out, uint32_t apic_id, uint32_t uid, uint32_t flags, bool x2apic)
{
	struct madt_cpu c = {
		.apic_id = apic_id,
		.acpi_uid = uid,
		.enabled = (flags & MADT_CPU_ENABLED) != 0,
		.online_capable = (flags & MADT_CPU_ONLINE_CAPABLE) != 0,
		.x2apic_entry = x2apic,
	};

	for (uint32_t i = 0; i < out->ncpus; i++) {
		if (out->cpu[i].apic_id != apic_id)
			continue;
		if (c.enabled && !out->cpu[i].enabled) {
			out->cpu[i] = c;
			out->cpus_enabled++;
		}
		return;
	}
	if (out->ncpus >= MADT_MAX_CPUS) {
		out->cpus_dropped++;
		return;
	}
	out->cpu[out->ncpus++] = c;
	if (c.enabled)
		out->cpus_enabled++;
}

static void add_nmi(struct madt_info *out, uint32_t uid, uint8_t lint, uint16_t flags, acpi_warn_fn warn)
{
	if (out->nnmis >= MADT_MAX_NMIS) {
		acpi_warnf(warn, "madt: more than %u NMI entries, ignored", (unsigned)MADT_MAX_NMIS);
		return;
	}
	out->nmi[out->nnmis].acpi_uid = uid;
	out->nmi[out->nnmis].lint = lint;
	out->nmi[out->nnmis].flags = flags;
	out->nnmis++;
}

static void parse_entry(struct madt_info *out, const uint8_t *p, acpi_warn_fn warn)
{
	switch (p[0]) {
	case MADT_LAPIC: {
		const struct madt_lapic *e = (const void *)p;
		add_cpu(out, e->apic_id, e->acpi_processor_id, e->flags, false);
		break;
	}
	case MADT_X2APIC: {
		const struct madt_x2apic *e = (const void *)p;
		add_cpu(out, e->x2apic_id, e->acpi_processor_uid, e->flags, true);
		break;
	}
	case MADT_IOAPIC: {
		const struct madt_ioapic_entry *e = (const void *)p;
		if (out->nioapics >= MADT_MAX_IOAPICS) {
			acpi_warnf(warn, "madt: more than %u I/O APICs, id %u ignored", (unsigned)MADT_MAX_IOAPICS, e->id);
			break;
		}
		out->ioapic[out->nioapics].id = e->id;
		out->ioapic[out->nioapics].address = e->address;
		out->ioapic[out->nioapics].gsi_base = e->gsi_base;
		out->nioapics++;
		break;
	}
	case MADT_OVERRIDE: {
		const struct madt_override_entry *e = (const void *)p;
		if (out->noverrides >= MADT_MAX_OVERRIDES) {
			acpi_warnf(warn, "madt: more than %u interrupt source overrides, IRQ %u ignored",
			      (unsigned)MADT_MAX_OVERRIDES, e->source);
			break;
		}
		out->override[out->noverrides].bus = e->bus;
		out->override[out->noverrides].source = e->source;
		out->override[out->noverrides].gsi = e->gsi;
		out->override[out->noverrides].flags = e->flags;
		out->noverrides++;
		break;
	}
	case MADT_LAPIC_NMI: {
		const struct madt_lapic_nmi *e = (const void *)p;
		uint32_t uid = e->acpi_processor_uid == MADT_LAPIC_NMI_ALL ? MADT_ALL_CPUS : e->acpi_processor_uid;
		add_nmi(out, uid, e->lint, e->flags, warn);
		break;
	}
	case MADT_X2APIC_NMI: {
		const struct madt_x2apic_nmi *e = (const void *)p;
		add_nmi(out, e->acpi_processor_uid, e->lint, e->flags, warn);
		break;
	}
	case MADT_LAPIC_ADDRESS: {
		const struct madt_lapic_address *e = (const void *)p;
		out->lapic_phys = e->address;
		break;
	}
	default:
		break; /* not needed: skipped by its length */
	}
}

/* Why the entry at off cannot be read (and the walk must stop), or NULL. */
static const char *bad_entry(const uint8_t *t, uint32_t off, uint32_t len, char *why, size_t size)
{
	uint32_t left = len - off;
	uint8_t type, elen;

	if (left < 2) {
		ksnprintf(why, size, "%u byte left over at offset %u", left, off);
		return why;
	}
	type = t[off];
	elen = t[off + 1];
	if (elen < 2)
		ksnprintf(why, size, "entry type %u at offset %u: length %u is less than 2", type, off, elen);
	else if (elen > left)
		ksnprintf(why, size, "entry type %u at offset %u: length %u runs past the end of the table", type, off,
			  elen);
	else if (elen < min_length(type))
		ksnprintf(why, size, "entry type %u at offset %u: length %u is shorter than the %u bytes of its type",
			  type, off, elen, min_length(type));
	else
		return NULL;
	return why;
}

int madt_parse(const void *table, uint32_t len, acpi_warn_fn warn, struct madt_info *out)
{
	const struct madt_header *h = table;
	const uint8_t *t = table;
	char why[96];

	memset(out, 0, sizeof(*out));
	if (!table || len < sizeof(*h)) {
		acpi_warnf(warn, "madt: length %u is shorter than the %u bytes needed", len, (unsigned)sizeof(*h));
		return -1;
	}
	out->lapic_phys = h->lapic_address; /* a type 5 entry replaces it */
	out->pcat_compat = (h->flags & MADT_FLAG_PCAT_COMPAT) != 0;

	for (uint32_t off = sizeof(*h); off < len; off += t[off + 1]) {
		if (bad_entry(t, off, len, why, sizeof(why))) {
			acpi_warnf(warn, "madt: %s, rest of the table ignored", why);
			out->bad_entries++;
			break;
		}
		parse_entry(out, t + off, warn);
	}
	return 0;
}
