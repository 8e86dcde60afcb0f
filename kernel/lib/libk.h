/*
 * libk.h - the few C library functions the kernel has (kernel/lib/).
 *
 * Same names and semantics as ISO C, so the compiler's own calls to memcpy
 * and memset land here, and host unit tests link the C library instead.
 */
#ifndef KPROF_KERNEL_LIBK_H
#define KPROF_KERNEL_LIBK_H

#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* A compiler barrier: memory accesses are not moved across it and the
 * call before it is not turned into a tail call (GCC's, not a CPU fence;
 * <arch/barrier.h> has those). */
#define compiler_barrier() __asm__ volatile("" ::: "memory")

#endif /* KPROF_KERNEL_LIBK_H */
