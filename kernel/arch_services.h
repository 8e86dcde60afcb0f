/*
 * arch_services.h - the kernel services an architecture (arch/) may use:
 * the one header of kernel/ outside kernel/lib/ that arch/ includes.
 *
 * The kernel stands on arch/ (it calls the arch_* interface of
 * <arch/...>); arch/ calls up into the kernel only where the machine
 * enters it (a CPU starts, an interrupt or a trap arrives) and for the
 * services listed here, each with why arch/ needs it.  kernel/lib/ (the
 * string and formatting functions, 64-bit arithmetic, medians, the
 * command-line key parser) is a library below both and is included
 * directly.
 *
 * Two checks hold arch/ to this list: tools/check-layering.sh (rule 12)
 * refuses a file under arch/ that includes another header of kernel/
 * outside kernel/lib/; tools/check-arch-services.sh, after the kernel is
 * built, refuses a name arch/'s objects take from kernel/'s objects
 * (outside kernel/lib/) that the list below does not name, and a name on
 * it that arch/ does not take (the list's lines: "- what: names", a line
 * ending in a comma going on on the next).
 *
 * The services (the headers below hold their declarations):
 *
 *   - entry: kernel_main, kernel_main_stack
 *       the boot CPU leaves arch's set-up for the kernel's main on the
 *       kernel's stack (kernel/init/main.h);
 *   - processors: KiProcessorBlock, ki_prcb_init, ki_processor_start
 *       arch starts each other CPU: its KPRCB made and filled, the CPU
 *       entering the kernel (kernel/init/smp.h, kernel/ke/prcb.h: arch
 *       points the CPU-local register at the KPRCB);
 *   - interrupts: ki_interrupt_enter, ki_interrupt_exit,
 *       ke_clock_note_stall
 *       every interrupt raises and lowers the IRQL and may dispatch on the
 *       way out (kernel/ke/irql.h); a clock interrupt that came late says
 *       so (kernel/ke/time/clock.h);
 *   - console: kprintf, console_register, console_register_replay,
 *       console_unregister, console_lock, console_unlock, console_enter_panic
 *       arch's serial port is a console sink, arch reports what it found,
 *       and a fatal trap takes the console over (kernel/console/console.h);
 *   - bug check: ke_bug_check_ex, ke_bug_check_trap, panic_in_progress
 *       what arch cannot go on from stops the machine the kernel's way,
 *       with its code and parameters (kernel/debug/panic.h);
 *   - memory map: kva_map_phys, kva_alloc_stack, kzalloc, pmm_init,
 *       pmm_alloc_pages, pmm_alloc_pages_below, pmm_alloc_low_page,
 *       pmm_free_pages, pmm_release_type
 *       device registers mapped, stacks, page tables and the start-up
 *       trampoline's page, from the kernel's allocators (kernel/mm/);
 *   - ACPI tables: acpi_find, acpi_scan, acpi_warnf, acpi_parse_fadt,
 *       acpi_parse_hpet, acpi_parse_mcfg, acpi_parse_spcr
 *       the tables are read by the kernel's parsers, arch applies what they
 *       say to the machine (kernel/acpi/acpi.h, kernel/ke/cpus.h for the
 *       number of CPUs the kernel is built for);
 *   - time: clock_measure_tsc, clock_error_ppm, ke_tsc_hz, ke_us_to_tsc,
 *       ke_stall_execution_processor
 *       arch's clocks are measured against a reference the kernel's way,
 *       and arch waits in microseconds (kernel/ke/time/time.h);
 *   - raw locks: raw_lock_select
 *       arch's own locks take the kind the command line chose
 *       (kernel/ke/rawlock.h);
 *   - command line: cmdline_refuse_at_probe
 *       a key the machine cannot honour is refused once the hardware is
 *       probed (kernel/lib/cmdline_key.h declares it);
 *   - symbols: ksym_lookup
 *       a stack walk names its frames (kernel/debug/ksyms.h).
 */
#ifndef KPROF_KERNEL_ARCH_SERVICES_H
#define KPROF_KERNEL_ARCH_SERVICES_H

#include "kernel/acpi/acpi.h"
#include "kernel/console/console.h"
#include "kernel/debug/ksyms.h"
#include "kernel/debug/panic.h"
#include "kernel/init/main.h"
#include "kernel/init/smp.h"
#include "kernel/ke/cpus.h"
#include "kernel/ke/irql.h"
#include "kernel/ke/prcb.h"
#include "kernel/ke/rawlock.h"
#include "kernel/ke/time/clock.h"
#include "kernel/ke/time/time.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/kva.h"
#include "kernel/mm/pmm.h"

#endif /* KPROF_KERNEL_ARCH_SERVICES_H */
