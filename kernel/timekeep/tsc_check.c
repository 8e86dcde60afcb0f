/*
 * tsc_check.c - the TSC watchdog's arithmetic (see tsc_check.h).
 *
 * The reference counts are accumulated as masked differences, so a
 * reference narrower than 64 bits (the PM timer: 24 bits at 3.58 MHz,
 * 4.7 s) may wrap between checks as long as it does not wrap twice; an
 * interval of the TSC longer than half the reference's period (a virtual
 * CPU the host did not run for seconds) cannot be told from one that
 * wrapped more, so it is skipped and the watchdog restarts there, its
 * reference time carried on from the TSC.
 */
#include "kernel/timekeep/tsc_check.h"

#include "kernel/lib/muldiv.h"

#define NS 1000000000ULL

void tsc_watchdog_start(struct tsc_watchdog *w, struct clock_sample s, uint64_t base)
{
	*w = (struct tsc_watchdog){ .tsc = s.tsc, .ref = s.ref, .gap = s.gap, .base = base, .started = true };
}

/* Signed cycles to ns at hz. */
static int64_t cycles_ns(int64_t cycles, uint64_t hz)
{
	uint64_t mag = mul_div_u64(cycles < 0 ? (uint64_t)-cycles : (uint64_t)cycles, NS, hz);
	return cycles < 0 ? -(int64_t)mag : (int64_t)mag;
}

struct tsc_check tsc_watchdog_check(struct tsc_watchdog *w, const struct refclock *ref, struct clock_sample s,
				    uint64_t tsc_hz)
{
	struct tsc_check c = { 0 };
	uint64_t max_gap = mul_div_u64(TSC_WATCHDOG_MAX_SKEW_US, tsc_hz, 1000000);
	uint64_t d_ref = (s.ref - w->ref) & ref->mask;
	int64_t d_tsc = (int64_t)(s.tsc - w->tsc);

	c.interval_ns = mul_div_u64(d_ref, NS, ref->hz);
	c.tsc_ns = cycles_ns(d_tsc, tsc_hz);
	if (s.gap > max_gap || w->gap > max_gap) {
		c.skipped = true; /* a read that waited: nothing to judge by */
	} else if (ref->mask != UINT64_MAX && d_tsc > 0 &&
		   (uint64_t)c.tsc_ns > mul_div_u64(ref->mask / 2, NS, ref->hz)) {
		/* The reference may have wrapped more than once: restart. */
		uint64_t now = w->base + mul_div_u64(w->ref_counts, tsc_hz, ref->hz) + (uint64_t)d_tsc;
		tsc_watchdog_start(w, s, now);
		c.skipped = true;
		c.adjust = (int64_t)(now - s.tsc);
		return c;
	}
	w->ref_counts += d_ref;
	uint64_t rate_ns = mul_div_u64(c.interval_ns, CLOCK_MEASURE_MAX_PPM, 1000000);
	uint64_t gaps_ns = mul_div_u64(s.gap + w->gap, NS, tsc_hz);
	c.margin_ns = (uint32_t)(TSC_WATCHDOG_MARGIN_US * 1000ULL + rate_ns + gaps_ns);
	int64_t diff = c.tsc_ns - (int64_t)c.interval_ns;
	c.unstable = !c.skipped && (diff < 0 ? (uint64_t)-diff : (uint64_t)diff) > c.margin_ns;
	c.adjust = (int64_t)(w->base + mul_div_u64(w->ref_counts, tsc_hz, ref->hz) - s.tsc);
	w->tsc = s.tsc;
	w->ref = s.ref;
	w->gap = s.gap;
	return c;
}
