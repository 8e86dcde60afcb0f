/*
 * gdt.h - per-CPU descriptor tables: GDT and TSS with IST stacks.
 */
#ifndef KPROF_ARCH_GDT_H
#define KPROF_ARCH_GDT_H

#include <stdint.h>

#define GDT_KERNEL_CODE 0x08
#define GDT_KERNEL_DATA 0x10
#define GDT_TSS         0x18
#define GDT_ENTRIES     5 /* null, code, data, TSS (two slots) */

/* Interrupt stack table slots (1-based, as the IDT gate's IST field). */
#define IST_NMI          1
#define IST_DOUBLE_FAULT 2
#define IST_MACHINE_CHECK 3
#define IST_STACK_SIZE   8192

struct __attribute__((packed)) tss64 {
	uint32_t reserved0;
	uint64_t rsp[3];       /* stacks for CPL 0..2 (unused: kernel only) */
	uint64_t reserved1;
	uint64_t ist[7];       /* IST1..IST7 stack tops                     */
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;   /* beyond the limit: no I/O bitmap           */
};
_Static_assert(sizeof(struct tss64) == 104, "TSS size");

struct cpu_descriptors {
	uint64_t gdt[GDT_ENTRIES] __attribute__((aligned(16))); /* this CPU's GDT */
	struct tss64 tss;                                        /* this CPU's TSS */
};

/* Fill and load the GDT and TSS; ist_tops[i] is the top of IST slot i+1. */
void gdt_load(struct cpu_descriptors *d, const uint64_t ist_tops[3]);

#endif /* KPROF_ARCH_GDT_H */
