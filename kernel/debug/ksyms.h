/*
 * ksyms.h - the kernel's own symbol table, for symbolized backtraces.
 *
 * tools/gen-ksyms.sh generates it from `nm` after a first link; the final
 * link places it in .ksyms after .text, so no function moves (the Makefile
 * checks that text symbols are identical in both links).
 */
#ifndef KPROF_KERNEL_KSYMS_H
#define KPROF_KERNEL_KSYMS_H

#include <stddef.h>
#include <stdint.h>

/* Name of the function containing addr and the offset into it, or NULL. */
const char *ksym_lookup(uintptr_t addr, uintptr_t *offset);

/* Address of a function by name, 0 if unknown (for tests and scenarios). */
uintptr_t ksym_address(const char *name);

/* Number of symbols in the table. */
size_t ksym_count(void);

#endif /* KPROF_KERNEL_KSYMS_H */
