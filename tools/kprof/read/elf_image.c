/*
 * elf_image.c - where the kernel ELF sits in memory: the lowest address
 * and the extent of its loaded segments (PT_LOAD, bss included) in the
 * higher half, where the kernel runs (linker.ld; the first segment,
 * .boot32, runs at its physical address before paging and is left out).
 * The ETL writer's Image rundown names this range as the kernel image.
 */
#include "tools/kprof/read/elf_image.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <unistd.h>

#define HIGHER_HALF 0xFFFF800000000000ull

bool kp_elf_image(const char *path, uint64_t *base, uint64_t *size)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t n = 0;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE || (fd = open(path, O_RDONLY)) < 0)
		return false;
	if ((elf = elf_begin(fd, ELF_C_READ, NULL)) && !elf_getphdrnum(elf, &n)) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_vaddr < HIGHER_HALF)
				continue;
			lo = ph.p_vaddr < lo ? ph.p_vaddr : lo;
			hi = ph.p_vaddr + ph.p_memsz > hi ? ph.p_vaddr + ph.p_memsz : hi;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	if (hi <= lo)
		return false;
	*base = lo;
	*size = hi - lo;
	return true;
}
