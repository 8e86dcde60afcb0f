/*
 * time.c - measuring the TSC against a reference clock, and TSC conversions.
 *
 * A measurement takes a bracketed sample (TSC, reference, TSC) at the
 * start, spins until the reference has advanced by the window, takes a
 * second bracketed sample, and divides.  Bracketing bounds the error an
 * interruption between the two reads could add (a vCPU descheduled by the
 * host, an SMI, a reference read that waited on the host's device lock):
 * the tightest of several samples is kept, and when even that leaves the
 * rate uncertain by more than CLOCK_MEASURE_MAX_PPM the window is doubled
 * (a 64-vCPU guest on 2 host cores saw 1.5% over 20 ms otherwise).
 * Reference wrap-around is handled by accumulating masked deltas.
 */
#include "kernel/ke/time/time.h"

#include <arch/cpu.h>

#include "kernel/lib/muldiv.h"

uint64_t ke_tsc_hz;

struct clock_sample clock_sample(const struct refclock *ref, uint64_t (*tsc)(void), uint64_t max_gap, int tries)
{
	struct clock_sample best = { 0, 0, 0 };
	uint64_t best_gap = UINT64_MAX;

	for (int i = 0; i < tries; i++) {
		uint64_t t0 = tsc();
		uint64_t r = ref->read();
		uint64_t t1 = tsc();
		uint64_t gap = t1 - t0;
		if (gap < best_gap) {
			best_gap = gap;
			best.tsc = t0 + gap / 2;
			best.ref = r;
			best.gap = gap;
		}
		if (gap <= max_gap)
			break;
	}
	return best;
}

static uint64_t measure_once(const struct refclock *ref, uint64_t (*tsc)(void), uint64_t window_us, uint64_t *gaps,
			     uint64_t *span)
{
	uint64_t want = mul_div_u64(ref->hz, window_us, 1000000);
	/* A tight bracket: 1/10000 of the window in TSC terms is unknown
	 * before we know the rate, so take the tightest of a few tries. */
	struct clock_sample a = clock_sample(ref, tsc, 0, 16);
	uint64_t elapsed = 0, prev = a.ref, unchanged = 0;

	if (want == 0)
		want = 1;
	while (elapsed < want) {
		uint64_t now = ref->read();
		uint64_t d = (now - prev) & ref->mask;
		/* Any live reference (3.58 MHz or faster) moves within a few reads. */
		unchanged = d ? 0 : unchanged + 1;
		if (unchanged > (1u << 20))
			return 0;
		elapsed += d;
		prev = now;
	}
	struct clock_sample b = clock_sample(ref, tsc, 0, 16);
	/* Whole elapsed reference counts: what we spun through, adjusted from
	 * the loop's last read to the bracketed one. */
	elapsed += (b.ref - prev) & ref->mask;
	if (elapsed == 0)
		return 0;
	*gaps = a.gap + b.gap;
	*span = b.tsc - a.tsc;
	return mul_div_u64(b.tsc - a.tsc, ref->hz, elapsed);
}

uint64_t clock_measure_tsc(const struct refclock *ref, uint64_t (*tsc)(void), uint64_t window_us)
{
	uint64_t hz = 0;

	for (uint64_t w = window_us; w <= 16 * window_us; w *= 2) {
		uint64_t gaps = 0, span = 0;
		hz = measure_once(ref, tsc, w, &gaps, &span);
		/* Each midpoint is within half its bracket: the rate within
		 * (gaps / 2) / span. */
		if (!hz || !span || mul_div_u64(gaps / 2, 1000000, span) <= CLOCK_MEASURE_MAX_PPM)
			break;
	}
	return hz;
}

int64_t clock_error_ppm(uint64_t measured, uint64_t expected)
{
	if (expected == 0)
		return 0;
	if (measured >= expected)
		return (int64_t)mul_div_u64(measured - expected, 1000000, expected);
	return -(int64_t)mul_div_u64(expected - measured, 1000000, expected);
}

uint64_t ke_us_to_tsc(uint64_t us)
{
	return mul_div_u64(us, ke_tsc_hz, 1000000);
}

uint64_t ke_ns_to_tsc(uint64_t ns)
{
	return mul_div_u64(ns, ke_tsc_hz, 1000000000);
}

void ke_stall_execution_processor(uint64_t us)
{
	uint64_t start = arch_rdtsc(), cycles = ke_us_to_tsc(us);
	while (arch_rdtsc() - start < cycles)
		arch_cpu_relax();
}
