/*
 * kpassert.h - run-time assertions in the host tool.
 *
 * KP_ASSERT(cond, fmt, ...) checks an invariant the tool's own code
 * promises (never a property of the input: bad input is reported where it
 * is read, with a message naming what is wrong).  When cond is false the
 * tool prints one line to stderr,
 *
 *   kprof: internal error: assertion failed: <cond> at <file>:<line>: <fmt's values>
 *
 * and aborts (SIGABRT, so a core dump or a debugger catches it there).
 * The checks are always compiled in: each runs once per model, not per
 * record (docs/testing.md).
 */
#ifndef KPROF_TOOL_KPASSERT_H
#define KPROF_TOOL_KPASSERT_H

__attribute__((noreturn, cold, format(printf, 4, 5))) void kp_assert_failed(const char *cond, const char *file,
									   int line, const char *fmt, ...);

#define KP_ASSERT(cond, ...)                                                           \
	do {                                                                           \
		if (__builtin_expect(!(cond), 0))                                      \
			kp_assert_failed(#cond, __FILE__, __LINE__, __VA_ARGS__);      \
	} while (0)

#endif
