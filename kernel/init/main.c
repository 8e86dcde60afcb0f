/*
 * main.c - what the kernel does once the boot CPU can run C normally:
 * the banner, the boot log, the command line, then the chosen scenario.
 */
#include "kernel/init/main.h"

#include <stdarg.h>

#include <arch/platform.h>
#include <arch/dev/pmu.h>
#include <arch/dev/serial.h>

#include "generated/version.h"
#include "kernel/console/bootlog.h"
#include "kernel/init/boot_stick.h"
#include "kernel/sched/broadcast.h"
#include "kernel/ke/time/clock.h"
#include "kernel/ke/ke_keys.h"
#include "kernel/init/cmdline.h"
#include "kernel/console/console.h"
#include "kernel/ex/resource.h"
#include "kernel/ex/resource_keys.h"
#include "kernel/ex/sysinfo.h"
#include "kernel/console/fbcon.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"
#include "kernel/timekeep/fidelity.h"
#include "kernel/timekeep/watchdog.h"
#include "kernel/trace/user_event.h"
#include "kernel/locks/lockstat.h"
#include "kernel/locks/spinlock_keys.h"
#include "kernel/debug/panic.h"
#include "kernel/profile/profile.h"
#include "kernel/profile/profile_keys.h"
#include "kernel/profile/pace.h"
#include "kernel/profile/profile_trace.h"
#include "kernel/profile/source.h"
#include "kernel/ke/rawlock.h"
#include "kernel/workloads/api/descriptor.h"
#include "kernel/workloads/scenario.h"
#include "kernel/sched/sched.h"
#include "kernel/workloads/measure.h"
#include "kernel/workloads/selftest.h"
#include "kernel/workloads/workload_keys.h"
#include "kernel/init/smp.h"
#include "kernel/ke/time/time.h"
#include "kernel/mm/mm_keys.h"
#include "kernel/mm/pmm.h"
#include "kernel/trace/objname.h"
#include "kernel/usb/handoff/handoff.h"
#include "kernel/usb/probe/probe.h"
#include "kernel/usb/probe/probe_keys.h"
#include "kernel/trace/out/out.h"
#include "kernel/trace/smi_count.h"
#include "kernel/trace/trace.h"
#include "kernel/trace/config/trace_configure.h"
#include <arch/mmu.h>

struct kstack kernel_main_stack;

static const char *cmdline_source_name(uint32_t src)
{
	switch (src) {
	case BOOTINFO_CMDLINE_LOAD_OPTIONS: return "UEFI load options";
	case BOOTINFO_CMDLINE_FILE: return "\\kprof\\cmdline.txt";
	case BOOTINFO_CMDLINE_PVH: return "direct-boot command line";
	default: return "none: defaults";
	}
}

/* Every line of every problem is printed whole: */
_Static_assert(CMDLINE_LINE_MAX + 1 <= KPRINTF_MAX, "a command-line report line and its newline fit one kprintf");

static void print_cmdline_error(void *ctx, const char *line, enum cmdline_line kind)
{
	(void)ctx;
	(void)kind;
	kprintf("%s\n", line);
}

/* A rejected command line ends the run before anything runs. */
__attribute__((noreturn)) static void reject_command_line(unsigned errors)
{
	kprintf("cmdline: %u error%s; nothing was run (docs/cmdline.md lists every key)\n", errors,
		errors == 1 ? "" : "s");
	kprof_run_end(KPROF_EXIT_CONFIG);
}

/* A line longer than BOOTINFO_CMDLINE_MAX - 1 is refused, never cut (a
 * cut tick_hz=1000 would run as tick_hz=10).  The UEFI loader refuses it
 * itself (boot/uefi/cmdline.c) and ends the run with the LOADER status;
 * the PVH entry cannot print yet, so it passes the length on and the
 * refusal is made here, in the same words and with the same status. */
