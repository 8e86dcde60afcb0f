/*
 * string.c - memory and string functions for the kernel (see libk.h).
 *
 * Built with -ffreestanding; GCC may still emit calls to memcpy, memmove,
 * memset and memcmp for structure copies, which these provide.  The copies
 * use "rep movsb"-friendly simple loops: the kernel copies little.
 */
#include "kernel/lib/libk.h"

#include <stdint.h>

#include <arch/string.h>

void *memcpy(void *dst, const void *src, size_t n)
{
#ifdef arch_memcpy
	arch_memcpy(dst, src, n);
#else
	unsigned char *d = dst;
	const unsigned char *s = src;
	while (n--)
		*d++ = *s++;
#endif
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d == s || n == 0)
		return dst;
	if (d < s || d >= s + n)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
#ifdef arch_memset
	arch_memset(dst, c, n);
#else
	unsigned char *d = dst;
	while (n--)
		*d++ = (unsigned char)c;
#endif
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	for (size_t i = 0; i < n; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;
	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (a[i] != b[i] || !a[i])
			return (unsigned char)a[i] - (unsigned char)b[i];
	}
	return 0;
}

char *strchr(const char *s, int c)
{
	for (;; s++) {
		if (*s == (char)c)
			return (char *)s;
		if (!*s)
			return 0;
	}
}
