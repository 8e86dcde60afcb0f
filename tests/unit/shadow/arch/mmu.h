/*
 * shadow arch/mmu.h - physical memory is a host buffer: phys_to_virt() adds
 * arch_hhdm_offset, which a test points at its fake RAM.
 */
#ifndef KPROF_SHADOW_ARCH_MMU_H
#define KPROF_SHADOW_ARCH_MMU_H

#include <stddef.h>
#include <stdint.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE 4096UL

enum { MAP_READ = 0, MAP_WRITE = 1, MAP_EXEC = 2, MAP_UNCACHED = 4, MAP_WC = 8 };

extern uint64_t arch_hhdm_offset;

static inline void *phys_to_virt(uint64_t pa) { return (void *)(uintptr_t)(pa + arch_hhdm_offset); }
static inline uint64_t virt_to_phys(const void *va) { return (uint64_t)(uintptr_t)va - arch_hhdm_offset; }

#endif
