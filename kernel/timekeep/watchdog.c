/*
 * watchdog.c - the TSC watchdog while tracing: each CPU, from its own clock
 * tick, holds its TSC against the reference clock every 500 ms
 * (tsc_check.c has the arithmetic and Linux's thresholds), and at once
 * after its clock stepped back (the trace writer counts steps,
 * kernel/trace/tracebuf.c).
 *
 * Correcting the stamps.  A record's stamp costs one TSC read (about 50
 * cycles for the whole record write); a read of the HPET or the PM timer
 * is an MMIO or port access that a hypervisor must emulate (a VM exit
 * each: 18.8 us under KVM on the development host, 0.3 us under TCG;
 * measured at start and printed), so stamps stay on the TSC.  Once
 * any check finds the TSC unstable, each CPU's stamps follow the
 * reference instead: at every check the CPU's adjust (added to its TSC
 * reads by the writer) follows the reference: at each check, on any
 * CPU, one line shared by all CPUs (wdline) is slewed, as NTP slews a
 * clock, to the reference's time minus the TSC, over 200 ms starting
 * ten clock ticks on; each CPU takes the new line at its next clock
 * tick, before the slew starts, and a check while a slew is under way or
 * due is not acted on (slew_line).  So no stamp ever stands still (a step
 * down held them at one value for its length), and CPUs whose TSCs agree
 * keep agreeing: no two CPUs use lines that differ (one the host stops
 * for ten ticks may, until its next tick).  Between slews the stamps
 * drift from the reference by what the TSC does in 500 ms at most (less
 * with more CPUs checking).  A CPU's own TSC drifting apart from the
 * others' is not corrected per CPU (only its boot skew is): its checks
 * pull the one line its way, and its KprofClockCheck records show it.
 * The writer's clamp keeps each CPU's stamps from going back when the
 * TSC steps back; a correction of more than 100 ms is a step, clamped
 * likewise.
 * Before that, adjust is the boot skew's correction (skew.c), 0 on
 * machines whose TSCs agree.
 *
 * Runs at CLOCK_LEVEL on each CPU, on that CPU's own state only; the
 * verdict (unstable) is one flag any CPU may set, and the first finding
 * is kept for the report by whoever sets it first (compare-and-swap).
 */
#include "kernel/timekeep/watchdog.h"

#include <arch/cpu.h>

#include "include/kprof/wire.h"
#include "include/kprof/wmi.h"
#include "kernel/console/console.h"
#include "kernel/ke/ke_keys.h"
#include "kernel/ke/prcb.h"
#include "kernel/ke/time/clock.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/compiler.h"
#include "kernel/lib/muldiv.h"
#include "kernel/timekeep/tsc_check.h"
#include "kernel/trace/trace.h"

/* The TSC's correction once it is found unstable: one line for every CPU
 * (a CPU adds its own boot skew correction), slewed by whichever CPU
 * checks, copied by each CPU from its own clock tick.  Per-CPU lines,
 * each stepped or slewed at that CPU's own check, made CPUs whose TSCs
 * agree disagree by the TSC's error between two CPUs' checks (a thread
 * seemed to run on two CPUs at once).  A seqcount guards the copy: the
 * slewing CPU makes seq odd, writes, makes it even; a reader retries
 * while it is odd or moved. */
static struct {
	volatile uint32_t seq;
	volatile uint32_t lock;         /* a CPU slewing it; another skips   */
	struct trace_clock_line line;
} wdline __attribute__((aligned(64)));

#define WATCHDOG_SLEW_US 200000 /* a correction's slew: 2/5 of the interval */
#define WATCHDOG_SLEW_DELAY_TICKS 10 /* ticks from a check to its slew's start */

struct wd_cpu {
	uint32_t line_seq;      /* the line's seq this CPU's copy has      */
	struct tsc_watchdog w;
	uint64_t next;          /* TSC of the next check                  */
	uint64_t steps_seen;    /* the writer's steps_back at the last one */
	uint64_t checks;        /* with a verdict                          */
	uint64_t skipped;
	uint64_t worst_ns;      /* the largest |TSC - reference| seen      */
} __attribute__((aligned(64)));

