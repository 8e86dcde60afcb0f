/*
 * hpet.c - the HPET main counter as a reference clock.
 *
 * Registers (IA-PC HPET spec 1.0a): 0x000 capabilities (period in
 * femtoseconds in bits 63:32, 64-bit counter in bit 13), 0x010 general
 * configuration (bit 0 ENABLE_CNF, bit 1 legacy routing), 0x0F0 main
 * counter.  Only the counter is used; no HPET interrupts.
 */
#include "arch/x86_64/time/refclock.h"

#include <arch/mmu.h>

#include "kernel/arch_services.h"

#define HPET_CAP        0x000
#define HPET_CONFIG     0x010
#define HPET_COUNTER    0x0F0
#define HPET_CAP_64BIT  (1ULL << 13)
#define HPET_ENABLE_CNF 1ULL
#define FS_PER_SECOND   1000000000000000ULL

static volatile uint8_t *hpet_regs;
static struct refclock hpet_clock = { .name = "HPET" };

static uint64_t hpet_reg(unsigned off)
{
	return *(volatile uint64_t *)(hpet_regs + off);
}

static uint64_t hpet_read(void)
{
	return hpet_reg(HPET_COUNTER);
}

static uint64_t hpet_read32(void)
{
	return *(volatile uint32_t *)(hpet_regs + HPET_COUNTER);
}

const struct refclock *hpet_init(uint64_t base)
{
	hpet_regs = kva_map_phys(base, 1024, MAP_WRITE | MAP_UNCACHED);
	if (!hpet_regs)
		return 0;
	uint64_t cap = hpet_reg(HPET_CAP);
	uint64_t period_fs = cap >> 32;
	/* The spec bounds the period to (0, 100 ns]. */
	if (period_fs == 0 || period_fs > 100000000ULL)
		return 0;
	*(volatile uint64_t *)(hpet_regs + HPET_CONFIG) = (hpet_reg(HPET_CONFIG) & ~2ULL) | HPET_ENABLE_CNF;
	hpet_clock.hz = FS_PER_SECOND / period_fs;
	if (cap & HPET_CAP_64BIT) {
		hpet_clock.mask = ~0ULL;
		hpet_clock.read = hpet_read;
	} else {
		hpet_clock.mask = 0xFFFFFFFFULL;
		hpet_clock.read = hpet_read32;
	}
	/* It must count. */
	uint64_t a = hpet_clock.read();
	for (int i = 0; i < 1000000 && hpet_clock.read() == a; i++)
		;
	return hpet_clock.read() != a ? &hpet_clock : 0;
}
