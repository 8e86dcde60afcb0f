/*
 * pmtimer.c - the ACPI power-management timer as a reference clock.
 *
 * A free-running 3.579545 MHz counter at an I/O port named by the FADT,
 * 24 bits wide unless the FADT's TMR_VAL_EXT flag says 32.
 */
#include "arch/x86_64/time/refclock.h"

#include "arch/x86_64/x86.h"

#define PMTIMER_HZ 3579545u

static uint16_t pmtimer_port;
static struct refclock pmtimer_clock = { .name = "ACPI PM timer", .hz = PMTIMER_HZ };

static uint64_t pmtimer_read(void)
{
	return inl(pmtimer_port) & pmtimer_clock.mask;
}

const struct refclock *pmtimer_init(uint32_t port, bool is32)
{
	if (port == 0 || port > 0xFFFF)
		return 0;
	pmtimer_port = (uint16_t)port;
	pmtimer_clock.mask = is32 ? 0xFFFFFFFFULL : 0xFFFFFFULL;
	pmtimer_clock.read = pmtimer_read;
	uint64_t a = pmtimer_read();
	for (int i = 0; i < 100000 && pmtimer_read() == a; i++)
		;
	return pmtimer_read() != a ? &pmtimer_clock : 0;
}
