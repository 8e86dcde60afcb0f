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
 * cannot be read, or when it is not the build that recorded the log (its
 * build id against the log's, build_id.h) and --force-kernel was not
 * given. */
bool kp_symbols_for(const char *kernel, struct kp_symbols **syms);

/* With --force-kernel and the ELF of another build: the warning every
 * output carries ("--kernel ... is not the kernel that recorded ..."),
 * else NULL. */
const char *kp_symbols_warning(const struct kp_symbols *s);

/* "file:line" of the call that made a site, from the ELF's DWARF (libdw):
 * for a return address, the line of the call before it (addr - 1); for
 * an address inside an inlined function (a lock's release marks its own
 * place, KI_HERE), the line that called that function.  False without
 * DWARF or when it does not cover addr. */
bool kp_symbols_site_line(const struct kp_symbols *s, uint64_t addr, bool return_address, char *buf, size_t size);

/* The function containing addr: its name, start and size (size 0 when the
 * symbol has none: it then extends to the next symbol).  False if addr is
 * in no known function. */
bool kp_symbols_lookup(const struct kp_symbols *s, uint64_t addr, const char **name, uint64_t *start,
		       uint64_t *size);

/* The functions, in address order: how many, and the i-th one's name
 * and start (for looking a function up by its name). */
size_t kp_symbols_count(const struct kp_symbols *s);
const char *kp_symbols_at(const struct kp_symbols *s, size_t i, uint64_t *start);

/* "name+0xoff" (or "name" at offset 0), else "0x<addr>"; returns buf. */
const char *kp_symbols_format(const struct kp_symbols *s, uint64_t addr, char *buf, size_t size);

#endif
