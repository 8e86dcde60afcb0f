/*
 * mmap_convert.h - turn a raw UEFI memory map into bootinfo mmap[] entries.
 *
 * Pure code: no EFI calls and no EFI headers, so it runs after
 * ExitBootServices() and compiles on the host for unit tests.  The UEFI
 * memory type numbers and the descriptor layout are those of the UEFI
 * specification (descriptor version 1); descriptors are read with the
 * stride the firmware reports, which may exceed sizeof(struct ldr_efi_mdesc).
 */
#ifndef KPROF_BOOT_UEFI_MMAP_CONVERT_H
#define KPROF_BOOT_UEFI_MMAP_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "boot/bootinfo.h"

/* UEFI memory types (UEFI 2.10, table 7.10). */
enum ldr_efi_mem_type {
	LDR_EFI_RESERVED = 0,
	LDR_EFI_LOADER_CODE = 1,
	LDR_EFI_LOADER_DATA = 2,
	LDR_EFI_BS_CODE = 3,
	LDR_EFI_BS_DATA = 4,
	LDR_EFI_RT_CODE = 5,
	LDR_EFI_RT_DATA = 6,
	LDR_EFI_CONVENTIONAL = 7,
	LDR_EFI_UNUSABLE = 8,
	LDR_EFI_ACPI_RECLAIM = 9,
	LDR_EFI_ACPI_NVS = 10,
	LDR_EFI_MMIO = 11,
	LDR_EFI_MMIO_PORT = 12,
	LDR_EFI_PAL_CODE = 13,
	LDR_EFI_PERSISTENT = 14,
};

#define LDR_EFI_PAGE_SIZE 4096ULL

/* One UEFI memory descriptor (EFI_MEMORY_DESCRIPTOR, version 1). */
struct ldr_efi_mdesc {
	uint32_t type;       /* enum ldr_efi_mem_type                  */
	uint32_t pad;        /* implicit padding in the UEFI layout    */
	uint64_t phys_start; /* physical start, 4 KiB aligned          */
	uint64_t virt_start; /* unused by the loader                   */
	uint64_t pages;      /* number of 4 KiB pages                  */
	uint64_t attr;       /* EFI_MEMORY_* attribute bits            */
};

/* A physical range the loader owns and reports with its own type. */
struct ldr_mem_range {
	uint64_t base;   /* physical start, bytes                       */
	uint64_t length; /* bytes                                       */
	uint32_t type;   /* BOOTINFO_MEM_KERNEL or BOOTINFO_MEM_LOADER  */
};

/* UEFI memory type -> enum bootinfo_mem_type. */
uint32_t ldr_mmap_type(uint32_t efi_type);

/* Highest end address (exclusive) of any descriptor in the map, 0 if none. */
uint64_t ldr_mmap_highest_end(const void *map, size_t map_size, size_t desc_size);

/*
 * Convert the UEFI map into bi->mmap: translate types, keep attribute bits
 * 0..31, then sort, resolve overlaps and merge (boot/common/bootmap.c), and
 * retype the parts covered by the overlays.  Entries that do not fit are
 * counted in bi->mmap_dropped.
 */
void ldr_mmap_convert(const void *map, size_t map_size, size_t desc_size, const struct ldr_mem_range *overlays,
		      size_t n_overlays, struct bootinfo *bi);

#endif /* KPROF_BOOT_UEFI_MMAP_CONVERT_H */