static void check_loader_cmdline(const struct bootinfo *bi)
{
	if (!bi->cmdline_refused)
		return;
	kprintf("%s: error: command line from %s is %u bytes, longer than the limit of %u (BOOTINFO_CMDLINE_MAX - 1)\n",
		bi->loader_name, cmdline_source_name(bi->cmdline_source), bi->cmdline_refused,
		(unsigned)BOOTINFO_CMDLINE_MAX - 1);
	kprof_run_end(KPROF_EXIT_LOADER);
}

/* Every key's range and every rule between keys, in one pass (config_parse,
 * cmdline_rules.c): all problems are printed, then the run ends. */
static void parse_command_line(const struct bootinfo *bi)
{
	kprintf("cmdline: \"%s\" (%s)\n", bi->cmdline, cmdline_source_name(bi->cmdline_source));
	int errors = config_parse(bi->cmdline, print_cmdline_error, NULL);
	if (errors)
		reject_command_line((unsigned)errors);
}

/* Values only the probed hardware could refuse (cmdline_key.h); counted
 * until probing is done, then the run ends if there were any. */
static unsigned probe_refusals;

void cmdline_refuse_at_probe(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cmdline_vreport(print_cmdline_error, NULL, fmt, ap);
	va_end(ap);
	probe_refusals++;
}

/* The spin-lock sampling keys go through NtSetSystemInformation, whose
 * rule (spinlock_params_valid) config_parse already applied, so a refusal
 * here would be a bug; it still ends the run like any rejected key. */
static void apply_spinlock_keys(void)
{
	EVENT_TRACE_SPINLOCK_INFORMATION info = {
		.EventTraceInformationClass = EventTraceSpinlockInformation,
		.SpinLockSpinThreshold = spinlock_config->spin_threshold,
		.SpinLockAcquireSampleRate = spinlock_config->acquire_sample_rate,
		.SpinLockContentionSampleRate = spinlock_config->contention_sample_rate,
		.SpinLockHoldThreshold = spinlock_config->hold_threshold,
	};
	NTSTATUS st = nt_set_system_information(SystemPerformanceTraceInformation, &info, sizeof(info));
	if (st == STATUS_SUCCESS)
		return;
	kprintf("cmdline: spinlock.*: refused by NtSetSystemInformation with %s (0x%08X) after the command-line check "
		"accepted them\n", nt_status_name(st), (unsigned)st);
	reject_command_line(1);
}

/* The empty interrupt round trip, measured once on the boot CPU before
 * the trace starts: it paces the default ProfileTime interval on a
 * machine whose interrupts are slow (pace.h) and goes into the run's
 * fidelity statement (kernel/timekeep/fidelity.c). */
#define PACE_ROUNDS    64
#define PACE_BUDGET_US 100000

static struct irq_cost boot_round_trip;

/* The profile keys go through NtSetIntervalProfile.  Their ranges were
 * checked with the command line; what is left depends on the counters
 * found: a PMC interval above what a source's counter takes is refused
 * here, at probe time. */
static uint32_t paced_profile_interval(const struct profile_config *c)
{
	if (c->interval_given)
		return c->interval;
	const struct irq_cost rt = boot_round_trip;
	uint64_t ns = mul_div_u64(rt.median, 1000000000, ke_tsc_hz);
	uint32_t iv = ki_profile_paced_interval(c->interval, false, ns);
	if (iv != c->interval)
		kprintf("profile: ProfileTime every %u us, not the default %u us: an empty interrupt round trip takes %llu "
			"us here (median of %u), and profile interrupts may take at most 1/%u of a CPU (profile.interval= "
			"sets it)\n",
			iv / 10, c->interval / 10, (unsigned long long)(ns / 1000), rt.rounds, PROFILE_PACE_SHARE);
	return iv;
}

