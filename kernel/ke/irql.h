/*
 * irql.h - interrupt request levels, as on x64 Windows.
 *
 * An IRQL masks every interrupt at or below it.  Code raises IRQL to keep
 * interrupts of lower levels (and the dispatcher, at DISPATCH_LEVEL) out,
 * and lowers it back.  Rules, checked on every call:
 *   - ke_raise_irql() to a lower level than the current one is a bug check
 *     (IRQL_NOT_GREATER_OR_EQUAL);
 *   - ke_lower_irql() to a higher level is a bug check
 *     (IRQL_NOT_LESS_OR_EQUAL).
 * When IRQL falls below DISPATCH_LEVEL, the CPU's queued DPCs run first
 * (at DISPATCH_LEVEL, interrupts enabled), then a requested reschedule
 * (which may switch threads).
 */
#ifndef KPROF_KERNEL_IRQL_H
#define KPROF_KERNEL_IRQL_H

#include <stdint.h>

#include <arch/irql.h>

/* The dispatcher's entry points, which the scheduler declares with
 * KE_DISPATCHER (kernel/sched/dispatch.c): a CPU falling below
 * DISPATCH_LEVEL with KPRCB.DispatchPending set calls them, so ke names
 * no layer above it (as NT's KiDispatchInterrupt is the one way into the
 * dispatcher from the IRQL code).  One in the kernel; a program without a
 * scheduler has none and never a dispatch pending. */
struct ke_dispatcher {
	void (*dispatch)(void);                         /* from a thread         */
	void (*after_interrupt)(uint64_t own_work_tsc); /* on an interrupt's way out */
};

#define KE_DISPATCHER(ident, ...)                                                                             \
	static const struct ke_dispatcher ident = { __VA_ARGS__ };                                            \
	static const struct ke_dispatcher *const ident##_entry                                                \
		__attribute__((used, section("kprof_dispatcher"), aligned(sizeof(void *)))) = &ident

typedef uint8_t KIRQL;

#define PASSIVE_LEVEL  0
#define LOW_LEVEL      0
#define APC_LEVEL      1
#define DISPATCH_LEVEL 2
#define CMCI_LEVEL     5
#define CLOCK_LEVEL    13
#define IPI_LEVEL      14
#define POWER_LEVEL    14
#define PROFILE_LEVEL  15
#define HIGH_LEVEL     15

static inline KIRQL ke_get_current_irql(void)
{
	return arch_get_irql();
}

/* Raise to new_irql (>= current) and return the old level. */
KIRQL ke_raise_irql(KIRQL new_irql);
/* Lower to new_irql (<= current), running DPCs when crossing DISPATCH. */
void ke_lower_irql(KIRQL new_irql);

static inline KIRQL ke_raise_irql_to_dpc_level(void)
{
	return ke_raise_irql(DISPATCH_LEVEL);
}

/* Interrupt entry and exit, called by arch code around every hardware
 * interrupt: account it, run at the vector's level with interrupts on,
 * and on the way out run DPCs if the interrupted level was below
 * DISPATCH_LEVEL.  Interrupts are disabled on entry and on return. */
KIRQL ki_interrupt_enter(KIRQL level);
void ki_interrupt_exit(KIRQL old_irql);

#endif /* KPROF_KERNEL_IRQL_H */
