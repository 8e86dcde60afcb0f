/*
 * test_heap.c - kmalloc/kfree (kernel/mm/heap.c) over the real page allocator
 * on 16 MiB of fake RAM.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arch/mmu.h>

#include "kernel/mm/heap.h"
#include "kernel/mm/pmm.h"
#include "shadow.h"

#define MiB (1ULL << 20)
static void *ram;

static int setup(void **state)
{
	(void)state;
	static struct bootinfo bi;
	memset(&bi, 0, sizeof(bi));
	bi.mmap[0] = (struct bootinfo_mmap_entry){ 1 * MiB, 16 * MiB, BOOTINFO_MEM_USABLE, 0 };
	bi.mmap_count = 1;
	ram = aligned_alloc(PAGE_SIZE, 16 * MiB);
	arch_hhdm_offset = (uint64_t)(uintptr_t)ram - 1 * MiB;
	return pmm_init(&bi);
}

static void test_sizes_alignment_and_isolation(void **state)
{
	(void)state;
	static const size_t sizes[] = { 1, 15, 16, 17, 100, 1000, 2032, 2033, 4000, 4096, 20000, 100000 };
	void *p[sizeof(sizes) / sizeof(sizes[0])];
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p[i] = kmalloc(sizes[i]);
		assert_non_null(p[i]);
		assert_int_equal((uintptr_t)p[i] % 16, 0);
		memset(p[i], (int)i + 1, sizes[i]);
	}
	/* No block overlaps another: every fill pattern is intact. */
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *b = p[i];
		for (size_t j = 0; j < sizes[i]; j++)
			assert_int_equal(b[j], (unsigned char)(i + 1));
		kfree(p[i]);
	}
	struct heap_stats st;
	heap_get_stats(&st);
	assert_int_equal(st.bytes_live, 0);
	assert_int_equal(st.allocs, st.frees);
}

static void test_reuse_after_free(void **state)
{
	(void)state;
	void *a = kmalloc(64);
	kfree(a);
	void *b = kmalloc(64);
	assert_ptr_equal(a, b); /* LIFO free list */
	kfree(b);
	void *z = kzalloc(300);
	for (int i = 0; i < 300; i++)
		assert_int_equal(((unsigned char *)z)[i], 0);
	kfree(z);
}

static void test_zero_and_huge_sizes(void **state)
{
	(void)state;
	assert_null(kmalloc(0));
	assert_null(kmalloc(SIZE_MAX));
	assert_null(kmalloc(64 * MiB)); /* more than the fake RAM */
	kfree(NULL);
}

static void test_double_free_bugchecks(void **state)
{
	(void)state;
	void *a = kmalloc(48);
	kfree(a);
	assert_true(SHADOW_EXPECT_BUGCHECK(kfree(a)));
	char junk[64] __attribute__((aligned(16))) = { 0 };
	assert_true(SHADOW_EXPECT_BUGCHECK(kfree(junk + 16)));
}

static void test_big_blocks_return_pages(void **state)
{
	(void)state;
	struct pmm_stats before, after;
	pmm_get_stats(&before);
	void *big = kmalloc(5 * PAGE_SIZE);
	pmm_get_stats(&after);
	assert_int_equal(after.free_pages, before.free_pages - 6); /* header needs a page more */
	kfree(big);
	pmm_get_stats(&after);
	assert_int_equal(after.free_pages, before.free_pages);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes_alignment_and_isolation),
		cmocka_unit_test(test_reuse_after_free),
		cmocka_unit_test(test_zero_and_huge_sizes),
		cmocka_unit_test(test_double_free_bugchecks),
		cmocka_unit_test(test_big_blocks_return_pages),
	};
	return cmocka_run_group_tests_name("heap", tests, setup, NULL);
}
