/*
 * bench_places.h - a timed function's code at CODE_PLACES places: a copy
 * starting at each 8 bytes of a 64-byte line (bench_trace.c,
 * bench_locks.c).
 *
 * Where a loop's code falls against the CPU's fetch windows moved its
 * cost by a tenth (the trace write 36 cycles at some places, 41 at
 * others; which ones changed with any change to the code before the loop:
 * docs/testing.md), so a change anywhere in a bench's file or in a header
 * it inlines moved a ratio as much.  A bench runs every place of a
 * function and takes the mean over its places.  The file is compiled
 * (bench.mk) with -fno-toplevel-reorder, so that the functions are
 * emitted in order between the directives, -fno-ipa-icf, so that the
 * copies are not folded into one, and -falign-functions=8, so that each
 * starts where its directive leaves it.
 *
 *     static inline __attribute__((always_inline)) uint64_t loop(void) {...}
 *     PLACED(uint64_t, run_loop, loop())
 *     uint64_t (*const runs[CODE_PLACES])(void) = PLACES_OF(run_loop);
 */
#ifndef KPROF_TESTS_BENCH_PLACES_H
#define KPROF_TESTS_BENCH_PLACES_H

#define CODE_PLACES 8
#define CODE_PLACE(skip) __asm__(".text\n\t.p2align 6\n\t" skip "\n")
#define PLACED_AT(type, name, at, skip, expr) \
	CODE_PLACE(skip);                     \
	static type name##_at##at(void)       \
	{                                     \
		return expr;                  \
	}
#define PLACED(type, name, expr)                         \
	PLACED_AT(type, name, 0, "", expr)               \
	PLACED_AT(type, name, 1, ".skip 8, 0xcc", expr)  \
	PLACED_AT(type, name, 2, ".skip 16, 0xcc", expr) \
	PLACED_AT(type, name, 3, ".skip 24, 0xcc", expr) \
	PLACED_AT(type, name, 4, ".skip 32, 0xcc", expr) \
	PLACED_AT(type, name, 5, ".skip 40, 0xcc", expr) \
	PLACED_AT(type, name, 6, ".skip 48, 0xcc", expr) \
	PLACED_AT(type, name, 7, ".skip 56, 0xcc", expr)
#define PLACES_OF(name)                                                                                   \
	{                                                                                                 \
		name##_at0, name##_at1, name##_at2, name##_at3, name##_at4, name##_at5, name##_at6, name##_at7 \
	}

#endif /* KPROF_TESTS_BENCH_PLACES_H */
