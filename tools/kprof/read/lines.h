/*
 * lines.h - source lines of the kernel's code addresses, from the kernel
 * ELF's DWARF line tables (read with elfutils' libdw).
 */
#ifndef KPROF_TOOL_LINES_H
#define KPROF_TOOL_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kp_lines; /* opaque */

/* The line tables of the ELF open on fd (which must stay open until
 * kp_lines_close); NULL when it has no DWARF (a stripped or symbols-only
 * ELF): then there are no lines, and that is not an error. */
struct kp_lines *kp_lines_open(int fd);
void kp_lines_close(struct kp_lines *l);

/* "file:line" of the instruction at addr (the file as the compiler named
 * it, relative to the repository root) into buf; with caller, when addr
 * is in an inlined function, the line that called it instead.  False when
 * the DWARF does not cover addr. */
bool kp_lines_lookup(const struct kp_lines *l, uint64_t addr, bool caller, char *buf, size_t size);

#endif
