/*
 * symbols.h - the kernel ELF's function symbols, for turning sampled
 * addresses and call sites into function+offset (read with elfutils'
 * libelf).
 */
#ifndef KPROF_TOOL_SYMBOLS_H
#define KPROF_TOOL_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kp_symbols; /* opaque */

/* Read the function symbols (STT_FUNC, and the kernel's assembly labels
 * in executable sections) of the ELF at path.  NULL on failure, with a
 * message naming the file and what was wrong in err. */
struct kp_symbols *kp_symbols_open(const char *path, char *err, size_t errlen);
void kp_symbols_close(struct kp_symbols *s);

/* The one place a command opens its --kernel ELF: *syms gets its symbols,
 * or NULL when kernel is NULL (the option is optional for the command).
 * False, with "kprof: --kernel <what is wrong>" on stderr, when the file
 * cannot be read. */
bool kp_symbols_for(const char *kernel, struct kp_symbols **syms);

/* The function containing addr: its name, start and size (size 0 when the
 * symbol has none: it then extends to the next symbol).  False if addr is
 * in no known function. */
bool kp_symbols_lookup(const struct kp_symbols *s, uint64_t addr, const char **name, uint64_t *start,
		       uint64_t *size);

/* "name+0xoff" (or "name" at offset 0), else "0x<addr>"; returns buf. */
const char *kp_symbols_format(const struct kp_symbols *s, uint64_t addr, char *buf, size_t size);

#endif
