/*
 * loader.c - efi_main: the kprof UEFI loader's sequence.
 *
 *   1. TSC stamp, CPU check (no LA57), LoadedImage, boot volume;
 *   2. bootinfo, command line, kernel image, RSDP, framebuffer, the USB
 *      stick and its trace file (stick.c: never fatal);
 *   3. loader stack and page tables;
 *   4. ExitBootServices() and the final memory map;
 *   5. hand-off: kernel entry with RDI = bootinfo (handoff.S).
 * A failure in steps 1-4 prints "kprof-uefi: error: ..." and ends the run
 * through ldr_abort() (fatal.c).
 */
#include "boot/uefi/ldr.h"
#include "boot/uefi/cpu.h"

static EFI_STATUS ldr_setup_bootinfo(struct ldr_ctx *ctx, uint64_t tsc)
{
	static const char name[] = LDR_NAME;
	struct bootinfo *bi;
	uint64_t base;
	EFI_STATUS st;

	st = ldr_alloc_pages(ctx, LDR_PAGES(sizeof(*bi)), BOOTINFO_MEM_LOADER,
			     &base);
	if (EFI_ERROR(st))
		return st;
	bi = (struct bootinfo *)(UINTN)base;
	bi->magic = BOOTINFO_MAGIC;
	bi->version = BOOTINFO_VERSION;
	bi->size = sizeof(*bi);
	bi->loader = BOOTINFO_LOADER_UEFI;
	bi->cmdline_source = BOOTINFO_CMDLINE_NONE;
	bi->cmdline_refused = 0; /* this loader refuses an overlong line itself */
	bi->reserved = 0;
	bi->loader_tsc = tsc;
	_Static_assert(sizeof(name) <= sizeof(bi->loader_name), "loader name");
	CopyMem(bi->loader_name, (void *)name, sizeof(name));
	bi->fb.format = BOOTINFO_FB_NONE;
	ctx->bi = bi;
	return EFI_SUCCESS;
}

static EFI_STATUS ldr_setup_stack(struct ldr_ctx *ctx)
{
	uint64_t base;
	EFI_STATUS st;

	st = ldr_alloc_pages(ctx, LDR_PAGES(LDR_STACK_SIZE),
			     BOOTINFO_MEM_LOADER, &base);
	if (EFI_ERROR(st))
		return st;
	ctx->stack_top = base + LDR_STACK_SIZE; /* page aligned, so 16 too */
	return EFI_SUCCESS;
}

static EFI_STATUS ldr_run(struct ldr_ctx *ctx, uint64_t tsc)
{
	uint64_t top;
	EFI_STATUS st;

	if (ldr_read_cr4() & LDR_CR4_LA57) {
		ldr_err(EFI_UNSUPPORTED,
			L"5-level paging (CR4.LA57) is active; kprof needs 4-level paging");
		return EFI_UNSUPPORTED;
	}
	st = BS->HandleProtocol(ctx->image, &gEfiLoadedImageProtocolGuid,
				(void **)&ctx->loaded_image);
	if (EFI_ERROR(st)) {
		ldr_err(st, L"no LoadedImage protocol on the loader image");
		return st;
	}
	st = ldr_open_volume(ctx);
	if (EFI_ERROR(st))
		return st;
	st = ldr_setup_bootinfo(ctx, tsc);
	if (EFI_ERROR(st))
		return st;
	st = ldr_cmdline_load(ctx);
	if (EFI_ERROR(st))
		return st;
	st = ldr_kernel_load(ctx);
	if (EFI_ERROR(st))
		return st;
	ldr_find_rsdp(ctx);
	ldr_find_framebuffer(ctx);
	ldr_stick_find(ctx);
	st = ldr_setup_stack(ctx);
	if (EFI_ERROR(st))
		return st;
	st = ldr_memmap_highest(&top);
	if (EFI_ERROR(st))
		return st;
	if (ctx->bi->fb.format != BOOTINFO_FB_NONE &&
	    ctx->bi->fb.phys + ctx->bi->fb.size > top)
		top = ctx->bi->fb.phys + ctx->bi->fb.size;
	st = ldr_pagetables_build(ctx, top);
	if (EFI_ERROR(st))
		return st;
	ctx->root->Close(ctx->root);
	ctx->root = NULL;
	return ldr_exit_boot_services(ctx);
}

EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
	uint64_t tsc = ldr_rdtsc();
	struct ldr_ctx ctx = { .image = image };
	EFI_STATUS st;

	InitializeLib(image, systab);
	ldr_info(L"%a starting", LDR_NAME);
	st = ldr_run(&ctx, tsc);
	if (EFI_ERROR(st))
		return ldr_abort(&ctx, st);

	ctx.bi->handoff_tsc = ldr_rdtsc();
	ldr_handoff(ctx.pml4, ctx.stack_top, (uint64_t)(UINTN)ctx.bi,
		    ctx.kernel_entry);
}