static struct wd_cpu wd[KPROF_MAX_CPUS];
static struct {
	const struct refclock *ref;
	uint64_t interval;      /* TSC cycles between checks               */
	uint64_t origin;        /* TSC at the start (clock.fault_ppm's)    */
	uint64_t read_ns;       /* one reference read, best of 16          */
	volatile uint32_t unstable; /* 0, or 1 + the CPU that found it     */
	struct tsc_check first; /* that finding                            */
} wds;

static uint64_t rdtsc_fn(void)
{
	return arch_rdtsc();
}

/* The watchdog is on once wds.ref is set, which start_all does last: the
 * clock ticks of the other CPUs, already running, find the rest in place. */
static const struct refclock *watchdog_ref(void)
{
	return __atomic_load_n(&wds.ref, __ATOMIC_ACQUIRE);
}

void tsc_watchdog_start_all(void)
{
	const struct refclock *ref = arch_time_reference();

	for (uint32_t i = 0; i < ke_number_processors; i++) {
		struct trace_cpu *tc = KiProcessorBlock[i]->TraceCpu;
		if (tc)
			tracebuf_set_adjust(tc, tsc_skew_correction(i));
	}
	if (!ref) {
		kprintf("time: watchdog: off: no HPET and no ACPI PM timer to check the TSC against\n");
		return;
	}
	struct clock_sample s = clock_sample(ref, rdtsc_fn, 0, 16);
	wds.read_ns = mul_div_u64(s.gap, 1000000000ULL, ke_tsc_hz);
	if (wds.read_ns > TSC_WATCHDOG_MAX_SKEW_US * 1000ULL) {
		/* Every check would be skipped (tsc_check.c): none is made. */
		kprintf("time: watchdog: off: the best of 16 reads of the %s took %llu us, more than the %u us a check "
			"can trust\n", ref->name, (unsigned long long)(wds.read_ns / 1000), TSC_WATCHDOG_MAX_SKEW_US);
		return;
	}
	wds.interval = ke_us_to_tsc(TSC_WATCHDOG_INTERVAL_US);
	wds.origin = arch_rdtsc();
	__atomic_store_n(&wds.ref, ref, __ATOMIC_RELEASE);
	if (ke_config->clock_fault_ppm)
		kprintf("time: watchdog: clock.fault_ppm=%u: a fault for tests, the watchdog sees every TSC run %u ppm "
			"fast\n", ke_config->clock_fault_ppm, ke_config->clock_fault_ppm);
	kprintf("time: watchdog: each CPU's TSC checked against the %s every %u ms (margin %u us + %u ppm); a read of "
		"the %s takes %llu ns, so stamps stay on the TSC\n",
		wds.ref->name, TSC_WATCHDOG_INTERVAL_US / 1000, TSC_WATCHDOG_MARGIN_US, CLOCK_MEASURE_MAX_PPM,
		wds.ref->name, (unsigned long long)wds.read_ns);
}

void tsc_watchdog_header(struct kprof_run_header *h)
{
	struct tsc_skew_summary k = tsc_skew_summary();
	bool fixed = false;

	for (uint32_t i = 1; i < ke_number_processors && i < KPROF_MAX_CPUS; i++)
		fixed |= tsc_skew_correction(i) != 0;
	h->tsc_skew_ns = (int32_t)(k.skew_ns > INT32_MAX ? INT32_MAX : k.skew_ns < INT32_MIN ? INT32_MIN : k.skew_ns);
	h->tsc_skew_error_ns = (uint32_t)(k.error_ns > UINT32_MAX ? UINT32_MAX : k.error_ns);
	h->tsc_skew_cpu = (uint16_t)k.cpu;
	h->skew_cpus = (uint16_t)k.measured;
	h->clock_reference = (uint16_t)(wds.ref ? arch_time_reference_kind() : KPROF_REFCLOCK_NONE);
	h->watchdog_ms = wds.ref ? TSC_WATCHDOG_INTERVAL_US / 1000 : 0;
	h->ref_read_ns = (uint32_t)(wds.read_ns > UINT32_MAX ? UINT32_MAX : wds.read_ns);
	h->clock_flags = KPROF_RUN_CLOCK_CLAMPED | (fixed ? KPROF_RUN_CLOCK_SKEW_FIXED : 0) |
			 (k.moved ? KPROF_RUN_CLOCK_NOT_SYNCED : 0);
}

bool tsc_watchdog_unstable(void)
{
	return __atomic_load_n(&wds.unstable, __ATOMIC_RELAXED) != 0;
}

