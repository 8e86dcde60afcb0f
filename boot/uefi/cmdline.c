/*
 * cmdline.c - choose the kernel command line: the LoadedImage load options
 * when they hold text, else \kprof\cmdline.txt on the boot volume, else
 * nothing.  Fills bootinfo cmdline and cmdline_source; too long is fatal.
 */
#include "boot/uefi/ldr.h"
#include "boot/uefi/cmdline_parse.h"

#define LDR_CMDLINE_FILE_MAX (64 * 1024) /* sanity limit on cmdline.txt */

static EFI_STATUS ldr_cmdline_too_long(const CHAR16 *from, size_t len)
{
	ldr_err(EFI_BAD_BUFFER_SIZE,
		L"command line from %s is %ld bytes, longer than the limit of %d (BOOTINFO_CMDLINE_MAX - 1)",
		from, (UINT64)len, BOOTINFO_CMDLINE_MAX - 1);
	return EFI_BAD_BUFFER_SIZE;
}

static EFI_STATUS ldr_cmdline_from_file(struct ldr_ctx *ctx)
{
	struct bootinfo *bi = ctx->bi;
	enum ldr_cmdline_result r;
	void *buf;
	UINTN size;
	size_t len;
	EFI_STATUS st;

	st = ldr_read_file(ctx, LDR_CMDLINE_PATH, LDR_CMDLINE_FILE_MAX, &buf,
			   &size);
	if (st == EFI_NOT_FOUND) {
		ldr_info(L"no %s: empty command line", LDR_CMDLINE_PATH);
		bi->cmdline_source = BOOTINFO_CMDLINE_NONE;
		return EFI_SUCCESS;
	}
	if (EFI_ERROR(st))
		return st;
	r = ldr_cmdline_from_text(buf, size, bi->cmdline, sizeof(bi->cmdline),
				  &len);
	BS->FreePool(buf);
	switch (r) {
	case LDR_CMDLINE_OK:
		bi->cmdline_source = BOOTINFO_CMDLINE_FILE;
		ldr_info(L"command line from %s: \"%a\"", LDR_CMDLINE_PATH,
			 bi->cmdline);
		return EFI_SUCCESS;
	case LDR_CMDLINE_EMPTY:
		bi->cmdline_source = BOOTINFO_CMDLINE_NONE;
		ldr_info(L"%s holds no options: empty command line",
			 LDR_CMDLINE_PATH);
		return EFI_SUCCESS;
	case LDR_CMDLINE_TOO_LONG:
		return ldr_cmdline_too_long(LDR_CMDLINE_PATH, len);
	case LDR_CMDLINE_BINARY:
	default:
		ldr_err(EFI_INVALID_PARAMETER,
			L"%s: byte %ld is not printable ASCII",
			LDR_CMDLINE_PATH, (UINT64)len);
		return EFI_INVALID_PARAMETER;
	}
}

EFI_STATUS ldr_cmdline_load(struct ldr_ctx *ctx)
{
	EFI_LOADED_IMAGE *li = ctx->loaded_image;
	struct bootinfo *bi = ctx->bi;
	enum ldr_cmdline_result r = LDR_CMDLINE_EMPTY;
	size_t len = 0;

	if (li->LoadOptions && li->LoadOptionsSize)
		r = ldr_cmdline_from_ucs2(li->LoadOptions, li->LoadOptionsSize,
					  bi->cmdline, sizeof(bi->cmdline),
					  &len);
	switch (r) {
	case LDR_CMDLINE_OK:
		bi->cmdline_source = BOOTINFO_CMDLINE_LOAD_OPTIONS;
		ldr_info(L"command line from load options: \"%a\"",
			 bi->cmdline);
		return EFI_SUCCESS;
	case LDR_CMDLINE_TOO_LONG:
		return ldr_cmdline_too_long(L"load options", len);
	case LDR_CMDLINE_BINARY:
		ldr_info(L"load options (%d bytes) are not text: ignored",
			 li->LoadOptionsSize);
		break;
	case LDR_CMDLINE_EMPTY:
	default:
		break;
	}
	return ldr_cmdline_from_file(ctx);
}
