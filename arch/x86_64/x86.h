/*
 * x86.h - instruction wrappers used only inside arch/x86_64.
 *
 * Port and MSR access, control registers, CPUID and descriptor-table loads.
 * Generic code never includes this file; it uses <arch/...> headers.
 */
#ifndef KPROF_ARCH_X86_H
#define KPROF_ARCH_X86_H

#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" ::"a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port)); }

/* n bytes from p to one port, back to back ("rep outsb"). */
static inline void outsb(uint16_t port, const void *p, unsigned long n)
{
	__asm__ volatile("rep outsb" : "+S"(p), "+c"(n) : "d"(port) : "memory");
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" ::"c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

static inline void cpuid_count(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

#define DEFINE_CR(n)                                                              \
	static inline uint64_t read_cr##n(void)                                   \
	{                                                                         \
		uint64_t v;                                                       \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));                 \
		return v;                                                         \
	}                                                                         \
	static inline void write_cr##n(uint64_t v)                                \
	{                                                                         \
		__asm__ volatile("mov %0, %%cr" #n ::"r"(v) : "memory");          \
	}
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
DEFINE_CR(8)
#undef DEFINE_CR

static inline void invlpg(uintptr_t va)
{
	__asm__ volatile("invlpg (%0)" ::"r"(va) : "memory");
}

struct __attribute__((packed)) desc_ptr {
	uint16_t limit;
	uint64_t base;
};

static inline void lgdt(const struct desc_ptr *p) { __asm__ volatile("lgdt %0" ::"m"(*p)); }
static inline void lidt(const struct desc_ptr *p) { __asm__ volatile("lidt %0" ::"m"(*p)); }
static inline void ltr(uint16_t sel) { __asm__ volatile("ltr %0" ::"r"(sel)); }

#define MSR_EFER         0xC0000080u
#define MSR_FS_BASE      0xC0000100u
#define MSR_GS_BASE      0xC0000101u
#define MSR_KERNEL_GS    0xC0000102u
#define EFER_NXE         (1ULL << 11)

#define CR0_WP           (1ULL << 16)
#define CR4_PGE          (1ULL << 7)
#define CR4_LA57         (1ULL << 12)

#define RFLAGS_IF        (1ULL << 9)

#endif /* KPROF_ARCH_X86_H */
