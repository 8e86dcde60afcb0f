/*
 * svg.h - what the pictures share (svg_flame.c, svg_timeline.c and
 * perfetto.c): escaping text for XML and JSON, colours, the output file,
 * TSC time stamps as time, and the schedule read from the records: which
 * thread ran on each CPU when (CSwitch), spin-lock waits (SpinLock),
 * samples (SampledProfile, PmcInterrupt), ReadyThread, and thread names
 * (KprofThread).
 */
#ifndef KPROF_TOOL_SVG_H
#define KPROF_TOOL_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/kprof/alloc.h"
#include "tools/kprof/output.h"
#include "tools/kprof/symbols.h"

/* ---------------------------------------------------------------- text */

/* s as XML character data or an attribute value: & < > " ' escaped,
 * control characters dropped, bytes from 0x80 as the Latin-1 characters
 * (so the file stays well-formed UTF-8 whatever a name holds). */
void kp_xml_text(FILE *f, const char *s);
/* s as a JSON string, quotes included (same rules for bytes >= 0x80). */
void kp_json_string(FILE *f, const char *s);

/* The value of scenario= in the run's command line ("sched"), else "". */
void kp_scenario_of(const char *cmdline, char *buf, size_t size);

/* ---------------------------------------------------------------- colours */

struct kp_rgb {
	uint8_t r, g, b;
};

/* Flame-graph "hot" palette (reds, oranges, yellows) from a hash of name:
 * the same name always gets the same colour. */
struct kp_rgb kp_colour_warm(const char *name);
/* A thread's colour: hues spread by thread id; the idle thread (0) grey. */
struct kp_rgb kp_colour_thread(uint32_t tid);
/* "#rrggbb" into buf (8 bytes); returns buf. */
const char *kp_colour_hex(struct kp_rgb c, char *buf);

/* ---------------------------------------------------------------- files */

/* Create the output file (an error message and NULL if it cannot be). */
FILE *kp_picture_create(const char *path);
/* Close it; 0, or 3 with a message when anything could not be written. */
int kp_picture_close(FILE *f, const char *path);
/* The symbols of --kernel ELF into *syms (NULL when no kernel is given);
 * false, with a message, when the file cannot be read. */
bool kp_picture_symbols(const char *kernel, struct kp_symbols **syms);

/* qsort that takes an empty array as NULL (qsort itself may not). */
void kp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* ---------------------------------------------------------------- schedule */

/* A thread ran on a CPU from start to end (TSC). */
struct kp_run {
	uint64_t start, end;
	uint32_t tid;
	int8_t priority;       /* NewThreadPriority of the switch to it      */
	bool from_start;       /* ran before the CPU's first switch          */
	bool to_end;           /* still running at the end of the trace      */
	bool gap;              /* the next switch's OldThreadId is another   */
	                       /* thread: switches were lost in between      */
	uint8_t end_state;     /* OldThreadState of the switch that ended it */
	uint8_t end_reason;    /* OldThreadWaitReason of that switch         */
};

/* A spin-lock wait: from the first try (AcquireTime - WaitTimeInCycles)
 * to AcquireTime. */
struct kp_wait {
	uint64_t start, end;
	uint64_t lock, caller;
	uint32_t tid, spins;
	uint8_t mode;          /* AcquireMode                                */
};

struct kp_sample {
	uint64_t ts, ip;
	uint32_t tid;
	uint16_t count;        /* SampledProfile Count; 1 for a PMC sample   */
	bool pmc;
	uint16_t source;       /* PMC: ProfileSource                         */
};

struct kp_ready {
	uint64_t ts;
	uint32_t tid;          /* TThreadId                                  */
	int8_t reason, increment;
};

struct kp_cpu_sched {
	struct kp_run *runs;       /* in time order, end to end              */
	size_t nruns;
	struct kp_wait *waits;     /* by start; a wait that starts inside    */
	size_t nwaits;             /* another ends inside it (nested)        */
	struct kp_sample *samples; /* by time                                */
	size_t nsamples;
	struct kp_ready *readies;  /* by time                                */
	size_t nreadies;
	uint64_t switches;         /* CSwitch records                        */
	uint64_t busy;             /* cycles not in the idle thread          */
};

struct kp_thread {
	uint32_t tid, pid;
	int8_t base_priority;
	bool named;                /* from a KprofThread record              */
	char name[17], process[17];
	uint64_t cycles;           /* run time on all CPUs                   */
};

struct kp_sched {
	uint32_t ncpus;
	struct kp_cpu_sched *cpu;
	struct kp_thread *threads; /* by tid: every thread named or seen     */
	size_t nthreads;
	uint64_t begin, end;       /* span of the trace (TSC)                */
	uint64_t origin;           /* time 0: begin (the run header's        */
	                           /* start_tsc unless a record precedes it) */
	double hz;                 /* TSC rate                               */
	uint64_t switches, waits, samples, sample_periods, readies;
	uint64_t thread_records;   /* KprofThread records                    */
};

/* Read the schedule of the whole log.  False (with a message naming the
 * log) when the run header, and so the TSC rate, is missing. */
bool kp_sched_read(struct kp_log *log, const char *path, struct kp_sched *s);
void kp_sched_free(struct kp_sched *s);

/* The thread with this id, or NULL. */
const struct kp_thread *kp_sched_thread(const struct kp_sched *s, uint32_t tid);
/* "pong (12)", "Idle" for thread 0, else "thread 12"; returns buf. */
const char *kp_thread_label(const struct kp_sched *s, uint32_t tid, char *buf, size_t size);

/* Microseconds and milliseconds since the origin. */
double kp_sched_us(const struct kp_sched *s, uint64_t ts);
double kp_sched_ms(const struct kp_sched *s, uint64_t ts);
/* TSC cycles as microseconds. */
double kp_cycles_us(const struct kp_sched *s, uint64_t cycles);

/* The name of a field's value in the field table (fields.c), "?" if it
 * has none; and the ones the pictures show. */
const char *kp_value_name(uint16_t hook, uint8_t version, const char *field, uint64_t v);
const char *kp_state_name(uint8_t state);
const char *kp_wait_reason_name(uint8_t reason);
const char *kp_acquire_mode_name(uint8_t mode);

#endif
