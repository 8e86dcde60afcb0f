/*
 * test_timekeep.c - time never goes back: the trace writer's clamp
 * (kernel/trace/tracebuf.c) and its reads taken ahead, the TSC watchdog's check (kernel/timekeep/
 * tsc_check.c) and the boot skew's interval (skew_interval.c), driven by
 * a model of per-CPU TSCs that jump back, drift and differ between CPUs,
 * against a model reference clock (an HPET and a 24-bit PM timer).
 *
 * The model: true time advances by STEP cycles at every TSC read (and at
 * every reference read); CPU c's TSC reads true * (1 + drift[c] ppm) +
 * offset[c], minus back[c] from true time back_at[c] on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/ke/time/time.h"
#include "kernel/timekeep/skew.h"
#include "kernel/timekeep/tsc_check.h"
#include "kernel/trace/tracebuf.h"

#define HZ 2000000000ULL /* the model's TSC rate (the boot CPU's) */
#define STEP 100         /* true cycles per clock read */

/* ------------------------------------------------------------ the model */

static struct {
	uint64_t now;           /* true time, in cycles at HZ        */
	uint32_t cpu;           /* whose TSC the next read is        */
	int64_t offset[2];
	int64_t drift_ppm[2];
	uint64_t back_at[2];    /* 0: never                          */
	uint64_t back[2];
	void (*nested)(void);   /* called once just after the next read */
} m;

static uint64_t model_tsc(void)
{
	uint32_t c = m.cpu;
	m.now += STEP;
	int64_t v = (int64_t)m.now + (int64_t)m.now / 1000000 * m.drift_ppm[c] + m.offset[c];
	if (m.back_at[c] && m.now >= m.back_at[c])
		v -= (int64_t)m.back[c];
	if (m.nested) { /* an interrupt just after the read */
		void (*fn)(void) = m.nested;
		m.nested = NULL;
		fn();
	}
	return (uint64_t)v;
}

static uint64_t hpet_read(void)
{
	m.now += STEP;
	return m.now / 140; /* 14.28 MHz */
}

static uint64_t pm_read(void)
{
	m.now += STEP;
	return (uint64_t)((unsigned __int128)m.now * 3579545 / HZ) & 0xFFFFFF;
}

static const struct refclock hpet = { "HPET", HZ / 140, UINT64_MAX, hpet_read };
static const struct refclock pm = { "ACPI PM timer", 3579545, 0xFFFFFF, pm_read };

static int reset(void **state)
{
	(void)state;
	memset(&m, 0, sizeof(m));
	m.now = 1000000;
	return 0;
}

/* ------------------------------------------------------------ the clamp */

#define SHIFT 12
#define NSUB 4
static uint8_t data[2][NSUB << SHIFT];
static struct trace_subbuf subs[2][NSUB];
static struct trace_cpu tcs[2];

static int setup_buffers(void **state)
{
	reset(state);
	for (int c = 0; c < 2; c++)
		tracebuf_init(&tcs[c], (uint32_t)c, data[c], subs[c], SHIFT, NSUB);
	return 0;
}

/* One 32-byte record on CPU c, tagged; its reservation in *r. */
static void put_on(uint32_t c, uint16_t tag, struct trace_reservation *r)
{
	struct trace_reservation local;
	if (!r)
		r = &local;
	m.cpu = c;
	assert_true(tracebuf_reserve_at(&tcs[c], 32, r, model_tsc));
	r->hdr->Marker = PERFINFO_MARKER_64;
	r->hdr->Size = 32;
	r->hdr->HookId = tag;
	tracebuf_commit(r);
}

/* Stamps of CPU c's records in buffer order (slot 0 only), in out[]. */
static uint32_t stamps(uint32_t c, uint64_t *out, uint16_t *tags)
{
	uint32_t n = 0;
	for (uint32_t off = 0; off + 32 <= (uint32_t)(tcs[c].offset & ((1u << SHIFT) - 1)); off += 32) {
		const PERFINFO_TRACE_HEADER *h = (const void *)(data[c] + off);
		tags[n] = h->HookId;
		out[n++] = h->TimeStamp;
	}
	return n;
}

