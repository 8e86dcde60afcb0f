; entry.asm - the kernel's 64-bit entry, common to both loaders.
;
; Entered per the hand-off contract in boot/bootinfo.h: long mode, paging
; with the loader's tables, interrupts off, %rdi = struct bootinfo *.
; Switches to the boot stack in .bss, ends the frame-pointer chain (rbp = 0)
; and calls arch_boot_main(), which never returns.

bits 64
section .text.entry
extern arch_boot_main
global kernel_entry64
kernel_entry64:
	cli
	cld
	lea rsp, [rel boot_stack_top]
	xor ebp, ebp                    ; saved rbp 0 ends backtraces
	call arch_boot_main
.halt:
	cli
	hlt
	jmp .halt

; arch_switch_stack(void *new_top, void (*fn)(void *), void *arg):
; continue on another stack, never to return to the old one.
global arch_switch_stack
arch_switch_stack:
	mov rsp, rdi                    ; 16-byte aligned top
	xor ebp, ebp
	mov rdi, rdx
	call rsi
	ud2

section .bss
align 16
global boot_stack_top
boot_stack:
	resb 16384
boot_stack_top:

; ap_entry64: where trampoline.asm lands in the higher half, with the AP's
; own stack (16-byte aligned) and %rdi = its KPRCB.
section .text
extern arch_ap_main
global ap_entry64
ap_entry64:
	xor ebp, ebp
	call arch_ap_main
.halt:
	cli
	hlt
	jmp .halt

; ap_park64: where a CPU that answered too late is sent: stop for good.
global ap_park64
ap_park64:
	cli
	hlt
	jmp ap_park64
