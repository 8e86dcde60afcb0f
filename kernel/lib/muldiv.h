/*
 * muldiv.h - overflow-free scaling of 64-bit counts.
 */
#ifndef KPROF_KERNEL_MULDIV_H
#define KPROF_KERNEL_MULDIV_H

#include <stdint.h>

/* floor(a * b / c); UINT64_MAX if c is 0 or the result does not fit. */
uint64_t mul_div_u64(uint64_t a, uint64_t b, uint64_t c);

#endif
