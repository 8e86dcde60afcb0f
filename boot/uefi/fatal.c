/*
 * fatal.c - how the loader gives up.
 *
 * Before ExitBootServices(): free what it allocated, then under QEMU (fw_cfg
 * signature "QEMU" at ports 0x510/0x511) write KPROF_EXIT_LOADER to the
 * isa-debug-exit port so the run ends at once; otherwise (or if that device
 * is absent) wait 10 s so the message can be read and return the error to
 * the firmware, whose boot manager then tries the next option.
 * After a failed ExitBootServices() only the port write and a halt remain.
 */
#include "boot/uefi/ldr.h"
#include "boot/uefi/cpu.h"
#include "include/kprof/exit_status.h"

#define FW_CFG_PORT_SEL  0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_SIGNATURE 0x0000

static int ldr_under_qemu(void)
{
	static const char sig[4] = { 'Q', 'E', 'M', 'U' };
	int i, match = 1;

	ldr_outw(FW_CFG_PORT_SEL, FW_CFG_SIGNATURE);
	for (i = 0; i < 4; i++)
		if (ldr_inb(FW_CFG_PORT_DATA) != (uint8_t)sig[i])
			match = 0;
	return match;
}

EFI_STATUS ldr_abort(struct ldr_ctx *ctx, EFI_STATUS st)
{
	if (!EFI_ERROR(st))
		st = EFI_ABORTED;
	ldr_free_allocs(ctx);
	if (ctx->root) {
		ctx->root->Close(ctx->root);
		ctx->root = NULL;
	}
	if (ldr_under_qemu()) {
		ldr_info(L"QEMU detected: writing exit status 0x%x to port 0x%x",
			 KPROF_EXIT_LOADER, KPROF_DEBUG_EXIT_PORT);
		ldr_outl(KPROF_DEBUG_EXIT_PORT, KPROF_EXIT_LOADER);
	}
	ldr_info(L"returning to the firmware in 10 s");
	BS->Stall(10 * 1000 * 1000);
	return st;
}

void ldr_abort_no_boot_services(void)
{
	if (ldr_under_qemu())
		ldr_outl(KPROF_DEBUG_EXIT_PORT, KPROF_EXIT_LOADER);
	ldr_cli();
	for (;;)
		__asm__ __volatile__("hlt");
}
