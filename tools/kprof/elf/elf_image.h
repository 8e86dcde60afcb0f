/*
 * elf_image.h - the kernel image an ETL's Image rundown event and the
 * kernel's PDB describe (elf_image.c): KPROF_KERNEL_LINK_VA up to the
 * page-rounded end of the last loaded segment.
 */
#ifndef KPROF_TOOL_ELF_IMAGE_H
#define KPROF_TOOL_ELF_IMAGE_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

/* The image's base (KPROF_KERNEL_LINK_VA) and size: from the base to the
 * end of the last PT_LOAD at or above it (bss included), rounded up to
 * 4 KiB.  False when the file cannot be read, is no ELF, has no such
 * segment or an image of 2 GiB or more. */
bool kp_elf_image(const char *path, uint64_t *base, uint64_t *size);
/* The same of an ELF already open. */
bool kp_elf_image_of(Elf *elf, uint64_t *base, uint64_t *size);

#endif
