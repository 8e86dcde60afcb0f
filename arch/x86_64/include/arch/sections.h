/*
 * arch/sections.h - addresses the linker script (linker.ld) defines.
 */
#ifndef KPROF_ARCH_SECTIONS_H
#define KPROF_ARCH_SECTIONS_H

extern char __kernel_start[], __kernel_end[];
extern char __text_start[], __text_end[];
extern char __rodata_start[], __rodata_end[];
extern char __data_start[], __bss_start[], __bss_end[];
extern char __boot32_start[], __boot32_end[];

#endif /* KPROF_ARCH_SECTIONS_H */
