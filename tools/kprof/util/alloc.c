/*
 * alloc.c - allocation that cannot fail quietly (alloc.h).  Sizes are
 * checked for overflow before they reach realloc().
 */
#include "tools/kprof/util/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(void)
{
	fprintf(stderr, "kprof: out of memory\n");
	exit(3);
}

void *kp_xrealloc(void *p, size_t n, size_t size)
{
	if (!n)
		n = 1;
	if (!size || n > SIZE_MAX / size)
		out_of_memory();
	void *q = realloc(p, n * size);
	if (!q)
		out_of_memory();
	return q;
}

void *kp_xcalloc(size_t n, size_t size)
{
	void *p = kp_xrealloc(NULL, n, size);
	return memset(p, 0, (n ? n : 1) * size);
}

void *kp_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	p = kp_xrealloc(p, n, elem);
	*cap = n;
	return p;
}

char *kp_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(kp_xrealloc(NULL, n, 1), s, n);
}
