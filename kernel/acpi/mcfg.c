/*
 * mcfg.c - the MCFG table: ECAM (memory-mapped PCI configuration space)
 * windows, one per PCI segment group and bus range.
 */
#include "kernel/acpi/acpi.h"

#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"


struct __attribute__((packed)) acpi_mcfg_entry {
	uint64_t base;             /* ECAM base address                   */
	uint16_t segment;          /* PCI segment group                   */
	uint8_t bus_start;         /* first bus decoded                   */
	uint8_t bus_end;           /* last bus decoded                    */
	uint32_t reserved;
};

struct __attribute__((packed)) acpi_mcfg {
	struct acpi_sdt_header hdr;
	uint8_t reserved[8];
	struct acpi_mcfg_entry entry[]; /* to the end of the table         */
};

_Static_assert(sizeof(struct acpi_mcfg_entry) == 16, "MCFG entry size");
_Static_assert(sizeof(struct acpi_mcfg) == 44, "MCFG header size");

int acpi_parse_mcfg(const void *table, uint32_t len, acpi_warn_fn warn, struct acpi_mcfg_info *out)
{
	const struct acpi_mcfg *m = table;
	uint32_t n, rest;

	memset(out, 0, sizeof(*out));
	if (!table || len < sizeof(*m)) {
		acpi_warnf(warn, "acpi: MCFG length %u is shorter than the %u bytes needed", len, (unsigned)sizeof(*m));
		return -1;
	}
	n = (len - (uint32_t)sizeof(*m)) / sizeof(m->entry[0]);
	rest = (len - (uint32_t)sizeof(*m)) % sizeof(m->entry[0]);
	if (rest)
		acpi_warnf(warn, "acpi: MCFG ends in a partial %u-byte entry, ignored", rest);

	for (uint32_t i = 0; i < n; i++) {
		struct acpi_mcfg_entry e = m->entry[i];

		if (e.bus_start > e.bus_end) {
			acpi_warnf(warn, "acpi: MCFG entry %u: bus range %u-%u is empty, ignored", i, e.bus_start,
			      e.bus_end);
			continue;
		}
		if (out->count >= ACPI_MCFG_MAX) {
			out->dropped++;
			continue;
		}
		out->seg[out->count].base = e.base;
		out->seg[out->count].segment = e.segment;
		out->seg[out->count].bus_start = e.bus_start;
		out->seg[out->count].bus_end = e.bus_end;
		out->count++;
	}
	if (out->dropped)
		acpi_warnf(warn, "acpi: MCFG lists %u more segments than the %u kept, dropped", out->dropped,
		      (unsigned)ACPI_MCFG_MAX);
	return 0;
}
