/*
 * pmm.c - physical page allocator: a bitmap over all of RAM.
 *
 * Invariants:
 *   - bit i set <=> page i (address i * 4 KiB) is allocated, reserved, or
 *     not RAM; pages at or past pmm.top do not exist for the allocator.
 *   - pmm.free equals the number of clear bits.
 *   - The bitmap's own pages are set.
 *   - Pages below PMM_LOW_LIMIT are never returned by pmm_alloc_pages*().
 * Locking: pmm.lock (a raw lock) around every bitmap change; no other lock
 * is taken while holding it.
 *
 * Allocation is first fit from a rotating hint, skipping full 64-page words,
 * which keeps the common one-page case short.  With pmm_set_high_first()
 * (mm.high_first=on, a test setting) pmm_alloc_pages() takes the first fit
 * above 4 GiB when there is one, so that memory a device must find below
 * 4 GiB is there only if it was asked for with pmm_alloc_pages_below().
 */
#include "kernel/mm/pmm.h"

#include <arch/mmu.h>

#include "kernel/lib/libk.h"
#include "kernel/ke/rawlock.h"

static struct {
	uint64_t bitmap_phys;/* physical address of the bitmap       */
	uint64_t words;      /* 64-bit words in the bitmap           */
	uint64_t top;        /* pages tracked = top / PAGE_SIZE      */
	uint64_t total;      /* usable pages at init                 */
	uint64_t free;       /* clear bits                           */
	uint64_t hint;       /* page index where the next search starts */
	raw_lock_t lock;     /* guards all of the above after init   */
} pmm;

/* Through phys_to_virt() every time: the bitmap is first reached through the
 * loader's identity map, then through the direct map. */
static uint64_t *bitmap(void) { return phys_to_virt(pmm.bitmap_phys); }
static bool bit_test(uint64_t i) { return bitmap()[i / 64] & (1ULL << (i % 64)); }
static void bit_set(uint64_t i) { bitmap()[i / 64] |= 1ULL << (i % 64); }
static void bit_clear(uint64_t i) { bitmap()[i / 64] &= ~(1ULL << (i % 64)); }

/* Counted in pages usable by the kernel in the end (LOADER and KERNEL pages
 * are RAM too). */
static bool is_ram(uint32_t type)
{
	return type == BOOTINFO_MEM_USABLE || type == BOOTINFO_MEM_LOADER || type == BOOTINFO_MEM_KERNEL;
}

static void mark_range_free(uint64_t base, uint64_t length)
{
	uint64_t first = ALIGN_UP(base, PAGE_SIZE) / PAGE_SIZE;
	uint64_t end = ALIGN_DOWN(base + length, PAGE_SIZE) / PAGE_SIZE;

	for (uint64_t i = first; i < end && i < pmm.top / PAGE_SIZE; i++) {
		if (bit_test(i)) {
			bit_clear(i);
			pmm.free++;
		}
	}
}

static void mark_range_used(uint64_t base, uint64_t length)
{
	uint64_t first = base / PAGE_SIZE;
	uint64_t end = ALIGN_UP(base + length, PAGE_SIZE) / PAGE_SIZE;

	for (uint64_t i = first; i < end && i < pmm.top / PAGE_SIZE; i++) {
		if (!bit_test(i)) {
			bit_set(i);
			pmm.free--;
		}
	}
}

int pmm_init(const struct bootinfo *bi)
{
	uint64_t top = 0;

	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct bootinfo_mmap_entry *e = &bi->mmap[i];
		if (is_ram(e->type) && e->base + e->length > top)
			top = e->base + e->length;
	}
	top = ALIGN_DOWN(top, PAGE_SIZE);
	uint64_t pages = top / PAGE_SIZE;
	uint64_t words = (pages + 63) / 64;
	uint64_t bytes = ALIGN_UP(words * 8, PAGE_SIZE);

	/* The bitmap goes in the first usable range above 1 MiB and below
	 * 4 GiB (reachable through every loader's early identity map). */
	uint64_t where = 0;
	for (uint32_t i = 0; i < bi->mmap_count && !where; i++) {
		const struct bootinfo_mmap_entry *e = &bi->mmap[i];
		uint64_t b = ALIGN_UP(MAX(e->base, PMM_LOW_LIMIT), PAGE_SIZE);
		if (e->type == BOOTINFO_MEM_USABLE && b + bytes <= e->base + e->length && b + bytes <= (1ULL << 32))
			where = b;
	}
	if (!where || pages == 0)
		return -1;

	pmm.bitmap_phys = where;
	pmm.words = words;
	pmm.top = top;
	pmm.free = 0;
	memset(bitmap(), 0xFF, words * 8); /* everything used ...           */
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct bootinfo_mmap_entry *e = &bi->mmap[i];
		if (e->type == BOOTINFO_MEM_USABLE)
			mark_range_free(e->base, e->length); /* ... except free RAM */
	}
	pmm.total = pmm.free;
	for (uint32_t i = 0; i < bi->mmap_count; i++) {
		const struct bootinfo_mmap_entry *e = &bi->mmap[i];
		if (e->type == BOOTINFO_MEM_LOADER || e->type == BOOTINFO_MEM_KERNEL)
			pmm.total += ALIGN_UP(e->length, PAGE_SIZE) / PAGE_SIZE;
	}
	mark_range_used(where, bytes);
	pmm.hint = PMM_LOW_LIMIT / PAGE_SIZE;
	return 0;
}

