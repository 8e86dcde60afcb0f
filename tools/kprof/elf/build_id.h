/*
 * build_id.h - is --kernel the kernel that recorded the log?
 *
 * The kernel names its build twice: in the run header (the build id
 * string, log.h) and in its ELF's .kprof_build_id section (the same bytes,
 * the array the run header is copied from; see linker.ld).  A command that
 * reads --kernel compares the two: an ELF of another build, or without the
 * section (not a kprof kernel, or one older than the section), would name
 * the wrong functions, so it is refused with both ids, unless
 * --force-kernel is given: then every output carries a warning.
 */
#ifndef KPROF_TOOL_BUILD_ID_H
#define KPROF_TOOL_BUILD_ID_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>

#define KP_BUILD_ID_MAX 64 /* the run header's build id field, without its NUL */
#define KP_BUILD_ID_SECTION ".kprof_build_id"

/* The build id in the ELF's .kprof_build_id section into buf ("" when it
 * has none). */
void kp_elf_build_id(Elf *elf, char *buf, size_t size);

/* What the log says (NULL or "": it has no run header or no id in it, so
 * nothing to check against), and whether --force-kernel was given; main.c sets it once
 * before the command runs. */
void kp_build_id_expect(const char *log_build_id, bool force);

/* Compare the ELF's id with the log's.  True when they match (or the log
 * has none: a warning on stderr), or when they do not and --force-kernel
 * was given: a warning on stderr, and *warning gets its text for the
 * outputs (malloc'd).  False, with an error on stderr naming both ids,
 * otherwise. */
bool kp_build_id_check(const char *kernel, const char *elf_id, char **warning);

#endif