static void apply_profile_keys(void)
{
	const struct profile_config *c = profile_config;
	NTSTATUS st = nt_set_interval_profile(paced_profile_interval(c), ProfileTime);
	if (st != STATUS_SUCCESS && st != STATUS_NOT_SUPPORTED) /* not supported: timer=periodic */
		cmdline_refuse_at_probe("cmdline: profile.interval=%u: refused by NtSetIntervalProfile with %s",
					c->interval, nt_status_name(st));
	for (int16_t s = 1; s < ProfileMaximum; s++) {
		if (!(c->pmc_sources & (1u << s)) || !ki_profile_source_supported(s))
			continue; /* an unsupported source is reported when trace=pmc starts it */
		st = nt_set_interval_profile(c->pmc_interval, s);
		if (st != STATUS_SUCCESS)
			cmdline_refuse_at_probe("cmdline: pmc.interval=%u: refused for %s by NtSetIntervalProfile with %s; "
						"accepted: %u to %llu events on this CPU", c->pmc_interval,
						kprofile_source_name((unsigned)s), nt_status_name(st),
						PROFILE_PMC_MIN_INTERVAL,
						(unsigned long long)arch_pmu_max_interval((uint32_t)s));
	}
}

/* The trace's keys against what probing found (trace_configure): the
 * output, and every CPU's buffer against the memory left once the CPUs
 * are up. */
static void configure_trace(const struct bootinfo *bi)
{
	struct pmm_stats st;

	pmm_get_stats(&st);
	const struct trace_probe probe = {
		.ncpu = ke_number_processors,
		.free_kb = st.free_pages * (PAGE_SIZE / 1024),
		.stick = &bi->stick,
	};
	trace_configure(trace_config, &probe);
}

/* Probing is done (platform, clocks, counters, every CPU): a value it
 * refused ends the run now, with all of them shown, before any scenario. */
static void end_probe_checks(void)
{
	if (probe_refusals)
		reject_command_line(probe_refusals);
}

void kernel_main(const struct bootinfo *bi)
{
	fbcon_init(&bi->fb);

	kprintf("kprof %s (build %s, %s) booted by %s%s\n", KPROF_VERSION, KPROF_BUILD_ID, KPROF_BUILD_DATE,
		bi->loader_name, arch_platform_is_qemu() ? " under QEMU" : "");
	kprintf("console: serial %s; framebuffer %s\n", arch_serial_describe(), fbcon_describe());
	bootlog_memory(bi);
	bootlog_cpu();
	boot_stick_init(bi);
	check_loader_cmdline(bi);
	parse_command_line(bi);
	pmm_set_high_first(mm_config->high_first != 0);
	apply_spinlock_keys();
	if (ke_config->rawlock != RAWLOCK_AUTO) /* only this CPU runs, no raw lock is held */
		raw_lock_set_test_and_set(ke_config->rawlock == RAWLOCK_TAS);
	bootlog_locks(ke_config->rawlock);
	ex_resource_set_timeout(resource_config->timeout_ms);

	arch_platform_init(bi);
	ke_clock_init();
	ki_profile_source_init();
	ki_processor_start_boot();
	ke_init_scheduler(kernel_main_stack.base, kernel_main_stack.top);
	ke_broadcast_init();
	ke_start_processors(ke_config->cpus);
	tsc_skew_measure();
	boot_round_trip = measure_interrupt_round_trip_within(PACE_ROUNDS, PACE_BUDGET_US);
	apply_profile_keys();
	ex_resource_name_objects(); /* named before the trace: its rundown has them */
	configure_trace(bi);
	end_probe_checks();
	usb_handoff_all(); /* the firmware's USB SMIs stop before the trace */
	if (usb_probe_config->probe)
		usb_probe_run();
	const char *scenario = scenario_name(workload_config->scenario);
	trace_start(bi->cmdline, workload_wire_number(scenario), scenario);
	trace_smi_count_start();
	trace_fidelity_start(boot_round_trip.median);
	ps_trace_rundown();
	trace_object_rundown();
	user_event_rundown();
	ke_trace_spinlock_config();
	ke_profile_trace_start();

	selftest_run(workload_config->selftest);
	enum kprof_exit_status status = selftest_after(workload_config->selftest,
						       scenario_run(workload_config->scenario));
	ke_profile_trace_stop();
	trace_smi_count_stop();
	trace_fidelity_stop();
	trace_finish(status);
	kprof_run_end(trace_out_exit_status(status));
}
