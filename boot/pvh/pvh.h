/*
 * pvh.h - the Xen PVH start_info structure QEMU passes to a -kernel ELF
 * (Xen's xen:xen/include/public/arch-x86/hvm/start_info.h, version 1).
 */
#ifndef KPROF_BOOT_PVH_H
#define KPROF_BOOT_PVH_H

#include <stdint.h>

#define HVM_START_MAGIC_VALUE 0x336ec578u

struct hvm_start_info {
	uint32_t magic;          /* HVM_START_MAGIC_VALUE                     */
	uint32_t version;        /* 0: no memory map, 1: memmap fields valid  */
	uint32_t flags;          /* SIF_xxx                                   */
	uint32_t nr_modules;     /* entries at modlist_paddr                  */
	uint64_t modlist_paddr;  /* hvm_modlist_entry array                   */
	uint64_t cmdline_paddr;  /* NUL-terminated command line, 0 if none    */
	uint64_t rsdp_paddr;     /* ACPI RSDP, 0 if the loader found none     */
	uint64_t memmap_paddr;   /* hvm_memmap_table_entry array (version 1)  */
	uint32_t memmap_entries; /* number of memory map entries              */
	uint32_t reserved;       /* must be zero                              */
};

struct hvm_memmap_table_entry {
	uint64_t addr;     /* physical base                                */
	uint64_t size;     /* bytes                                        */
	uint32_t type;     /* E820 type: 1 RAM, 2 reserved, 3 ACPI, 4 NVS, 5 bad */
	uint32_t reserved; /* must be zero                                 */
};

_Static_assert(sizeof(struct hvm_start_info) == 56, "hvm_start_info size");
_Static_assert(sizeof(struct hvm_memmap_table_entry) == 24, "memmap entry size");

#endif /* KPROF_BOOT_PVH_H */
