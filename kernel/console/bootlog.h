/*
 * bootlog.h - what the boot log says about the machine.
 */
#ifndef KPROF_KERNEL_BOOTLOG_H
#define KPROF_KERNEL_BOOTLOG_H

#include "boot/bootinfo.h"

/* Per-type totals of the memory map and the page allocator's state. */
void bootlog_memory(const struct bootinfo *bi);
/* Every map entry, one per line. */
void bootlog_memory_map(const struct bootinfo *bi);
/* CPU vendor, brand, family/model/stepping, hypervisor. */
void bootlog_cpu(void);
/* Which discipline the kernel's raw spin locks use, and why (rawlock= mode). */
void bootlog_locks(uint32_t mode);

#endif
