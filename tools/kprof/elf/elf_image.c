/*
 * elf_image.c - the kernel image as the ETL and its PDB name it: from the
 * link address KPROF_KERNEL_LINK_VA (boot/bootinfo.h), where the image
 * starts in the higher half, to the end of the last loaded segment
 * (PT_LOAD, bss included) above it, rounded up to a 4 KiB page.
 *
 * The kernel is loaded at KPROF_KERNEL_LINK_PA and mapped at
 * KPROF_KERNEL_LINK_VA onwards, so an address's offset from the link
 * address is its offset in the image (its RVA).  The first segment,
 * .boot32, is linked at its physical address (it runs before paging) but
 * occupies the image's first pages; .text follows it.  The Image rundown
 * event, KernelBase, ImageID and the PDB's stand-in PE (pdb_build.c) all
 * take this one range.
 */
#include "tools/kprof/elf/elf_image.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <unistd.h>

#include "boot/bootinfo.h"

#define IMAGE_PAGE 0x1000ull
#define IMAGE_SIZE_MAX 0x80000000ull /* a PE's SizeOfImage is 32 bits */

bool kp_elf_image_of(Elf *elf, uint64_t *base, uint64_t *size)
{
	uint64_t end = 0;
	size_t n = 0;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr >= KPROF_KERNEL_LINK_VA &&
		    ph.p_vaddr + ph.p_memsz > end)
			end = ph.p_vaddr + ph.p_memsz;
	}
	if (end <= KPROF_KERNEL_LINK_VA || end - KPROF_KERNEL_LINK_VA > IMAGE_SIZE_MAX)
		return false;
	*base = KPROF_KERNEL_LINK_VA;
	*size = (end - KPROF_KERNEL_LINK_VA + IMAGE_PAGE - 1) & ~(IMAGE_PAGE - 1);
	return true;
}

bool kp_elf_image(const char *path, uint64_t *base, uint64_t *size)
{
	bool ok = false;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE || (fd = open(path, O_RDONLY)) < 0)
		return false;
	if ((elf = elf_begin(fd, ELF_C_READ, NULL)) && elf_kind(elf) == ELF_K_ELF)
		ok = kp_elf_image_of(elf, base, size);
	if (elf)
		elf_end(elf);
	close(fd);
	return ok;
}
