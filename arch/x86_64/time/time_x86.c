/*
 * time_x86.c - the TSC rate and the reference clocks on x86.
 *
 * Source of the rate (tsc_source=): CPUID leaf 0x15 (crystal frequency and
 * TSC/crystal ratio) or 0x16 (base frequency) when the CPU states it,
 * otherwise a 50 ms measurement against the HPET, otherwise against the
 * ACPI PM timer.  Whatever the source, the rate is then checked against
 * the HPET (the PM timer when there is no HPET) over 100 ms and the
 * difference printed: that is the calibration error the tests bound.
 */
#include <arch/cmdline.h>
#include <arch/cpu.h>
#include <arch/smp.h>
#include <arch/dev/timer.h>

#include "arch/x86_64/platform_x86.h"
#include "arch/x86_64/time/refclock.h"
#include "arch/x86_64/x86.h"
#include "kernel/arch_services.h"
#include "kernel/lib/cmdline_key.h" /* cmdline_refuse_at_probe */
#include "kernel/lib/printf.h"
#include "include/kprof/wmi.h" /* KPROF_REFCLOCK_* */

#define CALIBRATE_US 50000   /* boot CPU: the rate itself             */
#define CHECK_US     100000  /* boot CPU: the error check             */
#define PER_CPU_US   20000   /* every CPU: its own measurement        */

static uint64_t rdtsc_fn(void)
{
	return arch_rdtsc();
}

/* TSC Hz from CPUID 0x15 or 0x16, or 0; *how says which. */
static uint64_t tsc_hz_from_cpuid(const char **how)
{
	uint32_t r[4];

	cpuid_count(0, 0, r);
	uint32_t max = r[0];
	if (max >= 0x15) {
		cpuid_count(0x15, 0, r);
		if (r[0] && r[1] && r[2]) {
			*how = "CPUID 0x15 (crystal x ratio)";
			return (uint64_t)r[2] * r[1] / r[0];
		}
	}
	if (max >= 0x16) {
		cpuid_count(0x16, 0, r);
		if (r[0] & 0xFFFF) {
			*how = "CPUID 0x16 (base frequency)";
			return (uint64_t)(r[0] & 0xFFFF) * 1000000;
		}
	}
	return 0;
}

/* tsc_source= as given, or auto when this machine lacks that source: the
 * value is then refused (the run ends once probing is done, before any
 * scenario) and the rate is found as auto would, so probing can finish. */
static uint32_t tsc_source_here(uint64_t cpuid_hz)
{
	bool have[TSC_SOURCE_COUNT] = {
		[TSC_SOURCE_AUTO] = true,
		[TSC_SOURCE_CPUID] = cpuid_hz != 0,
		[TSC_SOURCE_HPET] = x86.hpet_clock != NULL,
		[TSC_SOURCE_PMTIMER] = x86.pm_clock != NULL,
	};
	uint32_t src = arch_config->tsc_source;
	char here[64];
	size_t len = 0;

	if (src < TSC_SOURCE_COUNT && have[src])
		return src;
	for (uint32_t i = 0; i < TSC_SOURCE_COUNT; i++)
		if (have[i])
			len += (size_t)ksnprintf(here + len, sizeof(here) - len, "%s%s", len ? ", " : "",
						 x86_tsc_source_names[i]);
	cmdline_refuse_at_probe("cmdline: tsc_source=%s: this machine does not have it; accepted here: %s",
				src < TSC_SOURCE_COUNT ? x86_tsc_source_names[src] : "?", here);
	return TSC_SOURCE_AUTO;
}

static void print_mhz(const char *prefix, uint64_t hz, const char *suffix)
{
	kprintf("%s%llu.%06llu MHz%s", prefix, (unsigned long long)(hz / 1000000), (unsigned long long)(hz % 1000000),
		suffix);
}

void time_setup(void)
{
	const char *how = 0, *cpuid_how = 0;
	uint64_t hz = 0;
	uint32_t r[4];

	if (x86.have_hpet)
		x86.hpet_clock = hpet_init(x86.hpet.base);
	if (x86.have_fadt && !x86.fadt.hw_reduced && x86.fadt.pm_timer_port)
		x86.pm_clock = pmtimer_init(x86.fadt.pm_timer_port, x86.fadt.pm_timer_32bit);
	kprintf("time: reference clocks: HPET %s, ACPI PM timer %s\n",
		x86.hpet_clock ? "present" : (x86.have_hpet ? "listed but not counting" : "absent"),
		x86.pm_clock ? "present" : "absent");

	uint64_t cpuid_hz = tsc_hz_from_cpuid(&cpuid_how);
	switch (tsc_source_here(cpuid_hz)) {
	case TSC_SOURCE_HPET:
		x86.ref = x86.hpet_clock;
		break;
	case TSC_SOURCE_PMTIMER:
		x86.ref = x86.pm_clock;
		break;
	default: /* cpuid, auto: the rate from CPUID when it states one */
		hz = cpuid_hz;
		how = cpuid_how;
		/* the reference still measures each CPU */
		x86.ref = x86.hpet_clock ? x86.hpet_clock : x86.pm_clock;
		break;
	}
	if (!hz) {
		if (!x86.ref)
			ke_bug_check_ex(KPROF_BAD_BOOTINFO, 0, 0, 0, 0,
					"no way to measure time: no TSC rate in CPUID, no HPET, no ACPI PM timer");
		hz = clock_measure_tsc(x86.ref, rdtsc_fn, CALIBRATE_US);
		how = x86.ref == x86.hpet_clock ? "measured against the HPET over 50 ms"
						: "measured against the ACPI PM timer over 50 ms";
	}
	ke_tsc_hz = hz;
	cpuid_count(0x80000000, 0, r);
	bool invariant = false;
	if (r[0] >= 0x80000007) {
		cpuid_count(0x80000007, 0, r);
		invariant = (r[3] & (1u << 8)) != 0;
	}
	print_mhz("time: TSC ", hz, "");
	kprintf(", %s%s\n", how, invariant ? ", invariant" : ", not flagged invariant");

	const struct refclock *check = x86.hpet_clock ? x86.hpet_clock : x86.pm_clock;
	if (check) {
		uint64_t measured = clock_measure_tsc(check, rdtsc_fn, CHECK_US);
		int64_t ppm = clock_error_ppm(measured, hz);
		int64_t mag = ppm < 0 ? -ppm : ppm;
		kprintf("time: TSC calibration error against the %s over 100 ms: %c%lld.%04lld%% (%+lld ppm)\n",
			check->name, ppm < 0 ? '-' : '+', (long long)(mag / 10000), (long long)(mag % 10000),
			(long long)ppm);
	}
}

void arch_cpu_measure(KPRCB *prcb)
{
	prcb->TscHz = x86.ref ? clock_measure_tsc(x86.ref, rdtsc_fn, PER_CPU_US) : ke_tsc_hz;
	prcb->TimerHz = arch_timer_calibrate();
}

const struct refclock *arch_time_reference(void)
{
	return x86.ref;
}

uint32_t arch_time_reference_kind(void)
{
	if (!x86.ref)
		return KPROF_REFCLOCK_NONE;
	return x86.ref == x86.hpet_clock ? KPROF_REFCLOCK_HPET : KPROF_REFCLOCK_PMTIMER;
}
