/*
 * context.c - a new thread's initial stack, as arch_context_switch pops it.
 *
 *   top - 8    0                   (ends backtraces, keeps 16-byte alignment)
 *   top - 16   0
 *   top - 24   arch_thread_entry   (popped by ret)
 *   top - 32   rbp = 0             (frame-pointer chain ends)
 *   top - 40   rbx
 *   top - 48   r12 = entry
 *   top - 56   r13 = arg
 *   top - 64   r14
 *   top - 72   r15                 <- initial stack pointer
 * After the pops and ret, rsp = top - 16: 16-byte aligned for the call.
 */
#include <arch/context.h>

extern char arch_thread_entry[];

uintptr_t arch_context_init(uintptr_t stack_top, void (*entry)(void *), void *arg)
{
	uint64_t *sp = (uint64_t *)(stack_top & ~15ULL);

	*--sp = 0;
	*--sp = 0;
	*--sp = (uint64_t)(uintptr_t)arch_thread_entry;
	*--sp = 0;                          /* rbp */
	*--sp = 0;                          /* rbx */
	*--sp = (uint64_t)(uintptr_t)entry; /* r12 */
	*--sp = (uint64_t)(uintptr_t)arg;   /* r13 */
	*--sp = 0;                          /* r14 */
	*--sp = 0;                          /* r15 */
	return (uintptr_t)sp;
}
