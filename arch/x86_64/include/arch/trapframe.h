/*
 * arch/trapframe.h - the register state saved on every interrupt and
 * exception (built by arch/x86_64/entry/isr.asm), known to Windows readers as the
 * KTRAP_FRAME that profile callbacks receive.
 *
 * Layout is fixed by isr.asm: general registers pushed by the common stub,
 * then the vector and error code, then what the CPU pushed.
 */
#ifndef KPROF_ARCH_TRAPFRAME_H
#define KPROF_ARCH_TRAPFRAME_H

#include <stdint.h>

typedef struct ktrap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8; /* pushed by isr_common */
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;   /* pushed by isr_common */
	uint64_t vector;                              /* pushed by the stub   */
	uint64_t error_code;                          /* CPU or stub (0)      */
	uint64_t rip, cs, rflags, rsp, ss;            /* pushed by the CPU    */
} KTRAP_FRAME;

_Static_assert(sizeof(KTRAP_FRAME) == 22 * 8, "trap frame layout is fixed by isr.asm");

static inline uintptr_t trap_frame_ip(const KTRAP_FRAME *tf)
{
	return tf->rip;
}

static inline uintptr_t trap_frame_fp(const KTRAP_FRAME *tf)
{
	return tf->rbp;
}

#endif /* KPROF_ARCH_TRAPFRAME_H */