static void test_jump_back_is_clamped_and_counted(void **state)
{
	(void)state;
	struct trace_reservation r[80];
	uint64_t ts[128];
	uint16_t tags[128];

	m.back_at[0] = m.now + 20 * STEP; /* the 20th read goes back */
	m.back[0] = 50 * STEP;                /* by 50 reads' worth      */
	for (int i = 0; i < 80; i++)
		put_on(0, (uint16_t)i, &r[i]);
	uint32_t n = stamps(0, ts, tags);
	assert_int_equal(n, 80);
	for (uint32_t i = 1; i < n; i++)
		assert_true(ts[i] >= ts[i - 1]); /* never back */
	assert_int_equal(tcs[0].steps_back, 1);          /* one step, where it happened */
	assert_int_equal(r[19].back, 50 * STEP - STEP);  /* its size: the read before minus this one */
	assert_int_equal(tcs[0].back_max, 50 * STEP - STEP);
	assert_int_equal(r[19].last, ts[18]);
	for (int i = 0; i < 80; i++)
		assert_true(i == 19 ? r[i].back != 0 : r[i].back == 0);
	/* clamped to the stamp before while the TSC is behind, then its own */
	assert_int_equal(ts[19], ts[18]);
	assert_int_equal(ts[79], r[79].hdr->TimeStamp);
	assert_true(ts[79] > ts[18]);
}

/* A writer nested between the outer writer's reads (an interrupt that
 * writes records): the outer record goes after it and not earlier in
 * time.  Kernels that read the clock before the position got this wrong
 * (the steps back of the KVM log). */
static void nested_put(void)
{
	struct trace_reservation r;
	uint32_t c = m.cpu;
	m.now += 1000 * STEP; /* the interrupt takes a while */
	assert_true(tracebuf_reserve_at(&tcs[c], 32, &r, model_tsc));
	r.hdr->Marker = PERFINFO_MARKER_64;
	r.hdr->Size = 32;
	r.hdr->HookId = 77;
	tracebuf_commit(&r);
	m.cpu = c;
}

static void test_nested_writer_keeps_time_order(void **state)
{
	(void)state;
	uint64_t ts[8];
	uint16_t tags[8];

	put_on(0, 1, NULL);
	m.nested = nested_put;
	put_on(0, 2, NULL);
	uint32_t n = stamps(0, ts, tags);
	assert_int_equal(n, 3);
	assert_int_equal(tags[1], 77); /* the nested record came first */
	assert_int_equal(tags[2], 2);
	assert_true(ts[2] >= ts[1]);
	assert_true(ts[1] >= ts[0]);
	assert_int_equal(tcs[0].steps_back, 0);
}

/* A read taken ahead (tracebuf_stamp_take, the SpinLock record's
 * ReleaseTime): with the position read before it, here from the model. */
static struct trace_stamp stamp_ahead(uint32_t c)
{
	struct trace_stamp s = { .offset = tcs[c].offset };
	m.cpu = c;
	s.tsc = model_tsc();
	return s;
}

static void put_stamped(uint32_t c, uint16_t tag, const struct trace_stamp *s, struct trace_reservation *r)
{
	assert_true(tracebuf_reserve_stamped(&tcs[c], 32, r, s));
	r->hdr->Marker = PERFINFO_MARKER_64;
	r->hdr->Size = 32;
	r->hdr->HookId = tag;
	tracebuf_commit(r);
}

/* Nothing written in between: the record's stamp is the read taken ahead. */
static void test_stamp_taken_ahead_is_the_records(void **state)
{
	(void)state;
	struct trace_reservation r;

	put_on(0, 1, NULL);
	struct trace_stamp s = stamp_ahead(0);
	m.now += 1000 * STEP; /* the lock released, the sampling drawn */
	put_stamped(0, 2, &s, &r);
	assert_int_equal(r.hdr->TimeStamp, s.tsc);
	assert_int_equal(r.back, 0);
	assert_int_equal(tcs[0].steps_back, 0);
}

/* A record written between the read and the reservation (an interrupt):
 * the stale read is not used, the reservation reads the clock again (the
 * host's TSC, far past the model's), and no step back is counted. */
static void test_stamp_ahead_after_a_nested_record_is_read_again(void **state)
{
	(void)state;
	struct trace_reservation r;
	uint64_t ts[8];
	uint16_t tags[8];

	put_on(0, 1, NULL);
	struct trace_stamp s = stamp_ahead(0);
	nested_put();
	put_stamped(0, 2, &s, &r);
	uint32_t n = stamps(0, ts, tags);
	assert_int_equal(n, 3);
	assert_int_equal(tags[1], 77);
	assert_true(ts[2] > ts[1]);
	assert_true(r.hdr->TimeStamp != s.tsc);
	assert_int_equal(r.back, 0);
	assert_int_equal(tcs[0].steps_back, 0);
}

