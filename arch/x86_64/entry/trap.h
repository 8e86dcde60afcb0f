/*
 * trap.h - arch-internal: interrupt vector dispatch.
 */
#ifndef KPROF_ARCH_TRAP_H
#define KPROF_ARCH_TRAP_H

#include <arch/trapframe.h>

typedef void (*trap_handler_t)(KTRAP_FRAME *tf);

/* Route a vector (an exception too, e.g. NMI) to h instead of the default. */
void trap_set_handler(unsigned vector, trap_handler_t h);

/* Report an exception (registers, backtrace) and bug-check. */
__attribute__((noreturn)) void trap_fatal(KTRAP_FRAME *tf);

/* Vectors 32-255 through interrupt.c; call once at boot. */
void interrupt_init(void);

/* Called by isr.asm for every vector. */
void trap_dispatch(KTRAP_FRAME *tf);

#endif
