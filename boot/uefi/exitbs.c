/*
 * exitbs.c - the UEFI memory map and ExitBootServices().
 *
 * The final map goes into a buffer allocated beforehand with generous
 * slack, because nothing may be allocated between GetMemoryMap() and
 * ExitBootServices().
 * When ExitBootServices() rejects the map key, the map is fetched again
 * (the only boot service still allowed) and the call retried a bounded
 * number of times.  After success the map is converted into bootinfo with
 * interrupts off; nothing prints from then on.
 */
#include "boot/uefi/ldr.h"
#include "boot/uefi/cpu.h"

#define LDR_EBS_TRIES 8

/* The current memory map in a new pool buffer. */
static EFI_STATUS ldr_get_map(void **map, UINTN *size, UINTN *dsize)
{
	UINTN key, cap = 0;
	UINT32 dver;
	void *buf = NULL;
	EFI_STATUS st, ast;
	int i;

	/* Retry while the map outgrows the buffer (our own pool can add). */
	for (i = 0; i < 4; i++) {
		*size = cap;
		st = BS->GetMemoryMap(size, buf, &key, dsize, &dver);
		if (st != EFI_BUFFER_TOO_SMALL)
			break;
		if (buf)
			BS->FreePool(buf);
		buf = NULL;
		cap = *size + 16 * (*dsize ? *dsize : 64);
		ast = BS->AllocatePool(EfiLoaderData, cap, &buf);
		if (EFI_ERROR(ast)) {
			st = ast;
			buf = NULL;
			break;
		}
	}
	if (!EFI_ERROR(st) && *dsize < sizeof(struct ldr_efi_mdesc))
		st = EFI_UNSUPPORTED;
	if (EFI_ERROR(st)) {
		ldr_err(st, L"cannot read the UEFI memory map");
		if (buf)
			BS->FreePool(buf);
		return st;
	}
	*map = buf;
	return EFI_SUCCESS;
}

EFI_STATUS ldr_memmap_highest(uint64_t *top)
{
	UINTN size, dsize;
	void *map;
	EFI_STATUS st;

	st = ldr_get_map(&map, &size, &dsize);
	if (EFI_ERROR(st))
		return st;
	*top = ldr_mmap_highest_end(map, size, dsize);
	ldr_info(L"UEFI memory map: %ld descriptors, highest address 0x%lx",
		 (UINT64)(size / dsize), *top);
	BS->FreePool(map);
	return EFI_SUCCESS;
}

EFI_STATUS ldr_exit_boot_services(struct ldr_ctx *ctx)
{
	struct ldr_mem_range ranges[LDR_MAX_ALLOCS];
	size_t nranges;
	UINTN size = 0, cap, key, dsize = 0;
	UINT32 dver;
	void *map = NULL;
	EFI_STATUS st;
	int try;

	nranges = ldr_loader_ranges(ctx, ranges, LDR_MAX_ALLOCS);
	ldr_info(L"exiting boot services, entering the kernel at 0x%lx",
		 ctx->kernel_entry);

	st = BS->GetMemoryMap(&size, NULL, &key, &dsize, &dver);
	if (st != EFI_BUFFER_TOO_SMALL ||
	    dsize < sizeof(struct ldr_efi_mdesc)) {
		if (!EFI_ERROR(st))
			st = EFI_UNSUPPORTED;
		ldr_err(st, L"cannot size the UEFI memory map");
		return st;
	}
	/* Room for the map to grow by the two allocations below and more. */
	cap = size + size / 2 + 32 * dsize;
	st = BS->AllocatePool(EfiLoaderData, cap, &map);
	if (EFI_ERROR(st)) {
		ldr_err(st, L"no memory for the final memory map");
		goto fail;
	}

	for (try = 0; try < LDR_EBS_TRIES; try++) {
		size = cap;
		st = BS->GetMemoryMap(&size, map, &key, &dsize, &dver);
		if (EFI_ERROR(st) || dsize < sizeof(struct ldr_efi_mdesc)) {
			if (try > 0)
				ldr_abort_no_boot_services();
			if (!EFI_ERROR(st))
				st = EFI_UNSUPPORTED;
			ldr_err(st, L"cannot read the final UEFI memory map");
			goto fail;
		}
		st = BS->ExitBootServices(ctx->image, key);
		if (!EFI_ERROR(st))
			break;
	}
	if (EFI_ERROR(st))
		ldr_abort_no_boot_services();

	/* Boot services are gone: no EFI calls, no output from here on. */
	ldr_cli();
	ldr_mmap_convert(map, size, dsize, ranges, nranges, ctx->bi);
	return EFI_SUCCESS;

fail:
	if (map)
		BS->FreePool(map);
	return st;
}
