/*
 * heap.h - the kernel heap: kmalloc/kfree for objects of any size.
 */
#ifndef KPROF_KERNEL_HEAP_H
#define KPROF_KERNEL_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* Memory aligned to 16 bytes (use the page allocator for page alignment),
 * or NULL when out of memory. */
void *kmalloc(size_t size);
/* Same, zeroed. */
void *kzalloc(size_t size);
/* NULL is ignored; a pointer kmalloc did not return is a bug check. */
void kfree(void *p);

struct heap_stats {
	uint64_t allocs;      /* successful kmalloc calls           */
	uint64_t frees;       /* kfree calls                        */
	uint64_t bytes_live;  /* requested bytes not yet freed      */
	uint64_t pages;       /* pages taken from the page allocator */
};
void heap_get_stats(struct heap_stats *st);

#endif /* KPROF_KERNEL_HEAP_H */