/* A CPU whose correction lowers its stamps still uses a read taken ahead,
 * corrected as the payload's ReleaseTime is (trace_clock.h): the record's
 * stamp is that corrected read, or the CPU's last stamp if that is later,
 * never below the time the payload carries. */
static void test_stamp_ahead_under_a_lowering_correction(void **state)
{
	(void)state;
	struct trace_reservation r;
	const int64_t adjust = -10 * STEP;

	put_on(0, 1, NULL);
	uint64_t last = tcs[0].last_ts;
	tracebuf_set_adjust(&tcs[0], adjust);
	m.now += 20 * STEP; /* past the correction: the corrected read is the later */
	struct trace_stamp s = stamp_ahead(0);
	put_stamped(0, 2, &s, &r);
	uint64_t release_time = s.tsc + (uint64_t)adjust; /* what the payload carries */
	assert_true(release_time > last);
	assert_int_equal(r.hdr->TimeStamp, release_time); /* the one read, corrected */
	assert_int_equal(tcs[0].steps_back, 0);
}

/* The watchdog's correction lowers the stamps: they wait, no step counted. */
static void test_adjust_down_never_goes_back(void **state)
{
	(void)state;
	uint64_t ts[16];
	uint16_t tags[16];

	for (int i = 0; i < 4; i++)
		put_on(1, (uint16_t)i, NULL);
	tracebuf_set_adjust(&tcs[1], -10 * STEP);
	for (int i = 4; i < 16; i++)
		put_on(1, (uint16_t)i, NULL);
	uint32_t n = stamps(1, ts, tags);
	for (uint32_t i = 1; i < n; i++)
		assert_true(ts[i] >= ts[i - 1]);
	assert_int_equal(ts[4], ts[3]);
	assert_int_equal(tcs[1].steps_back, 0);
}

/* The watchdog's correction lowered by a slew (trace_clock_slew): no two
 * stamps alike (a step held them still, and importers that key events by
 * time lost the ones at one instant), the stamps run slower by the
 * change's share of the span while it lasts, and from the span's end on
 * they are the TSC plus the new correction. */
static void test_slew_down_never_stands_still(void **state)
{
	(void)state;
	uint64_t ts[128];
	uint16_t tags[128];
	const uint64_t span = 64 * STEP;
	const int64_t change = -16 * STEP; /* a quarter of the span */
	const struct trace_clock_line none = { 0 };

	put_on(0, 0, NULL);
	m.cpu = 0;
	uint64_t now = model_tsc();
	struct trace_clock_line l = trace_clock_slew(&none, change, now, span);
	tracebuf_set_line(&tcs[0], &l, 0);
	assert_int_equal(trace_clock_adjust_at(&tcs[0], now), 0);            /* continuous where it starts */
	assert_int_equal(trace_clock_adjust_at(&tcs[0], now - 10 * STEP), 0); /* a read from before it     */
	assert_int_equal(trace_clock_adjust_at(&tcs[0], now + span), change); /* reached a span on         */
	assert_int_equal(trace_clock_adjust_at(&tcs[0], now + 9 * span), change); /* and kept             */
	assert_true(llabs(trace_clock_adjust_at(&tcs[0], now + span / 2) - change / 2) <= 1);
	for (int i = 1; i < 100; i++)
		put_on(0, (uint16_t)i, NULL);
	uint32_t n = stamps(0, ts, tags);
	assert_int_equal(n, 100);
	for (uint32_t i = 1; i < n; i++)
		assert_true(ts[i] > ts[i - 1]); /* never back, never still */
	/* within the span each step is STEP less a quarter of it (the slope),
	 * past it the read plus the whole correction */
	assert_in_range(ts[10] - ts[9], STEP - STEP / 4 - 1, STEP - STEP / 4 + 1);
	assert_int_equal(ts[99] - ts[98], STEP);
	assert_int_equal(tcs[0].steps_back, 0);
}

/* Line l's correction at TSC t (trace_clock_line_at, its fields given). */
static int64_t line_at(const struct trace_clock_line *l, uint64_t t)
{
	return trace_clock_line_at(l->base, l->from, l->span, l->slope, t);
}

