; isr.asm - entry stubs for all 256 interrupt and exception vectors.
;
; Each stub pushes an error code when the CPU did not (so every frame has
; one), pushes its vector number and jumps to isr_common, which saves the
; general registers to complete a KTRAP_FRAME (arch/trapframe.h) and calls
; trap_dispatch(frame).  The kernel never runs user mode, so there is no
; swapgs: GS always holds the per-CPU base.
;
; Stack alignment: the CPU aligns RSP to 16 and pushes 5 quadwords; the stub
; pushes 2 and isr_common 15, so RSP is 16-byte aligned at the call.

bits 64
section .text

extern trap_dispatch

%macro ISR_NOERR 1
isr_stub_%1:
	push qword 0
	push qword %1
	jmp isr_common
%endmacro

%macro ISR_ERR 1
isr_stub_%1:
	push qword %1
	jmp isr_common
%endmacro

; Vectors for which the CPU pushes an error code: #DF 8, #TS 10, #NP 11,
; #SS 12, #GP 13, #PF 14, #AC 17, #CP 21, #VC 29, #SX 30.
%assign v 0
%rep 256
%if v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30
	ISR_ERR v
%else
	ISR_NOERR v
%endif
%assign v v + 1
%endrep

global isr_common
isr_common:
	push rax
	push rbx
	push rcx
	push rdx
	push rsi
	push rdi
	push rbp
	push r8
	push r9
	push r10
	push r11
	push r12
	push r13
	push r14
	push r15
	cld
	mov rdi, rsp
	call trap_dispatch
global isr_return
isr_return:
	pop r15
	pop r14
	pop r13
	pop r12
	pop r11
	pop r10
	pop r9
	pop r8
	pop rbp
	pop rdi
	pop rsi
	pop rdx
	pop rcx
	pop rbx
	pop rax
	add rsp, 16                     ; vector and error code
	iretq

section .rodata
global isr_stub_table
align 8
isr_stub_table:
%assign v 0
%rep 256
	dq isr_stub_%+v
%assign v v + 1
%endrep
