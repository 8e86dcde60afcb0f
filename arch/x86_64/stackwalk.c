/*
 * stackwalk.c - frame-pointer stack walk for x86-64.
 *
 * With -fno-omit-frame-pointer a kernel function starts with
 * push %rbp; mov %rsp,%rbp, so [rbp] is the caller's rbp and [rbp+8] the
 * return address.  The chain ends at rbp == 0 (entry.asm clears it).  The
 * walk checks each frame before reading it, so a corrupt chain ends the
 * walk instead of faulting inside the fault handler.
 *
 * Two cases escape a plain walk when a trap interrupts a function: GCC gives
 * trivial leaf functions no frame at all, and any function can be
 * interrupted inside its prologue.  In both, rbp still holds the caller's
 * frame and the return address sits at the top of the stack: [rsp] before
 * push %rbp, [rsp+8] after it.  arch_stack_walk_trap() reads the
 * interrupted function's first bytes (found through the kernel symbol
 * table) to tell which, and accepts the recovered address only if it lies
 * in kernel text.
 */
#include <arch/mmu.h>
#include <arch/stackwalk.h>

#include "kernel/arch_services.h"

#define OP_PUSH_RBP 0x55
#define PROLOGUE_SCAN 16 /* bytes searched for mov %rsp,%rbp */

static int word_readable(uintptr_t va)
{
	return (va & 7) == 0 && va >= KPROF_HHDM_BASE && arch_translate(va) != ~0ULL;
}

static int frame_readable(uintptr_t fp)
{
	/* Both words of the frame must be mapped (they may straddle a page). */
	return word_readable(fp) && word_readable(fp + 8);
}

unsigned arch_stack_walk(uintptr_t fp, uintptr_t *pcs, unsigned max)
{
	unsigned n = 0;

	while (n < max && fp && frame_readable(fp)) {
		const uintptr_t *frame = (const uintptr_t *)fp;
		uintptr_t ret = frame[1];
		uintptr_t next = frame[0];
		if (!ret)
			break;
		pcs[n++] = ret;
		if (next <= fp) /* stacks grow down: callers are above */
			break;
		fp = next;
	}
	return n;
}

enum prologue { FRAMED, NOT_PUSHED, PUSHED_ONLY };

/* Where the interrupted function stands in setting up its frame. */
static enum prologue prologue_state(const uint8_t *fn, uintptr_t off)
{
	if (fn[0] != OP_PUSH_RBP || off == 0)
		return NOT_PUSHED; /* frameless, or not started */
	for (unsigned i = 1; i < PROLOGUE_SCAN; i++) {
		/* 48 89 e5: mov %rsp,%rbp; GCC may schedule other work before it. */
		if (fn[i] == 0x48 && fn[i + 1] == 0x89 && fn[i + 2] == 0xe5)
			return off <= i ? PUSHED_ONLY : FRAMED;
	}
	return FRAMED;
}

unsigned arch_stack_walk_trap(const KTRAP_FRAME *tf, uintptr_t *pcs, unsigned max)
{
	uintptr_t off;
	unsigned n = 0;

	if (max && ksym_lookup(tf->rip, &off)) {
		enum prologue st = prologue_state((const uint8_t *)(tf->rip - off), off);
		uintptr_t slot = st == NOT_PUSHED ? tf->rsp : st == PUSHED_ONLY ? tf->rsp + 8 : 0;
		if (slot && word_readable(slot)) {
			uintptr_t ret = *(const uintptr_t *)slot;
			if (ksym_lookup(ret - 1, &off))
				pcs[n++] = ret;
		}
	}
	return n + arch_stack_walk(tf->rbp, pcs + n, max - n);
}