void pmm_release_type(const struct bootinfo *bi, uint32_t type)
{
	unsigned long flags = raw_lock_irqsave(&pmm.lock);
	for (uint32_t i = 0; i < bi->mmap_count; i++)
		if (bi->mmap[i].type == type)
			mark_range_free(bi->mmap[i].base, bi->mmap[i].length);
	raw_unlock_irqrestore(&pmm.lock, flags);
}

/* First run of n clear bits in [lo, hi) pages, or hi if none. */
static uint64_t find_run(uint64_t lo, uint64_t hi, size_t n)
{
	uint64_t i = lo;

	while (i + n <= hi) {
		if ((i % 64) == 0 && bitmap()[i / 64] == ~0ULL) {
			i += 64; /* a full word: nothing here */
			continue;
		}
		if (bit_test(i)) {
			i++;
			continue;
		}
		size_t run = 1;
		while (run < n && !bit_test(i + run))
			run++;
		if (run == n)
			return i;
		i += run + 1;
	}
	return hi;
}

static uint64_t alloc_in(size_t n, uint64_t lo, uint64_t hi)
{
	if (n == 0 || hi <= lo)
		return 0;
	unsigned long flags = raw_lock_irqsave(&pmm.lock);
	uint64_t start = MAX(lo, MIN(pmm.hint, hi));
	uint64_t at = find_run(start, hi, n);
	if (at >= hi)
		at = find_run(lo, MIN(hi, start + n), n); /* wrap to the front */
	uint64_t pa = 0;
	if (at < hi && at + n <= hi) {
		for (uint64_t i = at; i < at + n; i++)
			bit_set(i);
		pmm.free -= n;
		if (lo == PMM_LOW_LIMIT / PAGE_SIZE)
			pmm.hint = at + n;
		pa = at * PAGE_SIZE;
	}
	raw_unlock_irqrestore(&pmm.lock, flags);
	return pa;
}

#define PMM_4G (1ull << 32)

static bool high_first;

void pmm_set_high_first(bool on)
{
	high_first = on;
}

uint64_t pmm_alloc_pages(size_t n)
{
	uint64_t pa = 0;

	if (high_first && pmm.top > PMM_4G)
		pa = alloc_in(n, PMM_4G / PAGE_SIZE, pmm.top / PAGE_SIZE);
	return pa ? pa : alloc_in(n, PMM_LOW_LIMIT / PAGE_SIZE, pmm.top / PAGE_SIZE);
}

uint64_t pmm_alloc_pages_below(size_t n, uint64_t limit)
{
	return alloc_in(n, PMM_LOW_LIMIT / PAGE_SIZE, MIN(limit, pmm.top) / PAGE_SIZE);
}

uint64_t pmm_alloc_low_page(void)
{
	/* Page 0 holds the real-mode IVT and BIOS data: never handed out, which
	 * also keeps 0 free to mean "no page". */
	return alloc_in(1, 1, MIN(PMM_LOW_LIMIT, pmm.top) / PAGE_SIZE);
}

bool pmm_free_pages(uint64_t pa, size_t n)
{
	if (pa % PAGE_SIZE || n == 0)
		return false;
	uint64_t first = pa / PAGE_SIZE;
	if (first + n > pmm.top / PAGE_SIZE || first + n < first)
		return false;
	unsigned long flags = raw_lock_irqsave(&pmm.lock);
	bool ok = true;
	for (uint64_t i = first; i < first + n; i++)
		if (!bit_test(i))
			ok = false; /* double free: change nothing */
	if (ok) {
		for (uint64_t i = first; i < first + n; i++)
			bit_clear(i);
		pmm.free += n;
	}
	raw_unlock_irqrestore(&pmm.lock, flags);
	return ok;
}

void pmm_get_stats(struct pmm_stats *st)
{
	unsigned long flags = raw_lock_irqsave(&pmm.lock);
	st->total_pages = pmm.total;
	st->free_pages = pmm.free;
	st->top = pmm.top;
	st->bitmap_phys = pmm.bitmap_phys;
	st->bitmap_bytes = ALIGN_UP(pmm.words * 8, PAGE_SIZE);
	raw_unlock_irqrestore(&pmm.lock, flags);
}
