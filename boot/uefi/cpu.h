/*
 * cpu.h - the few x86-64 instructions the UEFI loader needs: the time stamp
 * counter, control registers and port I/O.  Header only, no EFI types.
 */
#ifndef KPROF_BOOT_UEFI_CPU_H
#define KPROF_BOOT_UEFI_CPU_H

#include <stdint.h>

#define LDR_CR4_LA57 (1ULL << 12) /* 5-level paging enabled */

static inline uint64_t ldr_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t ldr_read_cr4(void)
{
	uint64_t v;

	__asm__ __volatile__("mov %%cr4, %0" : "=r"(v));
	return v;
}

static inline void ldr_cli(void)
{
	__asm__ __volatile__("cli" ::: "memory");
}

static inline void ldr_outb(uint16_t port, uint8_t v)
{
	__asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline void ldr_outw(uint16_t port, uint16_t v)
{
	__asm__ __volatile__("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void ldr_outl(uint16_t port, uint32_t v)
{
	__asm__ __volatile__("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t ldr_inb(uint16_t port)
{
	uint8_t v;

	__asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

#endif /* KPROF_BOOT_UEFI_CPU_H */
