/*
 * phase.c - KprofPhase records and console lines for the start and end of
 * a scenario and of the mix's workloads (phase.h).
 *
 * The record is in PERF_KPROF_THREAD, the group of the thread names, on
 * whenever records that carry thread ids are traced: like a thread's
 * name, a phase says what made those records.  Not in a trace of
 * tracetest patterns or late clock interrupts alone, whose checks count
 * every record (tests/tools/tracecheck.py).  The console line gives the
 * phase's length from the records' own TimeStamps (the TSC the writer
 * stamped them with), so the two agree to the microsecond however long a
 * write is delayed (tests/boot/boot_workloads.py, the mix check, holds the
 * two together); from the TSC read at the call only when a record was
 * not written (group off, dropped).
 *
 * A phase told how long it was asked to run (workload_phase_asked) that
 * takes more than PHASE_SLOW_RATIO times that says so at its end, and
 * why, from what the kernel measured: the clock interrupts that came
 * late on every CPU meanwhile (KPRCB ClockLate*, kernel/ke/time/clock.c: time
 * the virtual CPUs did not run or ran with interrupts masked), an empty
 * interrupt round trip on this machine (measured once, at the first such
 * phase), and the parts of a fixed number of rounds the workload said it
 * ran (workload_phase_rounds), which take as long as the machine makes
 * them whatever length was asked.  Phases nest (the mix is phase 0, its
 * workloads 1..4): a length asked counts for every open phase, rounds
 * for the innermost.  Thread context, one scenario thread: no lock.
 */
#include "kernel/workloads/phase.h"

#include <arch/cpu.h>

#include "include/kprof/wmi.h"
#include "kernel/console/console.h"
#include "kernel/ke/prcb.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/printf.h"
#include "kernel/trace/trace.h"
#include "kernel/workloads/measure.h"

#define PHASE_PARTS 4  /* parts of fixed rounds kept per phase            */
#define IRQ_ROUNDS 16  /* round trips measured for the slow phase's line  */

struct phase {
	uint64_t started;          /* TSC at its start, 0: not started        */
	uint64_t late_count;       /* clock interrupts late, all CPUs, at it  */
	uint64_t late_cycles;      /* ... and their total lateness            */
	uint64_t asked_ms;         /* length asked, 0: not said               */
	uint32_t nparts;
	struct {
		const char *what;  /* "thread switch round trips"             */
		uint32_t rounds;
		uint64_t cycles;
	} parts[PHASE_PARTS];
};

static struct phase phases[PHASE_MAX];
static uint32_t open_phases;  /* bit i: phase i started and not ended     */
static uint64_t irq_median;   /* cycles, measured at the first slow phase */

/* Write the record; the TSC it carries, or now if it was not written. */
static uint64_t write_record(uint32_t index, const char *name, bool end)
{
	struct trace_record rec;
	KPROF_PHASE *r;

	if (!trace_enabled(PERF_KPROF_THREAD) ||
	    !(r = trace_record_begin(&rec, KPROF_LOG_TYPE_PHASE, PHASE_VERSION, sizeof(*r))))
		return arch_rdtsc();
	*r = (KPROF_PHASE){ .Index = index, .Flags = end ? KPROF_PHASE_END : 0 };
	for (size_t i = 0; name[i] && i < sizeof(r->Name); i++)
		r->Name[i] = name[i];
	uint64_t stamped = ((const PERFINFO_TRACE_HEADER *)r - 1)->TimeStamp;
	trace_record_commit(&rec);
	return stamped;
}

/* The clock's late interrupts on every CPU so far: count and cycles. */
static void clock_late(uint64_t *count, uint64_t *cycles)
{
	*count = *cycles = 0;
	for (uint32_t i = 0; i < ke_number_processors; i++)
		if (KiProcessorBlock[i]) {
			*count += KiProcessorBlock[i]->ClockLateCount;
			*cycles += KiProcessorBlock[i]->ClockLateCycles;
		}
}

/* The line (or two) of a phase that took more than PHASE_SLOW_RATIO
 * times its asked length: how much longer, and what the kernel measured. */
static void say_slow(uint32_t index, const char *name, const struct phase *p, uint64_t took_us)
{
	uint64_t took_ms = took_us / 1000, tenths = took_ms * 10 / p->asked_ms, count, cycles;
	char parts[300];
	int n = 0;

	clock_late(&count, &cycles);
	if (!irq_median)
		irq_median = measure_interrupt_round_trip(IRQ_ROUNDS).median;
	kprintf("phase: [%u] %s was asked for %llu ms and took %llu ms (%llu.%llux, more than %ux); this machine: "
		"%llu clock interrupts came late on %u CPUs, %llu ms late in all (the CPUs did not run, or ran with "
		"interrupts masked); an empty interrupt round trip takes %llu cycles (%llu us)\n",
		index, name, (unsigned long long)p->asked_ms, (unsigned long long)took_ms,
		(unsigned long long)(tenths / 10), (unsigned long long)(tenths % 10), PHASE_SLOW_RATIO,
		(unsigned long long)(count - p->late_count), ke_number_processors,
		(unsigned long long)(ke_tsc_to_us(cycles - p->late_cycles) / 1000), (unsigned long long)irq_median,
		(unsigned long long)ke_tsc_to_us(irq_median));
	parts[0] = '\0';
	for (uint32_t i = 0; i < p->nparts && n >= 0 && (size_t)n < sizeof(parts); i++) {
		uint64_t ms = ke_tsc_to_us(p->parts[i].cycles) / 1000;
		n += ksnprintf(parts + n, sizeof(parts) - (size_t)n, "%s %u %s in %llu ms (%llu us each)", i ? ";" : "",
			       p->parts[i].rounds, p->parts[i].what, (unsigned long long)ms,
			       (unsigned long long)(p->parts[i].rounds ? ms * 1000 / p->parts[i].rounds : 0));
	}
	if (p->nparts)
		kprintf("phase: [%u] %s spent its time on measurement rounds too:%s\n", index, name, parts);
}

void workload_phase(uint32_t index, const char *name, bool end)
{
	uint64_t now = write_record(index, name, end);
	struct phase *p = index < PHASE_MAX ? &phases[index] : NULL;

	if (!end) {
		if (p) {
			*p = (struct phase){ .started = now };
			clock_late(&p->late_count, &p->late_cycles);
			open_phases |= 1u << index;
		}
		kprintf("phase: [%u] %s starts\n", index, name);
	} else if (p && p->started) {
		uint64_t took_us = ke_tsc_to_us(now - p->started);
		kprintf("phase: [%u] %s ends after %llu us\n", index, name, (unsigned long long)took_us);
		open_phases &= ~(1u << index);
		if (p->asked_ms && took_us / 1000 > PHASE_SLOW_RATIO * p->asked_ms)
			say_slow(index, name, p, took_us);
		p->started = 0;
	} else {
		kprintf("phase: [%u] %s ends\n", index, name);
	}
}

void workload_phase_asked(uint32_t ms)
{
	for (uint32_t i = 0; i < PHASE_MAX; i++)
		if (open_phases & (1u << i))
			phases[i].asked_ms += ms;
}

void workload_phase_rounds(const char *what, uint32_t rounds, uint64_t cycles)
{
	if (!open_phases)
		return;
	struct phase *p = &phases[31 - __builtin_clz(open_phases)];
	if (p->nparts < PHASE_PARTS)
		p->parts[p->nparts++] = (typeof(p->parts[0])){ .what = what, .rounds = rounds, .cycles = cycles };
}
