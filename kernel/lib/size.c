/*
 * size.c - size_format() (size.h): a byte count as "N.N MB" and its
 * variants.  Integer arithmetic only; the tenths come from the remainder
 * below one M, so no product can overflow whatever the count.
 */
#include "kernel/lib/size.h"

#include "kernel/lib/printf.h"

const char *size_format(char *buf, size_t size, uint64_t bytes, unsigned flags)
{
	uint64_t k = (flags & SIZE_MIB) ? 1024 : 1000, m = k * k;
	const char *kunit = (flags & SIZE_MIB) ? "KiB" : "KB", *munit = (flags & SIZE_MIB) ? "MiB" : "MB";

	if ((flags & SIZE_SMALL_K) && bytes < m) {
		ksnprintf(buf, size, "%llu %s", (unsigned long long)((bytes + k / 2) / k), kunit);
	} else if ((flags & SIZE_WHOLE) && bytes % m == 0) {
		ksnprintf(buf, size, "%llu %s", (unsigned long long)(bytes / m), munit);
	} else {
		uint64_t whole = bytes / m, rem = bytes % m;
		uint64_t tenths = (flags & SIZE_ROUND) ? (rem * 10 + m / 2) / m : rem * 10 / m;
		whole += tenths / 10; /* rounded up to the next whole M */
		ksnprintf(buf, size, "%llu.%llu %s", (unsigned long long)whole, (unsigned long long)(tenths % 10),
			  munit);
	}
	return buf;
}
