/*
 * test_pmm.c - the physical page allocator (kernel/mm/pmm.c) on a fake memory
 * map.  Only the bitmap is real memory (a host buffer behind phys_to_virt);
 * the pages themselves are never touched by the allocator.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arch/mmu.h>

#include "kernel/mm/pmm.h"

#define MiB (1ULL << 20)
#define GiB (1ULL << 30)

static struct bootinfo bi;
static void *ram; /* backs [1 MiB, 1 MiB + 8 MiB) physical */

static void add(uint64_t base, uint64_t len, uint32_t type)
{
	bi.mmap[bi.mmap_count++] = (struct bootinfo_mmap_entry){ base, len, type, 0 };
}

/* 0-640K usable, legacy hole, 1M-128M usable with the kernel at 2M-4M and
 * loader data at 100M-101M, a PCI hole, then 4G-6G usable. */
static int setup(void **state)
{
	(void)state;
	memset(&bi, 0, sizeof(bi));
	add(0, 0x9F000, BOOTINFO_MEM_USABLE);
	add(0x9F000, 0x61000, BOOTINFO_MEM_RESERVED);
	add(1 * MiB, 1 * MiB, BOOTINFO_MEM_USABLE);
	add(2 * MiB, 2 * MiB, BOOTINFO_MEM_KERNEL);
	add(4 * MiB, 96 * MiB, BOOTINFO_MEM_USABLE);
	add(100 * MiB, 1 * MiB, BOOTINFO_MEM_LOADER);
	add(101 * MiB, 27 * MiB, BOOTINFO_MEM_USABLE);
	add(128 * MiB, 16 * MiB, BOOTINFO_MEM_ACPI_RECLAIM);
	add(3 * GiB, 1 * GiB, BOOTINFO_MEM_MMIO);
	add(4 * GiB, 2 * GiB, BOOTINFO_MEM_USABLE);
	ram = calloc(1, 8 * MiB);
	arch_hhdm_offset = (uint64_t)(uintptr_t)ram - 1 * MiB;
	return pmm_init(&bi);
}

static int teardown(void **state)
{
	(void)state;
	free(ram);
	return 0;
}

static uint32_t type_at(uint64_t pa)
{
	for (uint32_t i = 0; i < bi.mmap_count; i++)
		if (pa >= bi.mmap[i].base && pa < bi.mmap[i].base + bi.mmap[i].length)
			return bi.mmap[i].type;
	return 0;
}

static void test_counts(void **state)
{
	(void)state;
	struct pmm_stats st;
	pmm_get_stats(&st);
	uint64_t usable = (0x9F000 + 1 * MiB + 96 * MiB + 27 * MiB + 2 * GiB) / PAGE_SIZE;
	uint64_t bitmap_pages = st.bitmap_bytes / PAGE_SIZE;
	assert_int_equal(st.top, 6 * GiB);
	assert_int_equal(st.bitmap_bytes, ((6 * GiB / PAGE_SIZE / 8) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1));
	assert_int_equal(st.bitmap_phys, 1 * MiB); /* first usable page above 1 MiB */
	assert_int_equal(st.free_pages, usable - bitmap_pages);
	assert_int_equal(st.total_pages, usable + (2 * MiB + 1 * MiB) / PAGE_SIZE);
}

static void test_single_pages_are_usable_ram(void **state)
{
	(void)state;
	struct pmm_stats before, after;
	uint64_t got[512];
	pmm_get_stats(&before);
	for (int i = 0; i < 512; i++) {
		got[i] = pmm_alloc_pages(1);
		assert_int_not_equal(got[i], 0);
		assert_int_equal(got[i] % PAGE_SIZE, 0);
		assert_true(got[i] >= PMM_LOW_LIMIT);
		assert_int_equal(type_at(got[i]), BOOTINFO_MEM_USABLE);
		for (int j = 0; j < i; j++)
			assert_int_not_equal(got[i], got[j]);
	}
	pmm_get_stats(&after);
	assert_int_equal(after.free_pages, before.free_pages - 512);
	for (int i = 0; i < 512; i++)
		assert_true(pmm_free_pages(got[i], 1));
	pmm_get_stats(&after);
	assert_int_equal(after.free_pages, before.free_pages);
}

