/*
 * shadow.h - what unit tests can see of the shadowed kernel services.
 */
#ifndef KPROF_SHADOW_H
#define KPROF_SHADOW_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

/* Set to a jmp_buf to catch a bug check (the code lands in last_bugcheck). */
extern __thread jmp_buf *shadow_bugcheck_jmp;
extern __thread unsigned shadow_last_bugcheck;
/* ... its parameters and its message (kernel/debug/kassert.h's name the
 * relation, the values and file:line). */
extern __thread uint64_t shadow_bugcheck_params[4];
extern __thread char shadow_bugcheck_msg[256];
/* True when the last bug check was a failed assertion
 * (KPROF_ASSERTION_FAILED, kernel/debug/kassert.h) whose message holds
 * `what` (the relation and its values) and `where` (the file); otherwise
 * says what it was on stderr and returns false. */
bool shadow_assertion_failed(const char *what, const char *where);
/* ki_dispatch_interrupt() calls in this thread (tests without dispatch.c). */
extern __thread uint32_t shadow_dispatch_interrupts;
/* Everything kprintf() printed in this thread. */
extern __thread char shadow_console[8192];

/* Run stmt; true if it bug-checked (then shadow_last_bugcheck says how). */
#define SHADOW_EXPECT_BUGCHECK(stmt)                                   \
	({                                                             \
		jmp_buf jb_;                                           \
		volatile bool hit_ = false;                                  \
		shadow_bugcheck_jmp = &jb_;                            \
		if (setjmp(jb_) == 0) {                                \
			stmt;                                          \
		} else {                                               \
			hit_ = true;                                   \
		}                                                      \
		shadow_bugcheck_jmp = NULL;                            \
		hit_;                                                  \
	})

#endif