/* Slews one after another (checks on any CPU): each starts where the line
 * stands, not where the last one aimed; a CPU's copy carries its own boot
 * skew on top. */
static void test_slew_restarts_from_where_it_stands(void **state)
{
	(void)state;
	const uint64_t span = 1000 * STEP;
	const struct trace_clock_line none = { 0 };

	struct trace_clock_line l = trace_clock_slew(&none, 400 * STEP, 1000000, span);
	int64_t mid = line_at(&l, 1000000 + span / 4);
	assert_true(llabs(mid - 100 * STEP) <= 1); /* the slope's 2^-32 rounding */
	l = trace_clock_slew(&l, -200 * STEP, 1000000 + span / 4, span);
	assert_int_equal(line_at(&l, 1000000 + span / 4), mid);
	assert_true(llabs(line_at(&l, 1000000 + span / 4 + span) + 200 * STEP) <= 1);
	tracebuf_set_line(&tcs[1], &l, 5 * STEP);
	assert_int_equal(trace_clock_adjust_at(&tcs[1], 1000000 + span / 4), mid + 5 * STEP);
	/* a slew that starts later, once this one has ended: the same line up
	 * to its start (a CPU that has the new one and a CPU that still has
	 * the old one agree until then) */
	uint64_t end = 1000000 + span / 4 + span, start = end + 50 * STEP;
	struct trace_clock_line next = trace_clock_slew(&l, 300 * STEP, start, span);
	for (uint64_t t = 1000000; t <= start; t += 7 * STEP)
		assert_int_equal(line_at(&next, t), t <= end ? next.base : line_at(&l, t));
	assert_true(llabs(line_at(&next, start + span) - 300 * STEP) <= 1);
}

/* A new line replaces the old only once the old has done changing
 * (trace_clock_line_settled): from then on the two agree up to the new
 * one's start, so CPUs that take it at different ticks stamp alike.
 * Replaced earlier, mid-slew, the new line stands at the old one's end
 * value at once: a CPU that took it jumped by what the old slew had
 * left, against one still on the old line. */
static void test_slew_replaced_only_when_settled(void **state)
{
	(void)state;
	const uint64_t span = 1000 * STEP, from = 1000000, end = from + span;
	const struct trace_clock_line none = { 0 };
	struct trace_clock_line l = trace_clock_slew(&none, -400 * STEP, from, span);

	assert_true(trace_clock_line_settled(&none, 0));
	assert_false(trace_clock_line_settled(&l, from - STEP)); /* due */
	assert_false(trace_clock_line_settled(&l, from + span / 2)); /* under way */
	assert_false(trace_clock_line_settled(&l, end - 1));
	assert_true(trace_clock_line_settled(&l, end));
	/* settled at `now`: the next line agrees with l from now to its start */
	for (uint64_t now = end; now < end + 3 * span; now += 97 * STEP) {
		uint64_t start = now + 100 * STEP;
		struct trace_clock_line next = trace_clock_slew(&l, -100 * STEP, start, span);
		for (uint64_t t = now; t <= start; t += 13 * STEP)
			assert_int_equal(line_at(&next, t), line_at(&l, t));
	}
	/* not settled: a line set at `now` mid-slew stands at once where l
	 * would be at the new start (a jump of the old slope times the
	 * delay), and holds there while CPUs still on l slew on to its end */
	uint64_t now = from + span / 2;
	struct trace_clock_line early = trace_clock_slew(&l, -100 * STEP, now + 100 * STEP, span);
	int64_t had = line_at(&l, now);
	int64_t jumped = line_at(&early, now);
	assert_true(llabs(had + 200 * STEP) <= 1);
	assert_true(llabs(jumped - had + 40 * STEP) <= 1);
}

/* A change of more than half the span is not slewed (the stamps would run
 * backwards along the line): it is made at once and the clamp holds. */
static void test_slew_too_large_is_a_step(void **state)
{
	(void)state;
	const uint64_t span = 64 * STEP;
	const struct trace_clock_line none = { 0 };

	struct trace_clock_line l = trace_clock_slew(&none, -(int64_t)span, 5000000, span);
	assert_int_equal(l.slope, 0);
	assert_int_equal(l.base, -(int64_t)span);
	l = trace_clock_slew(&l, 7 * STEP, 5000000, span); /* up by more than half: a step too */
	assert_int_equal(l.slope, 0);
	assert_int_equal(l.base, 7 * STEP);
	l = trace_clock_slew(&l, 7 * STEP + (int64_t)span / 2, 5000000, span); /* half: slewed, at 1/2 */
	assert_int_equal(l.slope, (int64_t)1 << 31);
}

