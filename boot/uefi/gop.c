/*
 * gop.c - describe the GOP framebuffer in its current mode, if there is
 * one and its pixels are 32-bit RGBX or BGRX.  No GOP is not an error:
 * bootinfo fb.format stays BOOTINFO_FB_NONE.
 */
#include "boot/uefi/ldr.h"

static uint32_t ldr_fb_format(const EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info)
{
	const EFI_PIXEL_BITMASK *m = &info->PixelInformation;

	switch (info->PixelFormat) {
	case PixelRedGreenBlueReserved8BitPerColor:
		return BOOTINFO_FB_RGBX;
	case PixelBlueGreenRedReserved8BitPerColor:
		return BOOTINFO_FB_BGRX;
	case PixelBitMask:
		if (m->RedMask == 0x000000ff && m->GreenMask == 0x0000ff00 &&
		    m->BlueMask == 0x00ff0000)
			return BOOTINFO_FB_RGBX;
		if (m->RedMask == 0x00ff0000 && m->GreenMask == 0x0000ff00 &&
		    m->BlueMask == 0x000000ff)
			return BOOTINFO_FB_BGRX;
		return BOOTINFO_FB_NONE;
	default:
		return BOOTINFO_FB_NONE;
	}
}

void ldr_find_framebuffer(struct ldr_ctx *ctx)
{
	struct bootinfo_framebuffer *fb = &ctx->bi->fb;
	EFI_GRAPHICS_OUTPUT_PROTOCOL *gop;
	EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *info;
	EFI_STATUS st;

	fb->format = BOOTINFO_FB_NONE;
	st = BS->LocateProtocol(&gEfiGraphicsOutputProtocolGuid, NULL,
				(void **)&gop);
	if (EFI_ERROR(st) || !gop || !gop->Mode || !gop->Mode->Info) {
		ldr_info(L"no GOP framebuffer");
		return;
	}
	info = gop->Mode->Info;
	fb->format = ldr_fb_format(info);
	if (fb->format == BOOTINFO_FB_NONE) {
		ldr_info(L"GOP mode %d has pixel format %d: no framebuffer",
			 gop->Mode->Mode, info->PixelFormat);
		return;
	}
	fb->phys = gop->Mode->FrameBufferBase;
	fb->size = gop->Mode->FrameBufferSize;
	fb->width = info->HorizontalResolution;
	fb->height = info->VerticalResolution;
	fb->pitch = info->PixelsPerScanLine * 4;
	ldr_info(L"framebuffer %dx%d pitch %d %s at 0x%lx (0x%lx bytes)",
		 fb->width, fb->height, fb->pitch,
		 fb->format == BOOTINFO_FB_RGBX ? L"RGBX" : L"BGRX",
		 fb->phys, fb->size);
}
