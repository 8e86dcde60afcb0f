/*
 * console.c - progress and error lines on the firmware console (ConOut),
 * which OVMF and most PC firmware mirror to the serial port.  Every line is
 * prefixed "kprof-uefi: "; errors add the EFI status by name and number.
 * Only valid while boot services are up.
 */
#include "boot/uefi/ldr.h"

void ldr_info(const CHAR16 *fmt, ...)
{
	va_list ap;

	Print(L"kprof-uefi: ");
	va_start(ap, fmt);
	VPrint(fmt, ap);
	va_end(ap);
	Print(L"\n");
}

void ldr_err(EFI_STATUS st, const CHAR16 *fmt, ...)
{
	va_list ap;

	Print(L"kprof-uefi: error: ");
	va_start(ap, fmt);
	VPrint(fmt, ap);
	va_end(ap);
	Print(L" (EFI status: %r, 0x%lx)\n", st, (UINT64)st);
}
