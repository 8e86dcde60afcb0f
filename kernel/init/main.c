/*
 * main.c - what the kernel does once the boot CPU can run C normally:
 * the banner, the boot log, the command line, then the chosen scenario.
 */
#include "kernel/init/main.h"

#include <arch/platform.h>
#include <arch/pmu.h>
#include <arch/serial.h>

#include "generated/version.h"
#include "kernel/console/bootlog.h"
#include "kernel/ke/broadcast.h"
#include "kernel/ke/clock.h"
#include "kernel/init/cmdline.h"
#include "kernel/console/console.h"
#include "kernel/ex/sysinfo.h"
#include "kernel/console/fbcon.h"
#include "kernel/lib/libk.h"
#include "kernel/locks/lockstat.h"
#include "kernel/debug/panic.h"
#include "kernel/profile/profile.h"
#include "kernel/profile/profile_trace.h"
#include "kernel/profile/source.h"
#include "kernel/ke/rawlock.h"
#include "kernel/workloads/scenario.h"
#include "kernel/sched/sched.h"
#include "kernel/workloads/selftest.h"
#include "kernel/ke/smp.h"
#include "kernel/trace/trace.h"

struct kconfig kconfig;
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

static void print_cmdline_error(void *ctx, const char *msg)
{
	(void)ctx;
	kprintf("%s\n", msg);
}

/* A rejected command line ends the run before anything runs. */
__attribute__((noreturn)) static void reject_command_line(unsigned errors)
{
	kprintf("cmdline: %u error%s; nothing was run (README.md lists every key)\n", errors, errors == 1 ? "" : "s");
	kprof_run_end(KPROF_EXIT_CONFIG);
}

static void parse_command_line(const struct bootinfo *bi)
{
	kprintf("cmdline: \"%s\" (%s)\n", bi->cmdline, cmdline_source_name(bi->cmdline_source));
	config_defaults(&kconfig);
	int errors = cmdline_parse(bi->cmdline, &kconfig, print_cmdline_error, NULL);
	if (errors)
		reject_command_line((unsigned)errors);
}

/* The spin-lock sampling keys go through NtSetSystemInformation, which
 * checks them: a refused value ends the run like any rejected key. */
static void apply_spinlock_keys(void)
{
	EVENT_TRACE_SPINLOCK_INFORMATION info = {
		.EventTraceInformationClass = EventTraceSpinlockInformation,
		.SpinLockSpinThreshold = kconfig.spin_threshold,
		.SpinLockAcquireSampleRate = kconfig.acquire_sample_rate,
		.SpinLockContentionSampleRate = kconfig.contention_sample_rate,
		.SpinLockHoldThreshold = kconfig.hold_threshold,
	};
	NTSTATUS st = nt_set_system_information(SystemPerformanceTraceInformation, &info, sizeof(info));
	if (st == STATUS_SUCCESS)
		return;
	kprintf("cmdline: spinlock.spin_threshold=%u spinlock.acquire_sample_rate=%u spinlock.contention_sample_rate=%u "
		"spinlock.hold_threshold=%u: refused by NtSetSystemInformation with %s (0x%08X); accepted: "
		"spin_threshold >= %u, acquire_sample_rate >= %u, contention_sample_rate >= %u, hold_threshold 0 or "
		">= %u\n",
		kconfig.spin_threshold, kconfig.acquire_sample_rate, kconfig.contention_sample_rate, kconfig.hold_threshold,
		nt_status_name(st), (unsigned)st, SPINLOCK_MIN_SPIN_THRESHOLD, SPINLOCK_MIN_ACQUIRE_SAMPLE_RATE,
		SPINLOCK_MIN_CONTENTION_SAMPLE_RATE, SPINLOCK_MIN_HOLD_THRESHOLD);
	reject_command_line(1);
}

/* The profile keys go through NtSetIntervalProfile, which checks them
 * against what the sources accept here; a refused value ends the run. */
static void apply_profile_keys(void)
{
	uint32_t n = 0, errors = 0;

	if (kconfig.pmc_sources & 1u) {
		kprintf("cmdline: pmc.sources: Time is the profile timer (trace=profile), not a counter; accepted: the "
			"other KPROFILE_SOURCE names, e.g. TotalCycles,TotalIssues,BranchMispredictions,CacheMisses\n");
		errors++;
	}
	for (unsigned s = 1; s < ProfileMaximum; s++)
		n += (kconfig.pmc_sources >> s) & 1u;
	if (n > ARCH_PMU_MAX_SOURCES) {
		kprintf("cmdline: pmc.sources names %u sources; accepted: at most %u at once\n", n, ARCH_PMU_MAX_SOURCES);
		errors++;
	}
	NTSTATUS st = nt_set_interval_profile(kconfig.profile_interval, ProfileTime);
	if (st != STATUS_SUCCESS && st != STATUS_NOT_SUPPORTED) {
		kprintf("cmdline: profile.interval=%u: refused by NtSetIntervalProfile with %s\n", kconfig.profile_interval,
			nt_status_name(st));
		errors++;
	}
	for (int16_t s = 1; s < ProfileMaximum; s++) {
		if (!(kconfig.pmc_sources & (1u << s)) || !ki_profile_source_supported(s))
			continue; /* an unsupported source is reported when trace=pmc starts it */
		st = nt_set_interval_profile(kconfig.pmc_interval, s);
		if (st != STATUS_SUCCESS) {
			kprintf("cmdline: pmc.interval=%u: refused for %s by NtSetIntervalProfile with %s; accepted: %u to "
				"%llu events on this CPU\n", kconfig.pmc_interval, kprofile_source_name((unsigned)s),
				nt_status_name(st), PROFILE_PMC_MIN_INTERVAL,
				(unsigned long long)arch_pmu_max_interval((uint32_t)s));
			errors++;
		}
	}
	if (errors)
		reject_command_line(errors);
}

void kernel_main(const struct bootinfo *bi)
{
	fbcon_init(&bi->fb);

	kprintf("kprof %s (build %s, %s) booted by %s%s\n", KPROF_VERSION, KPROF_BUILD_ID, KPROF_BUILD_DATE,
		bi->loader_name, arch_platform_is_qemu() ? " under QEMU" : "");
	kprintf("console: serial %s; framebuffer %s\n", arch_serial_describe(), fbcon_describe());
	bootlog_memory(bi);
	bootlog_cpu();
	parse_command_line(bi);
	apply_spinlock_keys();
	if (kconfig.rawlock != RAWLOCK_AUTO) /* only this CPU runs, no raw lock is held */
		raw_lock_set_test_and_set(kconfig.rawlock == RAWLOCK_TAS);
	bootlog_locks(kconfig.rawlock);

	arch_platform_init(bi);
	ke_clock_init();
	ki_profile_source_init();
	ki_processor_start_boot();
	ke_init_scheduler(kernel_main_stack.base, kernel_main_stack.top);
	ke_broadcast_init();
	ke_start_processors(kconfig.cpus);
	apply_profile_keys();
	trace_start(bi->cmdline);
	ps_trace_rundown();
	ke_trace_spinlock_config();
	ke_profile_trace_start();

	selftest_run(kconfig.selftest);
	enum kprof_exit_status status = scenario_run(kconfig.scenario);
	ke_profile_trace_stop();
	trace_finish(status);
	kprof_run_end(status);
}
