/*
 * bootmap.h - building the memory map of a struct bootinfo.
 *
 * Pure functions (no firmware, no hardware) shared by both loaders and
 * compiled into the host unit tests: add ranges as a loader learns them,
 * overlay the ranges the loader itself owns (kernel image, loader data),
 * then normalise to a sorted, disjoint, merged list.
 */
#ifndef KPROF_BOOT_BOOTMAP_H
#define KPROF_BOOT_BOOTMAP_H

#include "boot/bootinfo.h"

/* Append one range; zero-length ranges are ignored.  When the table is
 * full the range is counted in bi->mmap_dropped instead. */
void bootmap_add(struct bootinfo *bi, uint64_t base, uint64_t length, uint32_t type, uint32_t attr);

/* Sort by base, resolve overlaps (the higher enum value wins, so KERNEL and
 * LOADER overlays beat USABLE), and merge neighbours of equal type/attr. */
void bootmap_normalize(struct bootinfo *bi);

/* Force [base, base+length) to `type`, splitting entries as needed.
 * Leaves the map normalised. */
void bootmap_overlay(struct bootinfo *bi, uint64_t base, uint64_t length, uint32_t type);

#endif /* KPROF_BOOT_BOOTMAP_H */