/* ------------------------------------------------------------ the watchdog */

static uint64_t cpu_tsc(void)
{
	return model_tsc();
}

/* Run CPU c's watchdog for `checks` intervals of 0.5 s; the last check
 * in *last, the number that said unstable returned. */
static int run_watchdog(uint32_t c, const struct refclock *ref, int checks, struct tsc_check *last)
{
	struct tsc_watchdog w;
	int unstable = 0;

	m.cpu = c;
	struct clock_sample s = clock_sample(ref, cpu_tsc, 0, 3);
	tsc_watchdog_start(&w, s, s.tsc);
	for (int i = 0; i < checks; i++) {
		m.now += HZ / 2;
		m.cpu = c;
		s = clock_sample(ref, cpu_tsc, 0, 3);
		*last = tsc_watchdog_check(&w, ref, s, HZ);
		assert_false(last->skipped);
		unstable += last->unstable;
	}
	return unstable;
}

static void test_watchdog_stable_tsc(void **state)
{
	(void)state;
	struct tsc_check c;

	m.offset[0] = 123456; /* an offset alone is no instability */
	m.drift_ppm[0] = 200; /* within the calibration's 500 ppm  */
	assert_int_equal(run_watchdog(0, &hpet, 8, &c), 0);
	int64_t diff = c.tsc_ns - (int64_t)c.interval_ns;
	assert_true(diff > 90000 && diff < 110000); /* 200 ppm of 0.5 s: 100 us */
	assert_true(c.interval_ns > 499000000 && c.interval_ns < 501000000);
}

static void test_watchdog_drift_found_and_corrected(void **state)
{
	(void)state;
	struct tsc_check c;

	m.drift_ppm[1] = 3000; /* 1.5 ms fast every 0.5 s */
	assert_int_equal(run_watchdog(1, &hpet, 4, &c), 4);
	assert_true(c.unstable);
	/* adjust: what the stamps need to follow the reference: after 4
	 * intervals the TSC is 3000 ppm of 2 s ahead (12 M cycles at 2 GHz). */
	int64_t want = -(int64_t)(2ULL * HZ / 1000000 * 3000);
	assert_true(c.adjust < want + 100000 && c.adjust > want - 100000);
}

/* CPU 0's watchdog started against ref now. */
static void start_cpu0(struct tsc_watchdog *w, const struct refclock *ref)
{
	m.cpu = 0;
	struct clock_sample s = clock_sample(ref, cpu_tsc, 0, 3);
	tsc_watchdog_start(w, s, s.tsc);
}

/* CPU 0's check against ref after `later` true cycles. */
static struct tsc_check check_cpu0(struct tsc_watchdog *w, const struct refclock *ref, uint64_t later)
{
	m.now += later;
	m.cpu = 0;
	return tsc_watchdog_check(w, ref, clock_sample(ref, cpu_tsc, 0, 3), HZ);
}

static void test_watchdog_jump_back_found(void **state)
{
	(void)state;
	struct tsc_watchdog w;

	start_cpu0(&w, &pm);
	m.back_at[0] = m.now + HZ / 2; /* the TSC goes back 5 ms */
	m.back[0] = HZ / 200;
	struct tsc_check c = check_cpu0(&w, &pm, HZ / 2);
	assert_true(c.unstable);
	assert_true(c.tsc_ns < 496000000 && c.tsc_ns > 494000000); /* 500 - 5 ms */
	assert_true(c.adjust > (int64_t)(HZ / 200) - 20000 && c.adjust < (int64_t)(HZ / 200) + 20000);
	/* the next interval is clean again: no verdict against it */
	assert_false(check_cpu0(&w, &pm, HZ / 2).unstable);
}

/* A CPU the host did not run for longer than half the PM timer's 4.7 s
 * period: the reference may have wrapped, so no verdict and a restart. */
