/*
 * alloc.h - the one place the host tool allocates memory: out of memory
 * ends the tool with a message and exit status 3, so callers never see
 * NULL.  Nothing else in tools/kprof calls malloc, calloc, realloc or
 * strdup.
 */
#ifndef KPROF_TOOL_ALLOC_H
#define KPROF_TOOL_ALLOC_H

#include <stddef.h>

/* p resized to n elements of size bytes (at least one element). */
void *kp_xrealloc(void *p, size_t n, size_t size);
/* n zeroed elements (at least one). */
void *kp_xcalloc(size_t n, size_t size);
/* Room for need elements of elem bytes in p, whose capacity *cap doubles
 * as needed (and is updated); new elements are not cleared. */
void *kp_grow(void *p, size_t *cap, size_t need, size_t elem);
char *kp_xstrdup(const char *s);

/* Append v to the growable array (a, n, cap) of v's type. */
#define KP_PUSH(a, n, cap, v)                                                  \
	do {                                                                   \
		(a) = kp_grow((a), &(cap), (n) + 1, sizeof(*(a)));             \
		(a)[(n)++] = (v);                                              \
	} while (0)

#endif
