/*
 * arch/string.h - fast block copy and fill for kernel/lib/string.c.
 *
 * Generic code provides byte loops; an architecture that has something
 * better defines arch_memcpy / arch_memset here (as Linux's
 * __HAVE_ARCH_MEMCPY).  On x86-64 "rep movsb" / "rep stosb" are the
 * fastest way for every size the kernel copies (ERMSB, and fast short
 * REP MOV on newer cores).
 */
#ifndef KPROF_ARCH_STRING_H
#define KPROF_ARCH_STRING_H

#include <stddef.h>

#define arch_memcpy arch_memcpy
static inline void arch_memcpy(void *dst, const void *src, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n)::"memory");
}

#define arch_memset arch_memset
static inline void arch_memset(void *dst, int c, size_t n)
{
	__asm__ volatile("rep stosb" : "+D"(dst), "+c"(n) : "a"(c) : "memory");
}

#endif /* KPROF_ARCH_STRING_H */