static void test_watchdog_skips_possible_wrap(void **state)
{
	(void)state;
	struct tsc_watchdog w;

	start_cpu0(&w, &pm);
	struct tsc_check c = check_cpu0(&w, &pm, 3 * HZ);
	assert_true(c.skipped);
	assert_false(c.unstable);
}

/* A bracket wider than WATCHDOG_MAX_SKEW (a read that waited): skipped. */
static uint64_t slow_hpet(void)
{
	m.now += HZ / 1000; /* 1 ms per read */
	return m.now / 140;
}

static void test_watchdog_skips_slow_read(void **state)
{
	(void)state;
	const struct refclock slow = { "HPET", HZ / 140, UINT64_MAX, slow_hpet };
	struct tsc_watchdog w;

	start_cpu0(&w, &hpet);
	m.back_at[0] = m.now + HZ / 2;
	m.back[0] = HZ / 100; /* would be unstable, but the read is not trusted */
	struct tsc_check c = check_cpu0(&w, &slow, HZ / 2);
	assert_true(c.skipped);
	assert_false(c.unstable);
}

/* ------------------------------------------------------------ the skew */

/* Ping-pong rounds between CPU 0 and CPU 1 under the model, with round
 * trips of varying length. */
static struct skew_interval pingpong(int rounds)
{
	struct skew_interval iv;
	skew_interval_init(&iv);
	for (int k = 0; k < rounds; k++) {
		m.cpu = 0;
		uint64_t t0 = model_tsc();
		m.now += (uint64_t)(50 + (k * 37) % 400);
		m.cpu = 1;
		uint64_t t1 = model_tsc();
		m.now += (uint64_t)(50 + (k * 53) % 300);
		m.cpu = 0;
		uint64_t t2 = model_tsc();
		skew_interval_add(&iv, t0, t1, t2);
	}
	return iv;
}

static void test_skew_offset_found(void **state)
{
	(void)state;
	m.offset[1] = -4000;
	struct skew_interval iv = pingpong(64);
	assert_true(skew_interval_valid(&iv));
	assert_true(iv.lo <= -4000 && iv.hi >= -4000);
	assert_true(iv.hi - iv.lo < 1000); /* as tight as the quickest round */
	int64_t mid = skew_interval_mid(&iv);
	assert_true(mid > -4500 && mid < -3500);
}

static void test_skew_synced_includes_zero(void **state)
{
	(void)state;
	struct skew_interval iv = pingpong(16);
	assert_true(skew_interval_valid(&iv));
	assert_true(iv.lo <= 0 && iv.hi >= 0);
}

static void test_skew_moving_offset_is_invalid(void **state)
{
	(void)state;
	m.back_at[1] = m.now + 20000; /* CPU 1 steps back mid-measurement */
	m.back[1] = 100000;
	struct skew_interval iv = pingpong(64);
	assert_false(skew_interval_valid(&iv));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_jump_back_is_clamped_and_counted, setup_buffers),
		cmocka_unit_test_setup(test_nested_writer_keeps_time_order, setup_buffers),
		cmocka_unit_test_setup(test_adjust_down_never_goes_back, setup_buffers),
		cmocka_unit_test_setup(test_slew_down_never_stands_still, setup_buffers),
		cmocka_unit_test_setup(test_slew_restarts_from_where_it_stands, setup_buffers),
		cmocka_unit_test_setup(test_slew_replaced_only_when_settled, setup_buffers),
		cmocka_unit_test_setup(test_slew_too_large_is_a_step, setup_buffers),
		cmocka_unit_test_setup(test_stamp_taken_ahead_is_the_records, setup_buffers),
		cmocka_unit_test_setup(test_stamp_ahead_after_a_nested_record_is_read_again, setup_buffers),
		cmocka_unit_test_setup(test_stamp_ahead_under_a_lowering_correction, setup_buffers),
		cmocka_unit_test_setup(test_watchdog_stable_tsc, reset),
		cmocka_unit_test_setup(test_watchdog_drift_found_and_corrected, reset),
		cmocka_unit_test_setup(test_watchdog_jump_back_found, reset),
		cmocka_unit_test_setup(test_watchdog_skips_possible_wrap, reset),
		cmocka_unit_test_setup(test_watchdog_skips_slow_read, reset),
		cmocka_unit_test_setup(test_skew_offset_found, reset),
		cmocka_unit_test_setup(test_skew_synced_includes_zero, reset),
		cmocka_unit_test_setup(test_skew_moving_offset_is_invalid, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
