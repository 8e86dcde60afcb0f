/*
 * fidelity.h - what a run's own figures are worth on the machine it ran
 * on: the report's first section, the summary's verdict line and the
 * summary JSON's "fidelity" object (docs/report.md, "Fidelity").
 *
 * kp_fidelity_gather() joins the kernel's KprofFidelity records (the cost
 * of a time stamp, the boot's interrupt round trip, CPUID's invariant TSC,
 * each CPU's clock-interrupt lateness) with what the trace itself holds:
 * the boot's TSC skew and the watchdog (run header), the steps back
 * (KprofClockStep, or stamps found going back), the watchdog's verdicts
 * (KprofClockCheck) and the stalls (KprofClockLate, through the model).
 * What a log does not hold is marked unknown, never 0.
 */
#ifndef KPROF_TOOL_FIDELITY_H
#define KPROF_TOOL_FIDELITY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "include/kprof/lateness.h"
#include "tools/kprof/model/model.h"
#include "tools/kprof/read/log.h"

#define KP_FIDELITY_VERDICTS 8

struct kp_fidelity {
	double hz;                       /* TSC rate (0: no run header)          */
	uint32_t cpus;                   /* CPUs in the log                      */
	uint32_t recorded;               /* CPUs with a KprofFidelity record     */
	/* a time stamp: the slowest CPU's median TSC read, the quickest read */
	uint32_t stamp_cycles, stamp_best, stamp_cpu;
	uint64_t round_trip;             /* empty interrupt round trip; 0: unknown */
	int invariant;                   /* CPUID: 1 invariant TSC, 0 not, -1 unknown */
	/* the boot's skew (run header v4: time_fields) */
	bool time_fields;
	bool skew_measured, skew_corrected, skew_moved;
	int64_t skew_ns;
	uint32_t skew_error_ns, skew_cpu;
	/* the watchdog */
	uint32_t watchdog_ms;
	uint64_t unstable_checks;        /* checks that found the TSC unstable   */
	/* steps back: clamped by the kernel, or found in the log */
	uint64_t steps, step_max;        /* count, the largest (cycles)          */
	uint32_t step_cpu;               /* the CPU of the largest               */
	/* clock interrupts: how late they came (all recorded CPUs) */
	uint64_t interrupts;
	uint64_t late[KPROF_LATENESS_BUCKETS];
	uint64_t late_p50, late_p99;     /* upper bounds (cycles): the bucket's  */
	uint64_t late_max;               /* exact                                */
	uint32_t late_max_cpu;
	/* stalls: the machine not running a CPU (KprofClockLate) */
	bool stalls_traced;              /* the trace holds them (trace=clock)   */
	uint64_t stalled, span;          /* cycles stalled, CPU-cycles traced    */
	uint32_t worst_cpu;              /* the CPU with the largest share       */
	uint64_t worst_stalled, worst_span;
	/* what a person can act on, most limiting first */
	char verdict[KP_FIDELITY_VERDICTS][320];
	uint32_t nverdicts;
	char headline[400];              /* the one line `make run` prints      */
};

/* Fill f from the log and its built model. */
void kp_fidelity_gather(struct kp_log *log, const struct kp_model *m, struct kp_fidelity *f);

/* "12 ns", "3.1 us", "2.40 ms", "1.20 s" */
const char *kp_fidelity_ns(double ns, char *buf, size_t size);
/* The same for cycles at f->hz; "N cycles" without a rate. */
const char *kp_fidelity_time(const struct kp_fidelity *f, uint64_t cycles, char *buf, size_t size);

/* The report's "fidelity" section: one line per item, with its unit,
 * then the verdicts. */
void kp_fidelity_section(FILE *out, const struct kp_fidelity *f);
/* The summary's lines: the headline and the verdicts that warn. */
void kp_fidelity_summary(FILE *out, const struct kp_fidelity *f);
/* The summary JSON's "fidelity" object (no leading comma). */
void kp_fidelity_json(FILE *out, const struct kp_fidelity *f);

#endif /* KPROF_TOOL_FIDELITY_H */
