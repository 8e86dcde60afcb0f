; profile_edge.asm - code whose hot instruction sits at a known address,
; for the profile scenario's test of execution exactly at a profile
; object's RangeLimit (docs/profile.md: Windows 8 to 1803 treated it as
; inclusive and counted one bucket past the buffer).
;
; void arch_profile_edge_spin(uint64_t until_tsc): spin until the TSC
; reaches until_tsc.  The loop starts at arch_profile_edge_loop; under
; emulation interrupts are taken between translated blocks, so most
; samples of this function have exactly that address as their
; instruction pointer.  A normal frame (push rbp) keeps stack walks whole.

bits 64
section .text

global arch_profile_edge_spin
global arch_profile_edge_loop
arch_profile_edge_spin:
	push rbp
	mov rbp, rsp
	mov r8, rdi
arch_profile_edge_loop:
	pause
	rdtsc
	shl rdx, 32
	or rax, rdx
	cmp rax, r8
	jb arch_profile_edge_loop
	pop rbp
	ret