static void write_record(const struct tsc_check *c, int64_t adjust, uint16_t flags)
{
	KPROF_CLOCK_CHECK k = {
		.IntervalNs = c->interval_ns, .TscNs = c->tsc_ns, .Adjust = adjust, .MarginNs = c->margin_ns,
		.Flags = flags, .Reference = (uint16_t)arch_time_reference_kind(),
	};
	if (trace_enabled(PERF_KPROF_CLOCK))
		trace_log(PERF_KPROF_CLOCK, KPROF_LOG_TYPE_CLOCK_CHECK, CLOCK_CHECK_VERSION, &k, sizeof(k));
	else
		trace_log(PERF_KPROF_THREAD, KPROF_LOG_TYPE_CLOCK_CHECK, CLOCK_CHECK_VERSION, &k, sizeof(k));
}

/* This CPU's copy of the line, if the line moved since it took one. */
static void copy_line(struct trace_cpu *tc, struct wd_cpu *d, uint32_t cpu)
{
	uint32_t seq = __atomic_load_n(&wdline.seq, __ATOMIC_ACQUIRE);
	struct trace_clock_line l;

	if (seq == d->line_seq)
		return;
	for (;;) {
		if (seq & 1) {
			arch_cpu_relax();
			seq = __atomic_load_n(&wdline.seq, __ATOMIC_ACQUIRE);
			continue;
		}
		l = (struct trace_clock_line){ READ_ONCE(wdline.line.base), READ_ONCE(wdline.line.from),
					       READ_ONCE(wdline.line.span), READ_ONCE(wdline.line.slope) };
		/* The line's fields read before the sequence is read again (a
		 * seqlock's read side, against slew_line's release below). */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uint32_t again = __atomic_load_n(&wdline.seq, __ATOMIC_RELAXED);
		if (again == seq)
			break;
		seq = again;
	}
	d->line_seq = seq;
	tracebuf_set_line(tc, &l, tsc_skew_correction(cpu));
}

/* Slew the line to `target` (this CPU's view of the correction, less its
 * boot skew at `now`).  The slew starts WATCHDOG_SLEW_DELAY_TICKS clock
 * ticks on, when every running CPU has copied the new line at a tick:
 * until then the new line and the old one are the same (the old one
 * has ended by `now`: trace_clock_line_settled), so no two CPUs ever use
 * lines that differ.  Skipped while a slew is under way or due (another
 * CPU's check as fresh as this one), or another CPU is setting one.
 * (Skipped only when the old slew would outlast the new one's start, a
 * check late in a slew set a line the CPUs took while the old one still
 * slewed: each jumped to its end as it took it.) */
