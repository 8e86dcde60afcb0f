/*
 * mmap_convert.c - build bootinfo mmap[] from the final UEFI memory map.
 *
 * Runs after ExitBootServices(), so it must not call the firmware: plain C
 * over the caller's bootinfo, no allocation, no EFI headers (see
 * mmap_convert.h).  Steps: translate each descriptor, then let
 * boot/common/bootmap.c sort, resolve overlaps, overlay the loader's own
 * ranges (kernel image, bootinfo, stack, page tables) and merge neighbours.
 */
#include "boot/uefi/mmap_convert.h"

#include "boot/common/bootmap.h"

uint32_t ldr_mmap_type(uint32_t efi_type)
{
	switch (efi_type) {
	case LDR_EFI_CONVENTIONAL:
	case LDR_EFI_BS_CODE:
	case LDR_EFI_BS_DATA:
	case LDR_EFI_LOADER_CODE:
	case LDR_EFI_LOADER_DATA:
		return BOOTINFO_MEM_USABLE;
	case LDR_EFI_ACPI_RECLAIM:
		return BOOTINFO_MEM_ACPI_RECLAIM;
	case LDR_EFI_ACPI_NVS:
		return BOOTINFO_MEM_ACPI_NVS;
	case LDR_EFI_UNUSABLE:
		return BOOTINFO_MEM_BAD;
	case LDR_EFI_RT_CODE:
	case LDR_EFI_RT_DATA:
		return BOOTINFO_MEM_FIRMWARE;
	case LDR_EFI_MMIO:
	case LDR_EFI_MMIO_PORT:
		return BOOTINFO_MEM_MMIO;
	case LDR_EFI_PERSISTENT:
		return BOOTINFO_MEM_PERSISTENT;
	default:
		return BOOTINFO_MEM_RESERVED;
	}
}

static const struct ldr_efi_mdesc *ldr_desc_at(const void *map,
					       size_t desc_size, size_t i)
{
	return (const struct ldr_efi_mdesc *)((const uint8_t *)map +
					      i * desc_size);
}

/* Length in bytes of a descriptor, clamped so base + length cannot wrap. */
static uint64_t ldr_desc_length(const struct ldr_efi_mdesc *d)
{
	uint64_t room = UINT64_MAX - d->phys_start;

	if (d->pages > room / LDR_EFI_PAGE_SIZE)
		return room & ~(LDR_EFI_PAGE_SIZE - 1);
	return d->pages * LDR_EFI_PAGE_SIZE;
}

uint64_t ldr_mmap_highest_end(const void *map, size_t map_size,
			      size_t desc_size)
{
	uint64_t top = 0;
	size_t i, n;

	if (desc_size < sizeof(struct ldr_efi_mdesc))
		return 0;
	n = map_size / desc_size;
	for (i = 0; i < n; i++) {
		const struct ldr_efi_mdesc *d = ldr_desc_at(map, desc_size, i);
		uint64_t end = d->phys_start + ldr_desc_length(d);

		if (d->pages && end > top)
			top = end;
	}
	return top;
}

void ldr_mmap_convert(const void *map, size_t map_size, size_t desc_size, const struct ldr_mem_range *overlays,
		      size_t n_overlays, struct bootinfo *bi)
{
	size_t i, ndesc;

	bi->mmap_count = 0;
	bi->mmap_dropped = 0;
	if (desc_size < sizeof(struct ldr_efi_mdesc))
		return;
	ndesc = map_size / desc_size;
	for (i = 0; i < ndesc; i++) {
		const struct ldr_efi_mdesc *d = ldr_desc_at(map, desc_size, i);

		if (d->pages)
			bootmap_add(bi, d->phys_start, ldr_desc_length(d), ldr_mmap_type(d->type), (uint32_t)d->attr);
	}
	bootmap_normalize(bi);
	for (i = 0; i < n_overlays; i++)
		bootmap_overlay(bi, overlays[i].base, overlays[i].length, overlays[i].type);
}
