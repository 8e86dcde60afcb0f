/*
 * ldr.h - shared state and entry points of the kprof UEFI loader (a
 * header with no .c of its own: the steps depend on it, not on loader.c).
 *
 * efi_main() (loader.c) runs the steps in order; each step lives in its own
 * file, returns an EFI_STATUS and prints its own "error:" line on failure.
 * Nothing may print once ldr_exit_boot_services() has succeeded.
 */
#ifndef KPROF_BOOT_UEFI_LDR_H
#define KPROF_BOOT_UEFI_LDR_H

#include <efi.h>
#include <efilib.h>

#include "boot/bootinfo.h"
#include "boot/uefi/mmap_convert.h"

#define LDR_NAME         "kprof-uefi 0.1"
#define LDR_KERNEL_PATH  L"\\kprof\\kernel.elf"
#define LDR_CMDLINE_PATH L"\\kprof\\cmdline.txt"

#define LDR_PAGE_SIZE  4096ULL
#define LDR_2M         (2ULL << 20)
#define LDR_1G         (1ULL << 30)
#define LDR_4G         (4ULL << 30)
#define LDR_STACK_SIZE (64 * 1024ULL)
#define LDR_MAX_ALLOCS 8

#define LDR_PAGES(bytes)     (((bytes) + LDR_PAGE_SIZE - 1) / LDR_PAGE_SIZE)
#define LDR_ALIGN_UP(x, a)   (((x) + (a) - 1) & ~((uint64_t)(a) - 1))

/* A page allocation the loader made and must report (or free on error). */
struct ldr_alloc {
	uint64_t base;  /* physical start, page aligned                  */
	uint64_t pages; /* 4 KiB pages                                   */
	uint32_t type;  /* BOOTINFO_MEM_KERNEL or BOOTINFO_MEM_LOADER    */
};

/* Everything the steps hand to each other. */
struct ldr_ctx {
	EFI_HANDLE image;               /* the loader's image handle          */
	EFI_LOADED_IMAGE *loaded_image; /* its LoadedImage protocol           */
	EFI_FILE_HANDLE root;           /* root directory of its volume       */
	struct bootinfo *bi;            /* hand-off structure (LOADER pages)  */
	uint64_t stack_top;             /* loader stack top, 16-byte aligned  */
	uint64_t pml4;                  /* physical address of the new PML4   */
	uint64_t kernel_entry;          /* ELF e_entry, higher-half virtual   */
	struct ldr_alloc allocs[LDR_MAX_ALLOCS]; /* pages to report as ranges */
	unsigned int nallocs;           /* valid entries in allocs[]          */
};

/* console.c */
void ldr_info(const CHAR16 *fmt, ...);
void ldr_err(EFI_STATUS st, const CHAR16 *fmt, ...);

/* fatal.c */
EFI_STATUS ldr_abort(struct ldr_ctx *ctx, EFI_STATUS st);
void ldr_abort_no_boot_services(void) __attribute__((noreturn));

/* memory.c */
EFI_STATUS ldr_alloc_pages(struct ldr_ctx *ctx, uint64_t pages, uint32_t type,
			   uint64_t *base);
EFI_STATUS ldr_record_alloc(struct ldr_ctx *ctx, uint64_t base, uint64_t pages,
			    uint32_t type);
void ldr_free_allocs(struct ldr_ctx *ctx);
size_t ldr_loader_ranges(const struct ldr_ctx *ctx,
			 struct ldr_mem_range *out, size_t max);

/* fileio.c */
EFI_STATUS ldr_open_volume(struct ldr_ctx *ctx);
EFI_STATUS ldr_read_file(struct ldr_ctx *ctx, const CHAR16 *path,
			 UINTN max_size, void **buf, UINTN *size);
EFI_STATUS ldr_file_stat(struct ldr_ctx *ctx, const CHAR16 *path, UINT64 *size);

/* stick.c: bootinfo->stick; prints what it found, never fails the run. */
void ldr_stick_find(struct ldr_ctx *ctx);

/* cmdline.c */
EFI_STATUS ldr_cmdline_load(struct ldr_ctx *ctx);

/* elfload.c */
EFI_STATUS ldr_kernel_load(struct ldr_ctx *ctx);

/* acpi.c */
void ldr_find_rsdp(struct ldr_ctx *ctx);

/* gop.c */
void ldr_find_framebuffer(struct ldr_ctx *ctx);

/* pagetables.c */
EFI_STATUS ldr_pagetables_build(struct ldr_ctx *ctx, uint64_t identity_top);

/* exitbs.c */
EFI_STATUS ldr_memmap_highest(uint64_t *top);
EFI_STATUS ldr_exit_boot_services(struct ldr_ctx *ctx);

/* handoff.S: never returns. */
void ldr_handoff(uint64_t pml4, uint64_t stack_top, uint64_t bootinfo,
		 uint64_t entry) __attribute__((noreturn));

#endif /* KPROF_BOOT_UEFI_LDR_H */
