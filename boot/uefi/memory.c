/*
 * memory.c - the loader's page allocations.
 *
 * Every range the kernel must know about (the kernel image, bootinfo, the
 * loader stack, the page tables) is allocated as EfiLoaderData and recorded
 * here with the bootinfo type it gets in the final memory map.  On a fatal
 * error before the hand-off the recorded pages are given back.
 */
#include "boot/uefi/ldr.h"

EFI_STATUS ldr_record_alloc(struct ldr_ctx *ctx, uint64_t base, uint64_t pages,
			    uint32_t type)
{
	struct ldr_alloc *a;

	if (ctx->nallocs == LDR_MAX_ALLOCS) {
		ldr_err(EFI_OUT_OF_RESOURCES,
			L"more than %d loader allocations", LDR_MAX_ALLOCS);
		return EFI_OUT_OF_RESOURCES;
	}
	a = &ctx->allocs[ctx->nallocs++];
	a->base = base;
	a->pages = pages;
	a->type = type;
	return EFI_SUCCESS;
}

/*
 * Zeroed pages, below 4 GiB when possible (friendlier to an early kernel),
 * anywhere otherwise; recorded with the given bootinfo type.
 */
EFI_STATUS ldr_alloc_pages(struct ldr_ctx *ctx, uint64_t pages, uint32_t type,
			   uint64_t *base)
{
	EFI_PHYSICAL_ADDRESS addr = LDR_4G - 1;
	EFI_STATUS st;

	st = BS->AllocatePages(AllocateMaxAddress, EfiLoaderData, pages, &addr);
	if (EFI_ERROR(st))
		st = BS->AllocatePages(AllocateAnyPages, EfiLoaderData, pages,
				       &addr);
	if (EFI_ERROR(st)) {
		ldr_err(st, L"cannot allocate %ld pages", pages);
		return st;
	}
	st = ldr_record_alloc(ctx, addr, pages, type);
	if (EFI_ERROR(st)) {
		BS->FreePages(addr, pages);
		return st;
	}
	SetMem((void *)(UINTN)addr, pages * LDR_PAGE_SIZE, 0);
	*base = addr;
	return EFI_SUCCESS;
}

void ldr_free_allocs(struct ldr_ctx *ctx)
{
	while (ctx->nallocs > 0) {
		struct ldr_alloc *a = &ctx->allocs[--ctx->nallocs];

		BS->FreePages(a->base, a->pages);
	}
	ctx->bi = NULL;
}

/* The recorded allocations as memory-map overlays. */
size_t ldr_loader_ranges(const struct ldr_ctx *ctx, struct ldr_mem_range *out,
			 size_t max)
{
	size_t i;

	for (i = 0; i < ctx->nallocs && i < max; i++) {
		out[i].base = ctx->allocs[i].base;
		out[i].length = ctx->allocs[i].pages * LDR_PAGE_SIZE;
		out[i].type = ctx->allocs[i].type;
	}
	return i;
}
