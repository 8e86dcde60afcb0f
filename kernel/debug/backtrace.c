/*
 * backtrace.c - symbolized backtraces for faults and bug checks.
 *
 * Frame #0 is the interrupted (or calling) instruction itself; the rest are
 * return addresses from the frame-pointer chain.  A return address points
 * after its call, so it is looked up as address - 1 to name the caller even
 * when the call is the last instruction of a function.  Runs of the same
 * return address (deep recursion) are printed once with a count.
 */
#include "kernel/debug/backtrace.h"

#include <arch/stackwalk.h>

#include "kernel/console/console.h"
#include "kernel/debug/ksyms.h"
#include "kernel/lib/printf.h"

static void print_frame(unsigned i, uintptr_t pc, uintptr_t lookup, unsigned repeats)
{
	uintptr_t off = 0;
	const char *name = ksym_lookup(lookup, &off);
	char more[40] = "";

	if (repeats > 1)
		ksnprintf(more, sizeof(more), "  (x%u, through #%u)", repeats, i + repeats - 1);
	if (name)
		kprintf("  #%-2u 0x%016llx %s+0x%llx%s\n", i, (unsigned long long)pc, name,
			(unsigned long long)(off + (pc - lookup)), more);
	else
		kprintf("  #%-2u 0x%016llx ?%s\n", i, (unsigned long long)pc, more);
}

static void print_chain(uintptr_t ip, const uintptr_t *pcs, unsigned n)
{
	kprintf("Backtrace (frame pointers, %u frame%s%s):\n", n + 1, n ? "s" : "",
		n + 1 >= BACKTRACE_MAX ? ", cut" : "");
	print_frame(0, ip, ip, 1);
	for (unsigned i = 0; i < n;) {
		unsigned run = 1;
		while (i + run < n && pcs[i + run] == pcs[i])
			run++;
		print_frame(i + 1, pcs[i], pcs[i] - 1, run);
		i += run;
	}
}

void backtrace_print(uintptr_t ip, uintptr_t fp)
{
	uintptr_t pcs[BACKTRACE_MAX - 1];
	print_chain(ip, pcs, arch_stack_walk(fp, pcs, BACKTRACE_MAX - 1));
}

void backtrace_print_trap(const KTRAP_FRAME *tf)
{
	uintptr_t pcs[BACKTRACE_MAX - 1];
	print_chain(trap_frame_ip(tf), pcs, arch_stack_walk_trap(tf, pcs, BACKTRACE_MAX - 1));
}