static void slew_line(int64_t target, uint64_t now)
{
	uint64_t start = now + ke_us_to_tsc(WATCHDOG_SLEW_DELAY_TICKS * 1000000ULL / ke_config->tick_hz);

	if (__atomic_exchange_n(&wdline.lock, 1, __ATOMIC_ACQUIRE))
		return;
	if (!trace_clock_line_settled(&wdline.line, now)) {
		__atomic_store_n(&wdline.lock, 0, __ATOMIC_RELEASE);
		return;
	}
	struct trace_clock_line l = trace_clock_slew(&wdline.line, target, start,
						     ke_us_to_tsc(WATCHDOG_SLEW_US));
	uint32_t seq = wdline.seq;
	__atomic_store_n(&wdline.seq, seq + 1, __ATOMIC_RELAXED);
	/* The odd sequence stored before the line's new fields (a seqlock's
	 * write side): a reader that sees a field changed sees it odd. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	WRITE_ONCE(wdline.line.base, l.base);
	WRITE_ONCE(wdline.line.from, l.from);
	WRITE_ONCE(wdline.line.span, l.span);
	WRITE_ONCE(wdline.line.slope, l.slope);
	__atomic_store_n(&wdline.seq, seq + 2, __ATOMIC_RELEASE);
	__atomic_store_n(&wdline.lock, 0, __ATOMIC_RELEASE);
}

void tsc_watchdog_tick(KPRCB *prcb)
{
	struct trace_cpu *tc = prcb->TraceCpu;

	if (!watchdog_ref() || !tc || prcb->Number >= KPROF_MAX_CPUS)
		return;
	struct wd_cpu *d = &wd[prcb->Number];
	copy_line(tc, d, prcb->Number);
	uint64_t now = arch_rdtsc();
	uint64_t steps = READ_ONCE(tc->steps_back);
	if ((int64_t)(now - d->next) < 0 && steps == d->steps_seen && d->w.started)
		return;
	d->steps_seen = steps;
	d->next = now + wds.interval;
	struct clock_sample s = clock_sample(wds.ref, rdtsc_fn, ke_us_to_tsc(TSC_WATCHDOG_MAX_SKEW_US), 3);
	/* clock.fault_ppm=: the TSC seems this much fast since the start (a
	 * CPU whose TSC reads behind the start's, by the boot skew, not yet) */
	if (ke_config->clock_fault_ppm && (int64_t)(s.tsc - wds.origin) > 0)
		s.tsc += mul_div_u64(s.tsc - wds.origin, ke_config->clock_fault_ppm, 1000000);
	if (!d->w.started) {
		tsc_watchdog_start(&d->w, s, s.tsc + (uint64_t)READ_ONCE(tc->tsc_adjust));
		return;
	}
	struct tsc_check c = tsc_watchdog_check(&d->w, wds.ref, s, ke_tsc_hz);
	if (c.skipped) {
		d->skipped++;
		return;
	}
	d->checks++;
	int64_t diff = c.tsc_ns - (int64_t)c.interval_ns;
	uint64_t mag = diff < 0 ? (uint64_t)-diff : (uint64_t)diff;
	if (mag > d->worst_ns)
		d->worst_ns = mag;
	uint16_t flags = 0;
	if (c.unstable) {
		flags |= KPROF_CLOCK_CHECK_UNSTABLE;
		if (__atomic_compare_exchange_n(&wds.unstable, &(uint32_t){ 0 }, prcb->Number + 1, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			wds.first = c;
	}
	if (tsc_watchdog_unstable()) {
		/* Slewed, not stepped: a step down held every stamp at one
		 * value for its length (the clamp), hundreds of records at one
		 * instant that importers cannot order. */
		slew_line(c.adjust - tsc_skew_correction(prcb->Number), s.tsc);
		copy_line(tc, d, prcb->Number);
		flags |= KPROF_CLOCK_CHECK_CORRECTED;
	}
	if (flags)
		write_record(&c, c.adjust, flags); /* what the reference asks; the line slews to it */
}

/* The TSC against the reference, when due: a tick client of every CPU,
 * after the scheduler's. */
static void watchdog_tick(struct kprcb *prcb, KTRAP_FRAME *tf)
{
	(void)tf;
	tsc_watchdog_tick(prcb);
}
KE_TICK_CLIENT(watchdog_tick_client, watchdog_tick, 20);

void tsc_watchdog_report(void)
{
	uint64_t checks = 0, skipped = 0, worst = 0;

	for (uint32_t i = 0; i < ke_number_processors && i < KPROF_MAX_CPUS; i++) {
		struct trace_cpu *tc = KiProcessorBlock[i]->TraceCpu;
		checks += wd[i].checks;
		skipped += wd[i].skipped;
		worst = wd[i].worst_ns > worst ? wd[i].worst_ns : worst;
		if (tc && tc->steps_back)
			kprintf("time: cpu %u: its TSC went back %llu time%s, the largest by %llu ns; its stamps were "
				"clamped, never going back\n",
				i, (unsigned long long)tc->steps_back, tc->steps_back == 1 ? "" : "s",
				(unsigned long long)mul_div_u64(tc->back_max, 1000000000ULL, ke_tsc_hz));
	}
	if (!wds.ref)
		return;
	if (tsc_watchdog_unstable())
		kprintf("time: watchdog: TSC UNSTABLE: on cpu %u it advanced %lld us while the %s did %llu us "
			"(margin %u us); stamps followed the %s from then on, clamped per CPU\n",
			wds.unstable - 1, (long long)(wds.first.tsc_ns / 1000), wds.ref->name,
			(unsigned long long)(wds.first.interval_ns / 1000), wds.first.margin_ns / 1000, wds.ref->name);
	else
		kprintf("time: watchdog: TSC stable against the %s: %llu checks, the largest difference %llu us, "
			"%llu skipped (a read that waited)\n",
			wds.ref->name, (unsigned long long)checks, (unsigned long long)(worst / 1000),
			(unsigned long long)skipped);
}
