/*
 * gdt.c - the global descriptor table and task state segment of a CPU.
 *
 * Long mode needs only a flat code and data segment; the TSS exists for its
 * interrupt stack table: NMI, double fault and machine check each switch to
 * their own stack, so they are handled even when the kernel stack is
 * exhausted or corrupt.  Each CPU has its own GDT and TSS (a busy TSS
 * cannot be shared).
 */
#include "arch/x86_64/gdt.h"

#include "arch/x86_64/x86.h"

static uint64_t gdt_segment(uint32_t access, uint32_t flags)
{
	/* base 0, limit 0xFFFFF (ignored in long mode) */
	return 0xFFFFULL | ((uint64_t)access << 40) | ((uint64_t)flags << 52) | (0xFULL << 48);
}

void gdt_load(struct cpu_descriptors *d, const uint64_t ist_tops[3])
{
	uint64_t tss = (uint64_t)&d->tss;
	uint64_t limit = sizeof(d->tss) - 1;

	d->gdt[0] = 0;
	d->gdt[1] = gdt_segment(0x9A, 0xA); /* present, code, readable; L=1 */
	d->gdt[2] = gdt_segment(0x92, 0xC); /* present, data, writable     */
	/* 16-byte available 64-bit TSS descriptor (type 9). */
	d->gdt[3] = (limit & 0xFFFF) | ((tss & 0xFFFFFF) << 16) | (0x89ULL << 40) |
		    (((limit >> 16) & 0xF) << 48) | (((tss >> 24) & 0xFF) << 56);
	d->gdt[4] = tss >> 32;

	for (unsigned i = 0; i < 3; i++)
		d->tss.ist[i] = ist_tops[i];
	d->tss.iomap_base = sizeof(d->tss);

	struct desc_ptr p = { .limit = sizeof(d->gdt) - 1, .base = (uint64_t)d->gdt };
	lgdt(&p);
	/* Reload CS with a far return, then the data segments. */
	__asm__ volatile("pushq %0\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw %w1, %%ds\n\t"
			 "movw %w1, %%es\n\t"
			 "movw %w1, %%ss\n\t"
			 :
			 : "i"((uint64_t)GDT_KERNEL_CODE), "r"((uint32_t)GDT_KERNEL_DATA)
			 : "rax", "memory");
	ltr(GDT_TSS);
}
