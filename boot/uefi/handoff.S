/*
 * handoff.S - the jump from the loader into the kernel.
 *
 * void ldr_handoff(uint64_t pml4, uint64_t stack_top, uint64_t bootinfo,
 *                  uint64_t entry);   (SysV: rdi, rsi, rdx, rcx)
 *
 * Called after ExitBootServices() with boot services gone.  Disables
 * interrupts, clears the direction flag, loads CR3 with the loader's page
 * tables (which identity-map this code and the stack), switches to the
 * 16-byte aligned loader stack, clears RBP and enters the kernel with the
 * bootinfo physical address in RDI.  Never returns.
 */
	.text
	.globl	ldr_handoff
	.type	ldr_handoff, @function
ldr_handoff:
	cli
	cld
	movq	%rdi, %cr3
	movq	%rsi, %rsp
	xorl	%ebp, %ebp
	movq	%rdx, %rdi
	jmpq	*%rcx
	.size	ldr_handoff, . - ldr_handoff

	.section .note.GNU-stack, "", @progbits
