/*
 * idt.c - the interrupt descriptor table.
 *
 * All 256 vectors point at the stubs in isr.asm.  Every gate is an
 * interrupt gate (IF cleared on entry); NMI, double fault and machine check
 * run on their own IST stacks (gdt.h).
 */
#include "arch/x86_64/entry/idt.h"

#include "arch/x86_64/gdt.h"
#include "arch/x86_64/x86.h"

#include <stdint.h>

struct __attribute__((packed)) idt_gate {
	uint16_t offset_lo;  /* handler bits 0..15               */
	uint16_t selector;   /* code segment                     */
	uint8_t ist;         /* IST slot 1..7, 0 = current stack */
	uint8_t type_attr;   /* 0x8E: present, DPL 0, interrupt gate */
	uint16_t offset_mid; /* handler bits 16..31              */
	uint32_t offset_hi;  /* handler bits 32..63              */
	uint32_t reserved;
};
_Static_assert(sizeof(struct idt_gate) == 16, "IDT gate size");

extern const uint64_t isr_stub_table[256];
static struct idt_gate idt[256] __attribute__((aligned(16)));

static unsigned idt_ist_for(unsigned vector)
{
	switch (vector) {
	case 2: return IST_NMI;
	case 8: return IST_DOUBLE_FAULT;
	case 18: return IST_MACHINE_CHECK;
	default: return 0;
	}
}

void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++) {
		uint64_t h = isr_stub_table[v];
		idt[v] = (struct idt_gate){
			.offset_lo = (uint16_t)h,
			.selector = GDT_KERNEL_CODE,
			.ist = (uint8_t)idt_ist_for(v),
			.type_attr = 0x8E,
			.offset_mid = (uint16_t)(h >> 16),
			.offset_hi = (uint32_t)(h >> 32),
		};
	}
}

void idt_load(void)
{
	struct desc_ptr p = { .limit = sizeof(idt) - 1, .base = (uint64_t)idt };
	lidt(&p);
}
