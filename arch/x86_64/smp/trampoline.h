/*
 * trampoline.h - the parameter block of trampoline.asm (same layout).
 */
#ifndef KPROF_ARCH_TRAMPOLINE_H
#define KPROF_ARCH_TRAMPOLINE_H

#include <stdint.h>

#define TRAMP_PARAMS 0x800
#define TRAMP_MAGIC  0x5254504Bu /* 'KPTR' */

struct __attribute__((packed)) tramp_params {
	uint32_t magic;      /* TRAMP_MAGIC: the blob matches this header */
	uint32_t pad0;
	uint64_t cr3;        /* kernel PML4, below 4 GiB                   */
	uint64_t cr4;        /* PAE, PGE                                   */
	uint64_t efer;       /* bits to set: LME, NXE                      */
	uint64_t stack;      /* the AP's first stack pointer               */
	uint64_t entry;      /* ap_entry64                                 */
	uint64_t arg;        /* its KPRCB                                  */
	uint16_t gdt_limit;  /* GDTR: base is an offset until patched      */
	uint32_t gdt_base;
	uint16_t pad1;
	uint32_t far32_off;  /* jump to 32-bit code: offset until patched  */
	uint16_t far32_sel;
	uint16_t pad2;
	uint32_t far64_off;  /* jump to 64-bit code: offset until patched  */
	uint16_t far64_sel;
	uint16_t pad3;
	uint64_t gdt[4];
};
_Static_assert(__builtin_offsetof(struct tramp_params, gdt_limit) == 0x38, "trampoline layout");
_Static_assert(__builtin_offsetof(struct tramp_params, far32_off) == 0x40, "trampoline layout");
_Static_assert(__builtin_offsetof(struct tramp_params, far64_off) == 0x48, "trampoline layout");
_Static_assert(__builtin_offsetof(struct tramp_params, gdt) == 0x50, "trampoline layout");

#endif
