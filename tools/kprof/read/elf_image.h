/*
 * elf_image.h - the kernel ELF's loaded range in the higher half (the
 * image an ETL Image rundown event names).
 */
#ifndef KPROF_TOOL_ELF_IMAGE_H
#define KPROF_TOOL_ELF_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

/* The lowest higher-half PT_LOAD address and the bytes up to the end of
 * the last one (bss included).  False when the file cannot be read or has
 * no such segment. */
bool kp_elf_image(const char *path, uint64_t *base, uint64_t *size);

#endif
