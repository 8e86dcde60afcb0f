; pvh_entry.asm - direct-boot entry: QEMU -kernel (Xen PVH boot protocol).
;
; QEMU finds XEN_ELFNOTE_PHYS32_ENTRY in the kernel ELF, loads each PT_LOAD
; at its p_paddr and jumps to the 32-bit entry below with paging off,
; flat 32-bit segments, interrupts disabled and %ebx = physical address of
; the hvm_start_info structure.  This stub builds throw-away page tables
; (identity map of the first 4 GiB and the higher-half kernel window), enters
; long mode, and continues in the higher half at pvh_entry64, which turns
; start_info into a struct bootinfo (pvh.c) and joins the common entry.
;
; Everything here runs from the .boot32 segment, linked at its physical
; address; nothing after pvh_entry64 uses these tables once the kernel has
; built its own.

bits 32

%define XEN_ELFNOTE_PHYS32_ENTRY 18
%define PTE_P    0x001
%define PTE_W    0x002
%define PTE_PS   0x080
%define CR0_PE   0x00000001
%define CR0_WP   0x00010000
%define CR0_PG   0x80000000
%define CR4_PAE  0x00000020
%define MSR_EFER 0xC0000080
%define EFER_LME 0x00000100
%define EFER_NXE 0x00000800

section .note.Xen note alloc noexec nowrite align=4
	dd 4                            ; n_namesz: "Xen\0"
	dd 4                            ; n_descsz: 32-bit physical entry
	dd XEN_ELFNOTE_PHYS32_ENTRY     ; n_type
	db "Xen", 0
	dd pvh_start32

section .boot32.text progbits alloc exec nowrite align=16
global pvh_start32
pvh_start32:
	cli
	cld
	mov esp, pvh_stack_top
	mov esi, ebx                    ; keep start_info across cpuid

	; Zero the early page tables (.boot32.bss may not be cleared for us).
	mov edi, pvh_pml4
	mov ecx, (pvh_tables_end - pvh_pml4) / 4
	xor eax, eax
	rep stosd

	; PML4[0] -> identity PDPT, PML4[511] -> higher-half PDPT.
	mov dword [pvh_pml4], pvh_pdpt_low + PTE_P + PTE_W
	mov dword [pvh_pml4 + 511 * 8], pvh_pdpt_high + PTE_P + PTE_W

	; Identity PDPT: four page directories cover 0..4 GiB.
	mov dword [pvh_pdpt_low + 0 * 8], pvh_pd + 0 * 4096 + PTE_P + PTE_W
	mov dword [pvh_pdpt_low + 1 * 8], pvh_pd + 1 * 4096 + PTE_P + PTE_W
	mov dword [pvh_pdpt_low + 2 * 8], pvh_pd + 2 * 4096 + PTE_P + PTE_W
	mov dword [pvh_pdpt_low + 3 * 8], pvh_pd + 3 * 4096 + PTE_P + PTE_W

	; 0xFFFFFFFF80000000 -> physical 0 (first GiB): PDPT_high[510] = PD 0.
	mov dword [pvh_pdpt_high + 510 * 8], pvh_pd + PTE_P + PTE_W

	; 2048 2 MiB pages: entry i maps i * 2 MiB.  The high dword of the
	; physical address lives in the entry's upper half.
	mov edi, pvh_pd
	xor ecx, ecx
.fill:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P + PTE_W + PTE_PS
	mov [edi + ecx * 8], eax
	mov eax, ecx
	shr eax, 11
	mov [edi + ecx * 8 + 4], eax
	inc ecx
	cmp ecx, 2048
	jb .fill

	mov eax, pvh_pml4
	mov cr3, eax
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax

	; Long mode; no-execute if the CPU has it (the kernel's own tables
	; use NX, and arch code enables it again for other CPUs).
	mov edi, EFER_LME
	mov eax, 0x80000001
	cpuid
	test edx, 1 << 20
	jz .no_nx
	or edi, EFER_NXE
.no_nx:
	mov ecx, MSR_EFER
	rdmsr
	or eax, edi
	wrmsr

	mov eax, cr0
	or eax, CR0_PG | CR0_PE | CR0_WP
	mov cr0, eax

	lgdt [pvh_gdt_ptr]
	jmp 0x08:pvh_long_mode

bits 64
pvh_long_mode:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor eax, eax
	mov fs, ax
	mov gs, ax
	mov edi, esi                    ; start_info physical address
	mov rax, pvh_entry64
	jmp rax

section .boot32.data progbits alloc noexec write align=16
pvh_gdt:
	dq 0                            ; null
	dq 0x00AF9A000000FFFF           ; 0x08: 64-bit code, DPL 0
	dq 0x00CF92000000FFFF           ; 0x10: data, DPL 0
pvh_gdt_end:
pvh_gdt_ptr:
	dw pvh_gdt_end - pvh_gdt - 1
	dd pvh_gdt

section .boot32.bss nobits alloc noexec write align=4096
pvh_pml4:      resb 4096
pvh_pdpt_low:  resb 4096
pvh_pdpt_high: resb 4096
pvh_pd:        resb 4 * 4096
pvh_tables_end:
pvh_stack:     resb 1024
pvh_stack_top:

; Higher half from here on.
bits 64
section .text
extern pvh_build_bootinfo
extern kernel_entry64
extern boot_stack_top
global pvh_entry64
pvh_entry64:
	lea rsp, [rel boot_stack_top]
	xor ebp, ebp
	call pvh_build_bootinfo         ; rdi = start_info; returns bootinfo*
	mov rdi, rax
	jmp kernel_entry64
