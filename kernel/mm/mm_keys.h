/*
 * mm_keys.h - the memory manager's key (mm.high_first=) and the struct it
 * fills (mm_keys.c); read-only after config_parse() through the const
 * view mm_config.  main.c hands it to the page allocator.
 */
#ifndef KPROF_KERNEL_MM_KEYS_H
#define KPROF_KERNEL_MM_KEYS_H

#include <stdint.h>

struct mm_config {
	uint32_t high_first; /* mm.high_first=on: pmm_alloc_pages() above 4 GiB first */
};

extern const struct mm_config *const mm_config;

#endif /* KPROF_KERNEL_MM_KEYS_H */
