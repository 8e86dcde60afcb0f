/*
 * rtc.c - the CMOS real-time clock (MC146818), read-only.
 *
 * Registers 0x00 seconds, 0x02 minutes, 0x04 hours, 0x07 day, 0x08 month,
 * 0x09 year, 0x32 century (when present); 0x0A bit 7 is update-in-progress,
 * 0x0B bit 2 binary (else BCD), bit 1 24-hour mode.  Read twice until two
 * reads agree, so an update in the middle cannot give a torn time.  PCs
 * keep the RTC in UTC or local time; we cannot know which and assume UTC.
 */
#include <arch/dev/rtc.h>

#include "arch/x86_64/x86.h"

static uint8_t cmos(uint8_t reg)
{
	outb(0x70, reg);
	return inb(0x71);
}

static unsigned from_bcd(uint8_t v, int binary)
{
	return binary ? v : (v & 0x0F) + (v >> 4) * 10;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static uint64_t days_from_civil(unsigned y, unsigned m, unsigned d)
{
	y -= m <= 2;
	uint64_t era = y / 400, yoe = y - era * 400;
	uint64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	uint64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

uint64_t arch_rtc_unix_time(void)
{
	uint8_t r[7], again[7];
	static const uint8_t regs[7] = { 0x00, 0x02, 0x04, 0x07, 0x08, 0x09, 0x32 };

	for (int tries = 0; tries < 100; tries++) {
		while (cmos(0x0A) & 0x80)
			;
		for (int i = 0; i < 7; i++)
			r[i] = cmos(regs[i]);
		for (int i = 0; i < 7; i++)
			again[i] = cmos(regs[i]);
		int same = 1;
		for (int i = 0; i < 7; i++)
			same &= r[i] == again[i];
		if (!same)
			continue;
		uint8_t b = cmos(0x0B);
		int binary = b & 4, h24 = b & 2;
		unsigned sec = from_bcd(r[0], binary), min = from_bcd(r[1], binary);
		unsigned hour = from_bcd(r[2] & 0x7F, binary);
		if (!h24 && (r[2] & 0x80))
			hour = hour % 12 + 12;
		else if (!h24 && hour == 12)
			hour = 0;
		unsigned day = from_bcd(r[3], binary), mon = from_bcd(r[4], binary), yr = from_bcd(r[5], binary);
		unsigned century = from_bcd(r[6], binary);
		unsigned year = (century >= 19 && century <= 21) ? century * 100 + yr : 2000 + yr;
		if (sec > 59 || min > 59 || hour > 23 || day < 1 || day > 31 || mon < 1 || mon > 12)
			return 0;
		return days_from_civil(year, mon, day) * 86400 + hour * 3600 + min * 60 + sec;
	}
	return 0;
}
