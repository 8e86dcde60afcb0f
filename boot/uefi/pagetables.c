/*
 * pagetables.c - the 4-level page tables the kernel is entered with.
 *
 * 2 MiB pages, present + writable, no NX, no caching bits:
 *   - identity map of physical 0 .. identity_top (rounded up to 1 GiB);
 *   - KPROF_KERNEL_LINK_VA onwards -> kernel_phys_base, ceil(span / 2 MiB)
 *     pages (both ends are 2 MiB aligned).
 * All tables come from one LOADER allocation sized exactly in advance.
 */
#include "boot/uefi/ldr.h"

#define PTE_P    (1ULL << 0)
#define PTE_W    (1ULL << 1)
#define PTE_PS   (1ULL << 7)
#define PTE_ADDR 0x000ffffffffff000ULL

#define LDR_512G       (1ULL << 39)
#define LDR_LOWER_HALF (1ULL << 47) /* end of the canonical lower half */

struct ldr_pt_pool {
	uint64_t next; /* physical address of the next free table */
	uint64_t end;  /* end of the pool                         */
};

static uint64_t *ldr_pt_next(struct ldr_pt_pool *pool, uint64_t *table,
			     unsigned int idx)
{
	if (!(table[idx] & PTE_P)) {
		if (pool->next >= pool->end)
			return NULL;
		table[idx] = pool->next | PTE_P | PTE_W; /* pool is zeroed */
		pool->next += LDR_PAGE_SIZE;
	}
	return (uint64_t *)(UINTN)(table[idx] & PTE_ADDR);
}

static int ldr_map_2m(struct ldr_pt_pool *pool, uint64_t *pml4, uint64_t va,
		      uint64_t pa)
{
	uint64_t *pdpt, *pd;

	pdpt = ldr_pt_next(pool, pml4, (va >> 39) & 511);
	if (!pdpt)
		return -1;
	pd = ldr_pt_next(pool, pdpt, (va >> 30) & 511);
	if (!pd)
		return -1;
	pd[(va >> 21) & 511] = pa | PTE_P | PTE_W | PTE_PS;
	return 0;
}

/* Distinct naturally aligned blocks of size a that [va, va + len) touches. */
static uint64_t ldr_blocks(uint64_t va, uint64_t len, uint64_t a)
{
	return ((va + len - 1) / a) - (va / a) + 1;
}

EFI_STATUS ldr_pagetables_build(struct ldr_ctx *ctx, uint64_t identity_top)
{
	const struct bootinfo *bi = ctx->bi;
	uint64_t kbytes, top, tables, base, a;
	struct ldr_pt_pool pool;
	uint64_t *pml4;
	EFI_STATUS st;

	top = LDR_ALIGN_UP(identity_top > LDR_4G ? identity_top : LDR_4G,
			   LDR_1G);
	if (top > LDR_LOWER_HALF) {
		ldr_err(EFI_UNSUPPORTED,
			L"memory map reaches 0x%lx, beyond the 128 TiB the identity map can cover",
			identity_top);
		return EFI_UNSUPPORTED;
	}
	kbytes = LDR_ALIGN_UP(bi->kernel_phys_end - bi->kernel_phys_base,
			      LDR_2M);
	tables = 1 + top / LDR_512G + (top % LDR_512G != 0) + top / LDR_1G +
		 ldr_blocks(KPROF_KERNEL_LINK_VA, kbytes, LDR_512G) +
		 ldr_blocks(KPROF_KERNEL_LINK_VA, kbytes, LDR_1G);
	st = ldr_alloc_pages(ctx, tables, BOOTINFO_MEM_LOADER, &base);
	if (EFI_ERROR(st))
		return st;

	pool.next = base + LDR_PAGE_SIZE;
	pool.end = base + tables * LDR_PAGE_SIZE;
	pml4 = (uint64_t *)(UINTN)base;
	for (a = 0; a < top; a += LDR_2M)
		if (ldr_map_2m(&pool, pml4, a, a))
			goto exhausted;
	for (a = 0; a < kbytes; a += LDR_2M)
		if (ldr_map_2m(&pool, pml4, KPROF_KERNEL_LINK_VA + a,
			   bi->kernel_phys_base + a))
			goto exhausted;
	ctx->pml4 = base;
	ldr_info(L"page tables: %ld pages at 0x%lx, identity 0..0x%lx, 0x%lx -> 0x%lx (0x%lx bytes)",
		 tables, base, top, KPROF_KERNEL_LINK_VA, bi->kernel_phys_base,
		 kbytes);
	return EFI_SUCCESS;

exhausted:
	ldr_err(EFI_OUT_OF_RESOURCES, L"page table pool of %ld pages too small",
		tables);
	return EFI_OUT_OF_RESOURCES;
}
