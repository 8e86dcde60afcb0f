/*
 * test_mmap_convert.c - the UEFI loader's memory-map conversion
 * (boot/uefi/mmap_convert.c): type translation, descriptor stride, and the
 * loader's own ranges overlaid as KERNEL and LOADER.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "boot/uefi/mmap_convert.h"

#define DESC 48 /* firmware descriptor stride larger than the struct (40) */

static unsigned char raw[64 * DESC];
static size_t nraw;

static void desc(uint32_t type, uint64_t base, uint64_t pages, uint64_t attr)
{
	struct ldr_efi_mdesc d = { .type = type, .phys_start = base, .pages = pages, .attr = attr };
	memcpy(raw + nraw * DESC, &d, sizeof(d));
	nraw++;
}

static void test_types(void **state)
{
	(void)state;
	assert_int_equal(ldr_mmap_type(LDR_EFI_CONVENTIONAL), BOOTINFO_MEM_USABLE);
	assert_int_equal(ldr_mmap_type(LDR_EFI_BS_DATA), BOOTINFO_MEM_USABLE);
	assert_int_equal(ldr_mmap_type(LDR_EFI_LOADER_CODE), BOOTINFO_MEM_USABLE);
	assert_int_equal(ldr_mmap_type(LDR_EFI_RT_CODE), BOOTINFO_MEM_FIRMWARE);
	assert_int_equal(ldr_mmap_type(LDR_EFI_ACPI_RECLAIM), BOOTINFO_MEM_ACPI_RECLAIM);
	assert_int_equal(ldr_mmap_type(LDR_EFI_ACPI_NVS), BOOTINFO_MEM_ACPI_NVS);
	assert_int_equal(ldr_mmap_type(LDR_EFI_UNUSABLE), BOOTINFO_MEM_BAD);
	assert_int_equal(ldr_mmap_type(LDR_EFI_MMIO_PORT), BOOTINFO_MEM_MMIO);
	assert_int_equal(ldr_mmap_type(LDR_EFI_PERSISTENT), BOOTINFO_MEM_PERSISTENT);
	assert_int_equal(ldr_mmap_type(15), BOOTINFO_MEM_RESERVED); /* unaccepted memory */
	assert_int_equal(ldr_mmap_type(0x80000001u), BOOTINFO_MEM_RESERVED);
}

static void test_convert_with_overlays(void **state)
{
	(void)state;
	static struct bootinfo bi;
	nraw = 0;
	/* Unsorted, with boot-services memory that becomes usable. */
	desc(LDR_EFI_CONVENTIONAL, 0x100000, 0x100, 0xF);
	desc(LDR_EFI_BS_DATA, 0x200000, 0x200, 0xF);       /* kernel goes here */
	desc(LDR_EFI_CONVENTIONAL, 0x0, 0x9F, 0xF);
	desc(LDR_EFI_LOADER_DATA, 0x400000, 0x10, 0xF);     /* bootinfo here */
	desc(LDR_EFI_RT_DATA, 0x410000, 0x4, 0x800000000000000FULL);
	desc(LDR_EFI_CONVENTIONAL, 0x414000, 0x0, 0xF);     /* empty: ignored */
	struct ldr_mem_range ov[2] = {
		{ 0x200000, 0x180000, BOOTINFO_MEM_KERNEL },
		{ 0x400000, 0x3000, BOOTINFO_MEM_LOADER },
	};
	assert_int_equal(ldr_mmap_highest_end(raw, nraw * DESC, DESC), 0x414000);
	ldr_mmap_convert(raw, nraw * DESC, DESC, ov, 2, &bi);
	assert_int_equal(bi.mmap_dropped, 0);
	struct { uint64_t b, e; uint32_t t; } want[] = {
		{ 0x0, 0x9F000, BOOTINFO_MEM_USABLE },
		{ 0x100000, 0x200000, BOOTINFO_MEM_USABLE },
		{ 0x200000, 0x380000, BOOTINFO_MEM_KERNEL },
		{ 0x380000, 0x400000, BOOTINFO_MEM_USABLE },
		{ 0x400000, 0x403000, BOOTINFO_MEM_LOADER },
		{ 0x403000, 0x410000, BOOTINFO_MEM_USABLE },
		{ 0x410000, 0x414000, BOOTINFO_MEM_FIRMWARE },
	};
	assert_int_equal(bi.mmap_count, 7);
	for (unsigned i = 0; i < 7; i++) {
		assert_int_equal(bi.mmap[i].base, want[i].b);
		assert_int_equal(bi.mmap[i].base + bi.mmap[i].length, want[i].e);
		assert_int_equal(bi.mmap[i].type, want[i].t);
	}
	assert_int_equal(bi.mmap[6].attr, 0xF); /* low 32 bits of the attribute */
}

static void test_short_descriptors_rejected(void **state)
{
	(void)state;
	static struct bootinfo bi;
	bi.mmap_count = 3;
	ldr_mmap_convert(raw, 64, 16, NULL, 0, &bi);
	assert_int_equal(bi.mmap_count, 0);
	assert_int_equal(ldr_mmap_highest_end(raw, 64, 16), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_convert_with_overlays),
		cmocka_unit_test(test_short_descriptors_rejected),
	};
	return cmocka_run_group_tests_name("mmap_convert", tests, NULL, NULL);
}
