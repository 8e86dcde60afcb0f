; trampoline.asm - where an application processor starts (flat binary).
;
; The boot CPU copies this blob to a page below 1 MiB, fills the parameter
; block at TRAMP_PARAMS (arch/x86_64/smp/trampoline.h has the same layout),
; identity-maps the page, and sends INIT-SIPI-SIPI with the page number as
; the start-up vector.  The AP starts here in real mode at CS:IP = page:0,
; goes to 32-bit protected mode, enables PAE, long mode and paging with the
; kernel's own page tables, and jumps to 64-bit code that loads the stack
; and argument from the parameter block and enters the kernel at `entry`.
;
; Assembled with nasm -f bin at origin 0: offsets are relative to the page,
; and the two far pointers and the GDT base are completed by the boot CPU
; (page base added).

bits 16
org 0

%define TRAMP_PARAMS 0x800
%define P_MAGIC   0x00    ; u32 'KPTR'
%define P_CR3     0x08    ; u64 kernel PML4 (below 4 GiB)
%define P_CR4     0x10    ; u64
%define P_EFER    0x18    ; u64 bits to set in EFER (LME, NXE)
%define P_STACK   0x20    ; u64 stack top for the AP
%define P_ENTRY   0x28    ; u64 kernel entry (higher half)
%define P_ARG     0x30    ; u64 first argument (the KPRCB)
%define P_GDTR    0x38    ; u16 limit, u32 base (patched: + page base)
%define P_FAR32   0x40    ; u32 offset (patched), u16 selector
%define P_FAR64   0x48    ; u32 offset (patched), u16 selector
%define P_GDT     0x50    ; 4 descriptors

start:
	cli
	cld
	mov ax, cs
	mov ds, ax
	xor ebx, ebx
	mov bx, ax
	shl ebx, 4                          ; ebx = physical base of this page
	lgdt [TRAMP_PARAMS + P_GDTR]
	mov eax, cr0
	or eax, 1                           ; PE
	mov cr0, eax
	o32 jmp far [TRAMP_PARAMS + P_FAR32]

bits 32
pm_entry:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, [ebx + TRAMP_PARAMS + P_CR4]
	mov cr4, eax
	mov eax, [ebx + TRAMP_PARAMS + P_CR3]
	mov cr3, eax
	mov ecx, 0xC0000080                 ; EFER
	rdmsr
	or eax, [ebx + TRAMP_PARAMS + P_EFER]
	wrmsr
	mov eax, cr0
	or eax, 0x80010000                  ; PG, WP
	mov cr0, eax
	jmp far [ebx + TRAMP_PARAMS + P_FAR64]

bits 64
long_entry:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax
	lea rbx, [rel start]
	mov rsp, [rbx + TRAMP_PARAMS + P_STACK]
	mov rdi, [rbx + TRAMP_PARAMS + P_ARG]
	mov rax, [rbx + TRAMP_PARAMS + P_ENTRY]
	xor ebp, ebp
	jmp rax

	times TRAMP_PARAMS - ($ - $$) db 0
params:
	dd 'KPTR'
	dd 0
	dq 0                                ; P_CR3
	dq 0                                ; P_CR4
	dq 0                                ; P_EFER
	dq 0                                ; P_STACK
	dq 0                                ; P_ENTRY
	dq 0                                ; P_ARG
	dw 4 * 8 - 1                        ; P_GDTR limit
	dd gdt                              ; base: offset, page base added
	dw 0
	dd pm_entry                         ; P_FAR32: offset, page base added
	dw 0x18
	dw 0
	dd long_entry                       ; P_FAR64
	dw 0x08
	dw 0
gdt:
	dq 0                                ; null
	dq 0x00AF9A000000FFFF               ; 0x08 64-bit code
	dq 0x00CF92000000FFFF               ; 0x10 data
	dq 0x00CF9A000000FFFF               ; 0x18 32-bit code
