; switch.asm - switching kernel threads.
;
; arch_context_switch(uintptr_t *save_sp, uintptr_t new_sp): push the
; callee-saved registers (the SysV ABI's: rbx, rbp, r12-r15) on the old
; thread's stack, store its stack pointer in *save_sp, load new_sp and pop
; the new thread's registers; `ret` continues the new thread where it
; switched out, or, for a thread that never ran, in arch_thread_entry.
;
; FPU/SSE policy: the kernel is built with -mgeneral-regs-only and never
; touches x87, MMX, SSE or AVX state, so none is saved or restored; only the
; general registers above carry a thread's state across a switch.
; RFLAGS.IF and CR8 (IRQL) are per CPU and are left alone: the dispatcher
; switches with interrupts off at DISPATCH_LEVEL, and every thread resumes
; inside the dispatcher at that state.

bits 64
section .text

global arch_context_switch
arch_context_switch:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp
	mov rsp, rsi
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	ret

; First code of a new thread: arch_context_init() left the entry function
; in r12 and its argument in r13, and rsp 16-byte aligned.
global arch_thread_entry
arch_thread_entry:
	mov rdi, r13
	call r12
	ud2                             ; the entry function never returns
