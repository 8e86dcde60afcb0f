/*
 * main.c - what the kernel does once the boot CPU can run C normally:
 * the banner, the boot log, the command line, then the chosen scenario.
 */
#include "kernel/main.h"

#include <arch/platform.h>
#include <arch/serial.h>

#include "generated/version.h"
#include "kernel/bootlog.h"
#include "kernel/clock.h"
#include "kernel/cmdline.h"
#include "kernel/console.h"
#include "kernel/fbcon.h"
#include "kernel/libk.h"
#include "kernel/panic.h"
#include "kernel/rawlock.h"
#include "kernel/scenario.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
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

static void parse_command_line(const struct bootinfo *bi)
{
	kprintf("cmdline: \"%s\" (%s)\n", bi->cmdline, cmdline_source_name(bi->cmdline_source));
	config_defaults(&kconfig);
	int errors = cmdline_parse(bi->cmdline, &kconfig, print_cmdline_error, NULL);
	if (errors) {
		kprintf("cmdline: %d error%s; nothing was run (README.md lists every key)\n", errors,
			errors == 1 ? "" : "s");
		kprof_run_end(KPROF_EXIT_CONFIG);
	}
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
	if (kconfig.rawlock != RAWLOCK_AUTO) /* only this CPU runs, no raw lock is held */
		raw_lock_set_test_and_set(kconfig.rawlock == RAWLOCK_TAS);
	bootlog_locks(kconfig.rawlock);

	arch_platform_init(bi);
	ke_clock_init();
	ki_processor_start_boot();
	ke_init_scheduler(kernel_main_stack.base, kernel_main_stack.top);
	ke_start_processors(kconfig.cpus);
	trace_start(bi->cmdline);

	selftest_run(kconfig.selftest);
	enum kprof_exit_status status = scenario_run(kconfig.scenario);
	trace_finish(status);
	kprof_run_end(status);
}
