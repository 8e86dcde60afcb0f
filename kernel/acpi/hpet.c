/*
 * hpet.c - the HPET table: where the first event timer block's registers are.
 */
#include "kernel/acpi/acpi.h"

#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"


struct __attribute__((packed)) acpi_hpet {
	struct acpi_sdt_header hdr;
	uint32_t block_id;         /* event timer block id                */
	struct acpi_gas base;      /* register block, SystemMemory        */
	uint8_t number;            /* HPET sequence number                */
	uint16_t min_tick;         /* minimum clock tick, periodic mode   */
	uint8_t attributes;        /* page protection, OEM attributes     */
};

_Static_assert(sizeof(struct acpi_hpet) == 56, "HPET size");

int acpi_parse_hpet(const void *table, uint32_t len, acpi_warn_fn warn, struct acpi_hpet_info *out)
{
	const struct acpi_hpet *h = table;
	struct acpi_gas base;

	memset(out, 0, sizeof(*out));
	if (!table || len < sizeof(*h)) {
		acpi_warnf(warn, "acpi: HPET length %u is shorter than the %u bytes needed", len, (unsigned)sizeof(*h));
		return -1;
	}
	base = h->base;
	if (base.space_id != ACPI_GAS_MEMORY || base.address == 0) {
		acpi_warnf(warn, "acpi: HPET base 0x%llx in address space %u is not memory, ignored",
		      (unsigned long long)base.address, base.space_id);
		return -1;
	}
	out->base = base.address;
	out->number = h->number;
	out->min_tick = h->min_tick;
	out->block_id = h->block_id;
	return 0;
}
