/*
 * pvh.c - fill struct bootinfo from a PVH start_info (direct boot).
 *
 * Runs on the boot stack right after pvh_entry.asm reached the higher half,
 * with the early identity map of the first 4 GiB still active: start_info,
 * its memory map and its command line are read through that identity map.
 * QEMU's PVH option ROM places all of them below 1 MiB.
 */
#include "boot/bootinfo.h"
#include "boot/common/bootcmdline.h"
#include "boot/common/bootmap.h"
#include "boot/pvh/pvh.h"
#include <arch/cpu.h>
#include <arch/sections.h>

static struct bootinfo pvh_bootinfo;

/* The early map covers 0..4 GiB; anything above is not reachable yet. */
static const void *pvh_phys(uint64_t pa)
{
	return pa != 0 && pa < (1ULL << 32) ? (const void *)(uintptr_t)pa : 0;
}

/* E820 types 1..5 are the first five bootinfo types. */
static uint32_t pvh_mem_type(uint32_t e820)
{
	return e820 >= 1 && e820 <= 5 ? e820 : BOOTINFO_MEM_RESERVED;
}

struct bootinfo *pvh_build_bootinfo(uint64_t start_info_pa)
{
	const struct hvm_start_info *si = pvh_phys(start_info_pa);
	struct bootinfo *bi = &pvh_bootinfo;
	static const char name[] = "pvh";

	bi->magic = BOOTINFO_MAGIC;
	bi->version = BOOTINFO_VERSION;
	bi->size = sizeof(*bi);
	bi->loader = BOOTINFO_LOADER_PVH;
	bi->loader_tsc = arch_rdtsc();
	for (uint32_t i = 0; i < sizeof(name); i++)
		bi->loader_name[i] = name[i];
	bi->kernel_phys_base = KPROF_KERNEL_LINK_PA;
	bi->kernel_phys_end = KPROF_KERNEL_LINK_PA + (uint64_t)(__kernel_end - __kernel_start);

	if (!si || si->magic != HVM_START_MAGIC_VALUE) {
		/* Not PVH after all: leave an empty map; the kernel reports it. */
		bi->handoff_tsc = arch_rdtsc();
		return bi;
	}
	/* An overlong line is not cut but refused (by the kernel, which can
	 * print: kernel_main). */
	bootinfo_copy_cmdline(bi, pvh_phys(si->cmdline_paddr), BOOTINFO_CMDLINE_PVH);
	bi->rsdp_phys = si->rsdp_paddr;

	if (si->version >= 1) {
		const struct hvm_memmap_table_entry *e = pvh_phys(si->memmap_paddr);
		for (uint32_t i = 0; e && i < si->memmap_entries; i++)
			bootmap_add(bi, e[i].addr, e[i].size, pvh_mem_type(e[i].type), 0);
	}
	bootmap_normalize(bi);
	bootmap_overlay(bi, bi->kernel_phys_base, bi->kernel_phys_end - bi->kernel_phys_base,
			BOOTINFO_MEM_KERNEL);
	bi->handoff_tsc = arch_rdtsc();
	return bi;
}
