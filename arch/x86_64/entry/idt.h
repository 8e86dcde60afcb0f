/*
 * idt.h - the interrupt descriptor table (one, shared by all CPUs).
 */
#ifndef KPROF_ARCH_IDT_H
#define KPROF_ARCH_IDT_H

/* Fill the IDT once (BSP). */
void idt_init(void);
/* Load it on the calling CPU. */
void idt_load(void);

#endif
