/*
 * alloc.h - allocation for the host tool: out of memory ends the tool
 * with a message and exit status 3, so callers never see NULL.
 */
#ifndef KPROF_TOOL_ALLOC_H
#define KPROF_TOOL_ALLOC_H

#include <stddef.h>

/* p resized to n elements of size bytes (at least one element). */
void *kp_xrealloc(void *p, size_t n, size_t size);
/* n zeroed elements (at least one). */
void *kp_xcalloc(size_t n, size_t size);
/* Room for need elements of elem bytes in p, whose capacity *cap doubles
 * as needed (and is updated). */
void *kp_grow(void *p, size_t *cap, size_t need, size_t elem);
char *kp_xstrdup(const char *s);

#endif
