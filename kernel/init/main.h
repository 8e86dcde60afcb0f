/*
 * main.h - the generic kernel's entry from arch boot code.
 */
#ifndef KPROF_KERNEL_MAIN_H
#define KPROF_KERNEL_MAIN_H

#include "boot/bootinfo.h"
#include "kernel/mm/kva.h"

/* The stack kernel_main runs on (set by arch code before calling it); it
 * becomes the stack of the first thread. */
extern struct kstack kernel_main_stack;

/* Runs on the boot CPU's guarded kernel stack, with the kernel's page
 * tables, page allocator, heap and serial console ready. */
__attribute__((noreturn)) void kernel_main(const struct bootinfo *bi);

#endif
