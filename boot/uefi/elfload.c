/*
 * elfload.c - load \kprof\kernel.elf.
 *
 * Only the physical view of the ELF is used: PT_LOAD p_paddr, p_offset,
 * p_filesz and p_memsz (p_vaddr of the first segment is the 32-bit PVH
 * entry's low address, so p_vaddr is ignored).  The image spans
 * [KPROF_KERNEL_LINK_PA, max p_paddr + p_memsz) and is copied to a 2 MiB
 * aligned physical base, 0x200000 when that is free; the page tables map
 * KPROF_KERNEL_LINK_VA to that base.  e_entry must lie in the higher-half
 * image.
 */
#include "boot/uefi/ldr.h"

#define LDR_KERNEL_FILE_MAX (256ULL << 20) /* sanity limit on kernel.elf */
/* The image must fit between KPROF_KERNEL_LINK_VA and the top of memory. */
#define LDR_KERNEL_SPAN_MAX (0ULL - KPROF_KERNEL_LINK_VA)

#define EI_NIDENT     16
#define ELFCLASS64    2
#define ELFDATA2LSB   1
#define EV_CURRENT    1
#define ET_EXEC       2
#define EM_X86_64     62
#define PT_LOAD       1
#define PN_XNUM       0xffff

struct elf64_ehdr {
	uint8_t e_ident[EI_NIDENT]; /* magic, class, data, version       */
	uint16_t e_type;            /* ET_EXEC                           */
	uint16_t e_machine;         /* EM_X86_64                         */
	uint32_t e_version;         /* EV_CURRENT                        */
	uint64_t e_entry;           /* entry point, virtual              */
	uint64_t e_phoff;           /* program header table file offset  */
	uint64_t e_shoff;           /* section header table (unused)     */
	uint32_t e_flags;           /* none defined for x86-64           */
	uint16_t e_ehsize;          /* ELF header size                   */
	uint16_t e_phentsize;       /* program header entry size         */
	uint16_t e_phnum;           /* program header entries            */
	uint16_t e_shentsize;       /* unused                            */
	uint16_t e_shnum;           /* unused                            */
	uint16_t e_shstrndx;        /* unused                            */
};

struct elf64_phdr {
	uint32_t p_type;   /* PT_LOAD is the only type used           */
	uint32_t p_flags;  /* unused: everything is mapped RWX        */
	uint64_t p_offset; /* file offset of the segment              */
	uint64_t p_vaddr;  /* ignored                                 */
	uint64_t p_paddr;  /* physical load address (link view)       */
	uint64_t p_filesz; /* bytes in the file                       */
	uint64_t p_memsz;  /* bytes in memory, >= p_filesz (bss)      */
	uint64_t p_align;  /* unused                                  */
};

/* The validated physical layout of the image. */
struct ldr_kimage {
	uint64_t min_pa;  /* lowest p_paddr = KPROF_KERNEL_LINK_PA      */
	uint64_t span;    /* bytes from min_pa to the end of the bss    */
	uint64_t entry;   /* e_entry                                    */
	unsigned int nload; /* PT_LOAD segments                         */
};

static EFI_STATUS ldr_bad_elf(const CHAR16 *why)
{
	ldr_err(EFI_LOAD_ERROR, L"%s: %s", LDR_KERNEL_PATH, why);
	return EFI_LOAD_ERROR;
}

static void ldr_get_phdr(const UINT8 *file, const struct elf64_ehdr *eh,
			 unsigned int i, struct elf64_phdr *ph)
{
	CopyMem(ph, (void *)(file + eh->e_phoff + (UINT64)i * eh->e_phentsize),
		sizeof(*ph));
}

static EFI_STATUS ldr_check_elf(const UINT8 *file, UINTN size,
				struct ldr_kimage *k)
{
	const struct elf64_ehdr *eh = (const void *)file;
	struct elf64_phdr ph;
	uint64_t max_end = 0;
	unsigned int i;

	if (size < sizeof(*eh) || file[0] != 0x7f || file[1] != 'E' ||
	    file[2] != 'L' || file[3] != 'F')
		return ldr_bad_elf(L"not an ELF file");
	if (file[4] != ELFCLASS64 || file[5] != ELFDATA2LSB ||
	    file[6] != EV_CURRENT)
		return ldr_bad_elf(L"not a little-endian ELF64 file");
	if (eh->e_machine != EM_X86_64)
		return ldr_bad_elf(L"not built for x86-64 (e_machine)");
	if (eh->e_type != ET_EXEC)
		return ldr_bad_elf(L"not an executable (e_type is not ET_EXEC)");
	if (eh->e_phnum == 0 || eh->e_phnum == PN_XNUM ||
	    eh->e_phentsize < sizeof(ph))
		return ldr_bad_elf(L"bad program header table");
	if (eh->e_phoff > size ||
	    (UINT64)eh->e_phnum * eh->e_phentsize > size - eh->e_phoff)
		return ldr_bad_elf(L"program header table beyond the end of file");

