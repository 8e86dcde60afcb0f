/*
 * kpassert.c - the failure of a KP_ASSERT (kpassert.h): one line with the
 * condition, where it is and the values, then abort().
 */
#include "tools/kprof/util/kpassert.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void kp_assert_failed(const char *cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout); /* what was written so far, before the complaint */
	fprintf(stderr, "kprof: internal error: assertion failed: %s at %s:%d: ", cond, file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
