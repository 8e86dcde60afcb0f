/*
 * trap.c - C side of interrupt and exception entry.
 *
 * trap_dispatch() receives every vector from isr.asm.  CPU exceptions
 * (vectors 0-31) are fatal in the kernel: the report names the exception,
 * decodes the error code, dumps the registers and control registers, then
 * bug-checks with a backtrace that starts at the faulting instruction.
 * Vectors 32-255 go to handlers registered with trap_set_handler().
 *
 * Invariant: a handler runs with interrupts disabled (interrupt gates) on
 * the interrupted stack, or on its IST stack for NMI, #DF and #MC.
 */
#include "arch/x86_64/entry/trap.h"

#include <arch/trapframe.h>

#include "arch/x86_64/x86.h"
#include "kernel/arch_services.h"

static trap_handler_t trap_handlers[256];

static const char *const exception_names[32] = {
	[0] = "#DE divide error",
	[1] = "#DB debug",
	[2] = "NMI",
	[3] = "#BP breakpoint",
	[4] = "#OF overflow",
	[5] = "#BR bound range",
	[6] = "#UD invalid opcode",
	[7] = "#NM device not available",
	[8] = "#DF double fault",
	[9] = "coprocessor segment overrun",
	[10] = "#TS invalid TSS",
	[11] = "#NP segment not present",
	[12] = "#SS stack fault",
	[13] = "#GP general protection",
	[14] = "#PF page fault",
	[16] = "#MF x87 floating point",
	[17] = "#AC alignment check",
	[18] = "#MC machine check",
	[19] = "#XM SIMD floating point",
	[20] = "#VE virtualization",
	[21] = "#CP control protection",
	[28] = "#HV hypervisor injection",
	[29] = "#VC VMM communication",
	[30] = "#SX security",
};

void trap_set_handler(unsigned vector, trap_handler_t h)
{
	trap_handlers[vector] = h;
}

static void describe_page_fault(uint64_t err)
{
	kprintf("    page fault: %s, %s, %s mode%s%s\n", err & 1 ? "protection violation" : "page not present",
		err & 2 ? "write" : "read", err & 4 ? "user" : "kernel", err & 8 ? ", reserved bit set" : "",
		err & 16 ? ", instruction fetch" : "");
}

static void dump_registers(const KTRAP_FRAME *tf)
{
	const struct {
		const char *name;
		uint64_t value;
	} regs[] = {
		{ "RIP", tf->rip }, { "RSP", tf->rsp }, { "RFLAGS", tf->rflags },
		{ "RAX", tf->rax }, { "RBX", tf->rbx }, { "RCX", tf->rcx },
		{ "RDX", tf->rdx }, { "RSI", tf->rsi }, { "RDI", tf->rdi },
		{ "RBP", tf->rbp }, { "R8 ", tf->r8 },  { "R9 ", tf->r9 },
		{ "R10", tf->r10 }, { "R11", tf->r11 }, { "R12", tf->r12 },
		{ "R13", tf->r13 }, { "R14", tf->r14 }, { "R15", tf->r15 },
		{ "CR0", read_cr0() }, { "CR2", read_cr2() }, { "CR3", read_cr3() },
		{ "CR4", read_cr4() }, { "CR8", read_cr8() }, { "CS ", tf->cs },
	};

	/* Three registers to a line, as "    RAX 0000000000000000  RBX ...". */
	for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i += 3)
		kprintf("    %s %016llx  %s %016llx  %s %016llx\n", regs[i].name, (unsigned long long)regs[i].value,
			regs[i + 1].name, (unsigned long long)regs[i + 1].value, regs[i + 2].name,
			(unsigned long long)regs[i + 2].value);
}

void trap_fatal(KTRAP_FRAME *tf)
{
	unsigned v = (unsigned)tf->vector;
	const char *name = exception_names[v] ? exception_names[v] : "reserved exception";
	uint64_t cr2 = read_cr2();
	uint32_t code = v == 14 ? PAGE_FAULT_IN_NONPAGED_AREA
			: (v == 2 || v == 8 || v == 18) ? UNEXPECTED_KERNEL_MODE_TRAP
							: KMODE_EXCEPTION_NOT_HANDLED;

	if (panic_in_progress()) /* a fault while reporting a fault: the least */
		ke_bug_check_trap(code, tf, v, tf->error_code, tf->rip, cr2);
	console_enter_panic();
	kprintf("\n*** kprof: CPU %u: exception %u (%s), error code 0x%llx\n", ke_get_current_processor_number(), v,
		name, (unsigned long long)tf->error_code);
	if (v == 14) {
		kprintf("    faulting address (CR2) 0x%016llx\n", (unsigned long long)cr2);
		describe_page_fault(tf->error_code);
	}
	dump_registers(tf);
	ke_bug_check_trap(code, tf, v, tf->error_code, tf->rip, cr2);
}

void trap_dispatch(KTRAP_FRAME *tf)
{
	unsigned v = (unsigned)tf->vector;

	if (trap_handlers[v]) {
		trap_handlers[v](tf);
		return;
	}
	if (v < 32)
		trap_fatal(tf);
	kprintf("trap: unexpected interrupt vector %u on CPU %u, ignored\n", v, ke_get_current_processor_number());
}
