/*
 * compiler.h - what the kernel asks of the compiler, arch-neutral.
 *
 * READ_ONCE(x): one load of x, neither torn nor merged with another, nor
 * moved across another volatile access; for a value another CPU writes
 * with its own atomics, read where the code around it gives the order
 * (barriers of <arch/barrier.h>, or none needed).  Not an atomic and not
 * a fence: use __atomic builtins where the load itself must order.
 * WRITE_ONCE(x, v) is the store's counterpart.
 */
#ifndef KPROF_KERNEL_LIB_COMPILER_H
#define KPROF_KERNEL_LIB_COMPILER_H

#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
/* WRITE_ONCE(x, v): one store of v to x, likewise neither torn nor merged. */
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#endif /* KPROF_KERNEL_LIB_COMPILER_H */
