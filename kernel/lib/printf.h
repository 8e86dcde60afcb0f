/*
 * printf.h - the kernel's string formatting (no floating point).
 *
 * Conversions: d i u o x X c s p %, flags - + space # 0, field width and
 * precision (also '*'), length modifiers hh h l ll z t j.  Return values
 * follow C99 snprintf: the length the full output would have had.
 */
#ifndef KPROF_KERNEL_PRINTF_H
#define KPROF_KERNEL_PRINTF_H

#include <stdarg.h>
#include <stddef.h>

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* KPROF_KERNEL_PRINTF_H */
