/*
 * bootlog.c - boot-log lines describing memory and the CPU.
 */
#include "kernel/console/bootlog.h"

#include <arch/mmu.h>
#include <arch/platform.h>

#include "kernel/ke/ke_keys.h"
#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/mm/pmm.h"
#include "kernel/lib/printf.h"
#include "kernel/lib/size.h"
#include "kernel/ke/rawlock.h"

static const char *const mem_type_names[] = {
	[BOOTINFO_MEM_USABLE] = "usable",
	[BOOTINFO_MEM_RESERVED] = "reserved",
	[BOOTINFO_MEM_ACPI_RECLAIM] = "ACPI",
	[BOOTINFO_MEM_ACPI_NVS] = "ACPI NVS",
	[BOOTINFO_MEM_BAD] = "bad",
	[BOOTINFO_MEM_LOADER] = "loader",
	[BOOTINFO_MEM_KERNEL] = "kernel",
	[BOOTINFO_MEM_FIRMWARE] = "firmware",
	[BOOTINFO_MEM_MMIO] = "MMIO",
	[BOOTINFO_MEM_PERSISTENT] = "persistent",
};
#define MEM_TYPES ARRAY_SIZE(mem_type_names)
/* "12.3 MiB": tenths rounded to the nearest. */
#define MEM_SIZE (SIZE_MIB | SIZE_ROUND)

void bootlog_memory(const struct bootinfo *bi)
{
	uint64_t totals[MEM_TYPES] = { 0 };
	uint64_t top_ram = 0;
	char line[400], num[32];
	size_t len = 0;

	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct bootinfo_mmap_entry *e = &bi->mmap[i];
		uint32_t t = e->type < MEM_TYPES && mem_type_names[e->type] ? e->type : BOOTINFO_MEM_RESERVED;
		totals[t] += e->length;
		if (t == BOOTINFO_MEM_USABLE || t == BOOTINFO_MEM_KERNEL || t == BOOTINFO_MEM_LOADER)
			top_ram = MAX(top_ram, e->base + e->length);
	}
	kprintf("memory: %u ranges from the loader%s, RAM up to 0x%llx\n", bi->mmap_count,
		bi->mmap_dropped ? " (some dropped: map too long)" : "", (unsigned long long)top_ram);
	for (uint32_t t = 1; t < MEM_TYPES; t++) {
		if (!totals[t])
			continue;
		size_format(num, sizeof(num), totals[t], MEM_SIZE);
		len += (size_t)ksnprintf(line + len, sizeof(line) - MIN(len, sizeof(line)), "%s%s %s",
					 len ? ", " : "", mem_type_names[t], num);
	}
	kprintf("memory: %s\n", line);

	struct pmm_stats st;
	pmm_get_stats(&st);
	size_format(num, sizeof(num), st.free_pages * PAGE_SIZE, MEM_SIZE);
	kprintf("memory: %llu of %llu pages free (%s), page bitmap %llu KiB at 0x%llx\n",
		(unsigned long long)st.free_pages, (unsigned long long)st.total_pages, num,
		(unsigned long long)st.bitmap_bytes / 1024, (unsigned long long)st.bitmap_phys);
}

void bootlog_memory_map(const struct bootinfo *bi)
{
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct bootinfo_mmap_entry *e = &bi->mmap[i];
		const char *name = e->type < MEM_TYPES && mem_type_names[e->type] ? mem_type_names[e->type] : "?";
		kprintf("memory:   [0x%016llx-0x%016llx) %s\n", (unsigned long long)e->base,
			(unsigned long long)(e->base + e->length), name);
	}
}

void bootlog_cpu(void)
{
	struct arch_cpu_desc d;

	arch_cpu_describe(&d);
	kprintf("cpu: %s \"%s\" family 0x%x model 0x%x stepping %u%s%s%s\n", d.vendor, d.brand[0] ? d.brand : "?",
		d.family, d.model, d.stepping, d.hypervisor[0] ? ", hypervisor \"" : "", d.hypervisor,
		d.hypervisor[0] ? "\"" : "");
}

void bootlog_locks(uint32_t mode)
{
	kprintf("locks: the kernel's own spin locks are %s (%s)\n",
		raw_lock_tas ? "test-and-set" : "ticket locks, first come first served",
		mode != RAWLOCK_AUTO ? "rawlock= on the command line"
		: raw_lock_tas       ? "under a hypervisor, where a queue order waits for virtual CPUs the host is "
				       "not running"
				     : "no hypervisor");
}
