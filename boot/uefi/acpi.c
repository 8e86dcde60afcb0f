/*
 * acpi.c - the ACPI RSDP from the UEFI configuration table: the ACPI 2.0
 * entry when present, else the ACPI 1.0 one.  Its absence is not an error.
 */
#include "boot/uefi/ldr.h"

static const EFI_GUID acpi20_guid = ACPI_20_TABLE_GUID;
static const EFI_GUID acpi10_guid = ACPI_TABLE_GUID;

static int ldr_guid_eq(const EFI_GUID *a, const EFI_GUID *b)
{
	const UINT8 *x = (const UINT8 *)a, *y = (const UINT8 *)b;
	unsigned int i;

	for (i = 0; i < sizeof(EFI_GUID); i++)
		if (x[i] != y[i])
			return 0;
	return 1;
}

static uint64_t ldr_find_table(const EFI_GUID *guid)
{
	const EFI_CONFIGURATION_TABLE *t = ST->ConfigurationTable;
	UINTN i;

	for (i = 0; i < ST->NumberOfTableEntries; i++)
		if (ldr_guid_eq(&t[i].VendorGuid, guid))
			return (uint64_t)(UINTN)t[i].VendorTable;
	return 0;
}

void ldr_find_rsdp(struct ldr_ctx *ctx)
{
	uint64_t rsdp = ldr_find_table(&acpi20_guid);
	const CHAR16 *which = L"ACPI 2.0";

	if (!rsdp) {
		rsdp = ldr_find_table(&acpi10_guid);
		which = L"ACPI 1.0";
	}
	ctx->bi->rsdp_phys = rsdp;
	if (rsdp)
		ldr_info(L"RSDP at 0x%lx (%s table)", rsdp, which);
	else
		ldr_info(L"no ACPI RSDP in the configuration table");
}