	k->min_pa = ~0ULL;
	k->nload = 0;
	for (i = 0; i < eh->e_phnum; i++) {
		ldr_get_phdr(file, eh, i, &ph);
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_filesz > ph.p_memsz)
			return ldr_bad_elf(L"PT_LOAD with p_filesz > p_memsz");
		if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
			return ldr_bad_elf(L"PT_LOAD beyond the end of file");
		if (ph.p_memsz > ~0ULL - ph.p_paddr)
			return ldr_bad_elf(L"PT_LOAD wraps the address space");
		if (ph.p_memsz == 0)
			continue;
		if (ph.p_paddr < k->min_pa)
			k->min_pa = ph.p_paddr;
		if (ph.p_paddr + ph.p_memsz > max_end)
			max_end = ph.p_paddr + ph.p_memsz;
		k->nload++;
	}
	if (k->nload == 0)
		return ldr_bad_elf(L"no PT_LOAD segment");
	if (k->min_pa != KPROF_KERNEL_LINK_PA) {
		ldr_err(EFI_LOAD_ERROR,
			L"%s: lowest PT_LOAD p_paddr is 0x%lx, expected 0x%lx (KPROF_KERNEL_LINK_PA)",
			LDR_KERNEL_PATH, k->min_pa, KPROF_KERNEL_LINK_PA);
		return EFI_LOAD_ERROR;
	}
	k->span = max_end - k->min_pa;
	if (k->span > LDR_KERNEL_SPAN_MAX)
		return ldr_bad_elf(L"image larger than the higher-half window");
	k->entry = eh->e_entry;
	if (k->entry < KPROF_KERNEL_LINK_VA ||
	    k->entry - KPROF_KERNEL_LINK_VA >= k->span) {
		ldr_err(EFI_LOAD_ERROR,
			L"%s: entry 0x%lx is not inside the image at 0x%lx..0x%lx",
			LDR_KERNEL_PATH, k->entry, KPROF_KERNEL_LINK_VA,
			KPROF_KERNEL_LINK_VA + k->span);
		return EFI_LOAD_ERROR;
	}
	return EFI_SUCCESS;
}

/*
 * Pages for the image at a 2 MiB aligned base: 0x200000 if free, else the
 * highest fit below 4 GiB (any address as a last resort) with 2 MiB of
 * slack to align, the slack given back.
 */
static EFI_STATUS ldr_alloc_image(struct ldr_ctx *ctx, uint64_t pages,
				  uint64_t *base)
{
	uint64_t slack = LDR_2M / LDR_PAGE_SIZE, head, tail;
	EFI_PHYSICAL_ADDRESS addr = KPROF_KERNEL_LINK_PA;
	EFI_STATUS st;

	st = BS->AllocatePages(AllocateAddress, EfiLoaderData, pages, &addr);
	if (!EFI_ERROR(st)) {
		*base = addr;
		return ldr_record_alloc(ctx, addr, pages, BOOTINFO_MEM_KERNEL);
	}
	ldr_info(L"0x%lx is not free (%r): relocating the kernel",
		 KPROF_KERNEL_LINK_PA, st);
	addr = LDR_4G - 1;
	st = BS->AllocatePages(AllocateMaxAddress, EfiLoaderData,
			       pages + slack, &addr);
	if (EFI_ERROR(st))
		st = BS->AllocatePages(AllocateAnyPages, EfiLoaderData,
				       pages + slack, &addr);
	if (EFI_ERROR(st)) {
		ldr_err(st, L"cannot allocate %ld pages for the kernel image",
			pages + slack);
		return st;
	}
	*base = LDR_ALIGN_UP(addr, LDR_2M);
	head = (*base - addr) / LDR_PAGE_SIZE;
	tail = slack - head;
	if (head)
		BS->FreePages(addr, head);
	if (tail)
		BS->FreePages(*base + pages * LDR_PAGE_SIZE, tail);
	st = ldr_record_alloc(ctx, *base, pages, BOOTINFO_MEM_KERNEL);
	if (EFI_ERROR(st))
		BS->FreePages(*base, pages);
	return st;
}

static void ldr_copy_segments(const UINT8 *file, const struct ldr_kimage *k,
			      uint64_t base)
{
	const struct elf64_ehdr *eh = (const void *)file;
	struct elf64_phdr ph;
	unsigned int i;

	/* Zero everything first: bss, gaps between segments, page tails. */
	SetMem((void *)(UINTN)base, LDR_PAGES(k->span) * LDR_PAGE_SIZE, 0);
	for (i = 0; i < eh->e_phnum; i++) {
		ldr_get_phdr(file, eh, i, &ph);
		if (ph.p_type != PT_LOAD || ph.p_filesz == 0)
			continue;
		CopyMem((void *)(UINTN)(base + (ph.p_paddr - k->min_pa)),
			(void *)(file + ph.p_offset), ph.p_filesz);
	}
}

EFI_STATUS ldr_kernel_load(struct ldr_ctx *ctx)
{
	struct bootinfo *bi = ctx->bi;
	struct ldr_kimage k;
	uint64_t base;
	void *file;
	UINTN size;
	EFI_STATUS st;

	st = ldr_read_file(ctx, LDR_KERNEL_PATH, LDR_KERNEL_FILE_MAX, &file,
			   &size);
	if (st == EFI_NOT_FOUND)
		ldr_err(st, L"kernel %s not found on the boot volume",
			LDR_KERNEL_PATH);
	if (EFI_ERROR(st))
		return st;
	st = ldr_check_elf(file, size, &k);
	if (!EFI_ERROR(st))
		st = ldr_alloc_image(ctx, LDR_PAGES(k.span), &base);
	if (!EFI_ERROR(st)) {
		ldr_copy_segments(file, &k, base);
		bi->kernel_phys_base = base;
		bi->kernel_phys_end = base + k.span;
		ctx->kernel_entry = k.entry;
		ldr_info(L"kernel: %d PT_LOAD, 0x%lx bytes at 0x%lx..0x%lx, entry 0x%lx",
			 k.nload, k.span, bi->kernel_phys_base,
			 bi->kernel_phys_end, k.entry);
	}
	BS->FreePool(file);
	return st;
}
