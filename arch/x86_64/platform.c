/*
 * platform.c - QEMU detection and the end of a run.
 *
 * QEMU is recognised by its fw_cfg device (selector port 0x510, data port
 * 0x511): selecting key 0 (signature) reads back "QEMU".  On a real PC those
 * ports float and read 0xFF.  Only under QEMU is the isa-debug-exit port
 * written, so real hardware never sees a stray write to port 0xf4.
 */
#include <arch/cpu.h>
#include <arch/platform.h>

#include "arch/x86_64/x86.h"
#include "include/kprof/exit_status.h"

#define FW_CFG_PORT_SEL  0x510
#define FW_CFG_PORT_DATA 0x511

bool arch_platform_is_qemu(void)
{
	static int cached = -1;
	if (cached < 0) {
		char sig[4];
		outw(FW_CFG_PORT_SEL, 0x0000);
		for (int i = 0; i < 4; i++)
			sig[i] = (char)inb(FW_CFG_PORT_DATA);
		cached = sig[0] == 'Q' && sig[1] == 'E' && sig[2] == 'M' && sig[3] == 'U';
	}
	return cached;
}

void arch_platform_exit(unsigned status)
{
	arch_irq_disable();
	if (arch_platform_is_qemu())
		outl(KPROF_DEBUG_EXIT_PORT, status);
	/* Real hardware, or QEMU without isa-debug-exit: stop here. */
	arch_halt_forever();
}

static void cpuid_string(uint32_t leaf, char *out, const int order[3])
{
	uint32_t r[4];
	cpuid_count(leaf, 0, r);
	for (int i = 0; i < 3; i++)
		for (int b = 0; b < 4; b++)
			out[i * 4 + b] = (char)(r[order[i]] >> (8 * b));
	out[12] = '\0';
}

void arch_cpu_describe(struct arch_cpu_desc *d)
{
	static const int vendor_order[3] = { 1, 3, 2 }; /* EBX EDX ECX */
	static const int hv_order[3] = { 1, 2, 3 };     /* EBX ECX EDX */
	uint32_t r[4];

	cpuid_string(0, d->vendor, vendor_order);

	cpuid_count(1, 0, r);
	uint32_t fam = (r[0] >> 8) & 0xF, model = (r[0] >> 4) & 0xF;
	if (fam == 0xF)
		fam += (r[0] >> 20) & 0xFF;
	if (fam == 0x6 || fam >= 0xF)
		model |= ((r[0] >> 16) & 0xF) << 4;
	d->family = fam;
	d->model = model;
	d->stepping = r[0] & 0xF;

	d->hypervisor[0] = '\0';
	if (r[2] & (1u << 31))
		cpuid_string(0x40000000, d->hypervisor, hv_order);

	d->brand[0] = '\0';
	cpuid_count(0x80000000, 0, r);
	if (r[0] >= 0x80000004) {
		char raw[49];
		for (uint32_t leaf = 0; leaf < 3; leaf++) {
			cpuid_count(0x80000002 + leaf, 0, r);
			for (int i = 0; i < 4; i++)
				for (int b = 0; b < 4; b++)
					raw[leaf * 16 + i * 4 + b] = (char)(r[i] >> (8 * b));
		}
		raw[48] = '\0';
		/* Trim the leading and repeated spaces some CPUs pad with. */
		int o = 0;
		for (int i = 0; raw[i]; i++) {
			if (raw[i] == ' ' && (o == 0 || d->brand[o - 1] == ' '))
				continue;
			d->brand[o++] = raw[i];
		}
		while (o > 0 && d->brand[o - 1] == ' ')
			o--;
		d->brand[o] = '\0';
	}
}
