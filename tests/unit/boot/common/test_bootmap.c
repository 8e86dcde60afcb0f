/*
 * test_bootmap.c - building a bootinfo memory map (boot/common/bootmap.c):
 * sorting, overlap resolution, overlays that split entries, merging, and
 * counting what does not fit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "boot/common/bootmap.h"

static struct bootinfo bi;

static void expect(uint32_t i, uint64_t base, uint64_t end, uint32_t type)
{
	assert_true(i < bi.mmap_count);
	assert_int_equal(bi.mmap[i].base, base);
	assert_int_equal(bi.mmap[i].base + bi.mmap[i].length, end);
	assert_int_equal(bi.mmap[i].type, type);
}

static void check_sorted_disjoint(void)
{
	for (uint32_t i = 1; i < bi.mmap_count; i++)
		assert_true(bi.mmap[i - 1].base + bi.mmap[i - 1].length <= bi.mmap[i].base);
}

static void test_sort_and_merge(void **state)
{
	(void)state;
	memset(&bi, 0, sizeof(bi));
	bootmap_add(&bi, 0x3000, 0x1000, BOOTINFO_MEM_USABLE, 0);
	bootmap_add(&bi, 0x0000, 0x1000, BOOTINFO_MEM_USABLE, 0);
	bootmap_add(&bi, 0x1000, 0x2000, BOOTINFO_MEM_USABLE, 0);
	bootmap_add(&bi, 0x5000, 0x1000, BOOTINFO_MEM_USABLE, 0); /* gap before it */
	bootmap_add(&bi, 0x6000, 0x0000, BOOTINFO_MEM_RESERVED, 0); /* empty: ignored */
	bootmap_normalize(&bi);
	assert_int_equal(bi.mmap_count, 2);
	expect(0, 0x0000, 0x4000, BOOTINFO_MEM_USABLE);
	expect(1, 0x5000, 0x6000, BOOTINFO_MEM_USABLE);
}

static void test_attr_keeps_apart(void **state)
{
	(void)state;
	memset(&bi, 0, sizeof(bi));
	bootmap_add(&bi, 0x0000, 0x1000, BOOTINFO_MEM_USABLE, 0xF);
	bootmap_add(&bi, 0x1000, 0x1000, BOOTINFO_MEM_USABLE, 0x8);
	bootmap_normalize(&bi);
	assert_int_equal(bi.mmap_count, 2);
}

static void test_overlaps_resolved_by_priority(void **state)
{
	(void)state;
	memset(&bi, 0, sizeof(bi));
	/* Firmware maps sometimes overlap: reserved must win over usable. */
	bootmap_add(&bi, 0x0000, 0x10000, BOOTINFO_MEM_USABLE, 0);
	bootmap_add(&bi, 0x4000, 0x2000, BOOTINFO_MEM_RESERVED, 0);
	bootmap_add(&bi, 0xF000, 0x2000, BOOTINFO_MEM_ACPI_NVS, 0);
	bootmap_normalize(&bi);
	check_sorted_disjoint();
	assert_int_equal(bi.mmap_count, 4);
	expect(0, 0x0000, 0x4000, BOOTINFO_MEM_USABLE);
	expect(1, 0x4000, 0x6000, BOOTINFO_MEM_RESERVED);
	expect(2, 0x6000, 0xF000, BOOTINFO_MEM_USABLE);
	expect(3, 0xF000, 0x11000, BOOTINFO_MEM_ACPI_NVS);
}

static void test_overlay_splits(void **state)
{
	(void)state;
	memset(&bi, 0, sizeof(bi));
	bootmap_add(&bi, 0x100000, 0x1000000, BOOTINFO_MEM_USABLE, 0);
	bootmap_normalize(&bi);
	bootmap_overlay(&bi, 0x200000, 0x180000, BOOTINFO_MEM_KERNEL);
	bootmap_overlay(&bi, 0x400000, 0x1000, BOOTINFO_MEM_LOADER);
	bootmap_overlay(&bi, 0x401000, 0x1000, BOOTINFO_MEM_LOADER); /* merges */
	check_sorted_disjoint();
	assert_int_equal(bi.mmap_count, 5);
	expect(0, 0x100000, 0x200000, BOOTINFO_MEM_USABLE);
	expect(1, 0x200000, 0x380000, BOOTINFO_MEM_KERNEL);
	expect(2, 0x380000, 0x400000, BOOTINFO_MEM_USABLE);
	expect(3, 0x400000, 0x402000, BOOTINFO_MEM_LOADER);
	expect(4, 0x402000, 0x1100000, BOOTINFO_MEM_USABLE);
	/* Overlay across several entries and beyond the end. */
	bootmap_overlay(&bi, 0x300000, 0x2000000, BOOTINFO_MEM_RESERVED);
	assert_int_equal(bi.mmap_count, 3);
	expect(2, 0x300000, 0x2300000, BOOTINFO_MEM_RESERVED);
}

static void test_overflow_counted(void **state)
{
	(void)state;
	memset(&bi, 0, sizeof(bi));
	for (uint32_t i = 0; i < BOOTINFO_MMAP_MAX + 10; i++)
		bootmap_add(&bi, (uint64_t)i * 0x2000, 0x1000, BOOTINFO_MEM_USABLE, 0);
	assert_int_equal(bi.mmap_count, BOOTINFO_MMAP_MAX);
	assert_int_equal(bi.mmap_dropped, 10);
	bootmap_normalize(&bi);
	check_sorted_disjoint();
	/* Splitting a full map drops the highest entry, counted. */
	bootmap_overlay(&bi, 0x800, 0x100, BOOTINFO_MEM_LOADER);
	assert_int_equal(bi.mmap_count, BOOTINFO_MMAP_MAX);
	assert_int_equal(bi.mmap_dropped, 12);
	check_sorted_disjoint();
	expect(1, 0x800, 0x900, BOOTINFO_MEM_LOADER);
}

static void test_wrapping_entry_clipped(void **state)
{
	(void)state;
	memset(&bi, 0, sizeof(bi));
	bootmap_add(&bi, UINT64_MAX - 0xFFF, 0x2000, BOOTINFO_MEM_RESERVED, 0);
	bootmap_normalize(&bi);
	assert_int_equal(bi.mmap_count, 1);
	assert_int_equal(bi.mmap[0].base + bi.mmap[0].length, UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_and_merge),
		cmocka_unit_test(test_attr_keeps_apart),
		cmocka_unit_test(test_overlaps_resolved_by_priority),
		cmocka_unit_test(test_overlay_splits),
		cmocka_unit_test(test_overflow_counted),
		cmocka_unit_test(test_wrapping_entry_clipped),
	};
	return cmocka_run_group_tests_name("bootmap", tests, NULL, NULL);
}