static void test_contiguous_runs_stay_in_one_range(void **state)
{
	(void)state;
	/* 50 MiB fits only in 4M-100M or above 4 GiB, never across the kernel. */
	uint64_t n = 50 * MiB / PAGE_SIZE;
	uint64_t pa = pmm_alloc_pages(n);
	assert_int_not_equal(pa, 0);
	for (uint64_t off = 0; off < n * PAGE_SIZE; off += PAGE_SIZE)
		assert_int_equal(type_at(pa + off), BOOTINFO_MEM_USABLE);
	uint64_t pb = pmm_alloc_pages(n);
	assert_int_not_equal(pb, 0);
	assert_true(pb >= pa + n * PAGE_SIZE || pb + n * PAGE_SIZE <= pa);
	assert_true(pmm_free_pages(pa, n));
	assert_true(pmm_free_pages(pb, n));
	/* More than any range holds. */
	assert_int_equal(pmm_alloc_pages(3 * GiB / PAGE_SIZE), 0);
}

static void test_below_limit(void **state)
{
	(void)state;
	for (int i = 0; i < 64; i++) {
		uint64_t pa = pmm_alloc_pages_below(4, 100 * MiB);
		assert_int_not_equal(pa, 0);
		assert_true(pa + 4 * PAGE_SIZE <= 100 * MiB);
		assert_true(pmm_free_pages(pa, 4));
	}
	assert_int_equal(pmm_alloc_pages_below(1, PMM_LOW_LIMIT), 0);
}

static void test_low_page(void **state)
{
	(void)state;
	uint64_t pa = pmm_alloc_low_page();
	assert_int_not_equal(pa, 0);
	assert_true(pa < PMM_LOW_LIMIT);
	assert_int_equal(type_at(pa), BOOTINFO_MEM_USABLE);
	assert_true(pmm_free_pages(pa, 1));
}

static void test_bad_frees_change_nothing(void **state)
{
	(void)state;
	struct pmm_stats before, after;
	uint64_t pa = pmm_alloc_pages(2);
	pmm_get_stats(&before);
	assert_false(pmm_free_pages(pa + 1, 1));          /* unaligned */
	assert_false(pmm_free_pages(pa, 0));              /* nothing */
	assert_false(pmm_free_pages(7 * GiB, 1));         /* beyond RAM */
	assert_false(pmm_free_pages(UINT64_MAX & ~0xFFFULL, 2)); /* wraps */
	assert_true(pmm_free_pages(pa, 1));
	assert_false(pmm_free_pages(pa, 2));              /* half double free */
	pmm_get_stats(&after);
	assert_int_equal(after.free_pages, before.free_pages + 1);
	assert_true(pmm_free_pages(pa + PAGE_SIZE, 1));
}

static void test_release_loader(void **state)
{
	(void)state;
	struct pmm_stats before, after;
	pmm_get_stats(&before);
	pmm_release_type(&bi, BOOTINFO_MEM_LOADER);
	pmm_get_stats(&after);
	assert_int_equal(after.free_pages, before.free_pages + 1 * MiB / PAGE_SIZE);
	pmm_release_type(&bi, BOOTINFO_MEM_LOADER); /* twice: no change */
	pmm_get_stats(&before);
	assert_int_equal(after.free_pages, before.free_pages);
}

static void test_exhaustion_and_recovery(void **state)
{
	(void)state;
	struct pmm_stats st;
	pmm_get_stats(&st);
	uint64_t free0 = st.free_pages;
	uint64_t *pages = malloc(free0 * sizeof(*pages));
	uint64_t n = 0, pa;
	while ((pa = pmm_alloc_pages(1)) != 0)
		pages[n++] = pa;
	pmm_get_stats(&st);
	/* Everything but the low pool is gone. */
	assert_int_equal(st.free_pages, free0 - n);
	assert_true(st.free_pages < PMM_LOW_LIMIT / PAGE_SIZE);
	assert_int_equal(pmm_alloc_pages(1), 0);
	for (uint64_t i = 0; i < n; i++)
		assert_true(pmm_free_pages(pages[i], 1));
	pmm_get_stats(&st);
	assert_int_equal(st.free_pages, free0);
	free(pages);
}

static void test_no_room_for_bitmap(void **state)
{
	(void)state;
	struct bootinfo small = { 0 };
	small.mmap[0] = (struct bootinfo_mmap_entry){ 0, 0x9F000, BOOTINFO_MEM_USABLE, 0 };
	small.mmap[1] = (struct bootinfo_mmap_entry){ 5 * GiB, 1 * GiB, BOOTINFO_MEM_USABLE, 0 };
	small.mmap_count = 2;
	/* Only RAM above 4 GiB (unreachable early) or below 1 MiB: refused. */
	assert_int_equal(pmm_init(&small), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_single_pages_are_usable_ram, setup, teardown),
		cmocka_unit_test_setup_teardown(test_contiguous_runs_stay_in_one_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_below_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_low_page, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_frees_change_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_loader, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exhaustion_and_recovery, setup, teardown),
		cmocka_unit_test(test_no_room_for_bitmap),
	};
	return cmocka_run_group_tests_name("pmm", tests, NULL, NULL);
}
