/*
 * muldiv.c - a * b / c without overflow, for clock conversions.
 *
 * The product is formed in 128 bits; the division is a 128-by-64 long
 * division in plain C, so the kernel needs no libgcc helper.
 */
#include "kernel/lib/muldiv.h"

uint64_t mul_div_u64(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 p = (unsigned __int128)a * b;
	uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p;

	if (c == 0)
		return UINT64_MAX;
	if (hi == 0)
		return lo / c;
	if (hi >= c)
		return UINT64_MAX; /* the quotient does not fit */
	/* Restoring division: remainder stays below c throughout. */
	uint64_t rem = hi, q = 0;
	for (int i = 63; i >= 0; i--) {
		uint64_t carry = rem >> 63;
		rem = (rem << 1) | ((lo >> i) & 1);
		q <<= 1;
		if (carry || rem >= c) {
			rem -= c;
			q |= 1;
		}
	}
	return q;
}
