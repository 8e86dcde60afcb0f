/*
 * report_internal.h - what the files of `kprof report` share among
 * themselves (report.c, report_hot.c, report_threads.c, report_util.c);
 * report.h is what other files see.
 */
#ifndef KPROF_TOOL_REPORT_INTERNAL_H
#define KPROF_TOOL_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/kprof/alloc.h"
#include "tools/kprof/log.h"
#include "tools/kprof/symbols.h"

#define TOP_FUNCTIONS    20 /* hot spots, all CPUs                       */
#define TOP_PER_CPU      5  /* hot spots, each CPU                       */
#define TOP_SUMMARY      5  /* --summary: functions and threads          */
#define TOP_BUCKET_FUNCS 20 /* functions listed per profile object       */
#define REASONS          256

/* Each CPU's first and last record time stamps. */
struct span {
	bool any;
	uint64_t first, last;
};

struct thread {
	uint32_t id;
	bool named;
	char name[17], process[17];
	uint64_t cycles;          /* on a CPU                                     */
	uint64_t in;              /* switched in                                  */
	uint64_t out;             /* switched out                                 */
	bool have_prio;
	int pmin, pmax;
	uint32_t max_wait;        /* NewThreadWaitTime, clock ticks               */
	uint32_t reasons[REASONS];/* OldThreadWaitReason when it left             */
};

struct threads {
	struct thread *v;
	size_t n, cap;
	size_t *slots;            /* hash of ids: index + 1, 0 empty              */
	size_t nslots;
};

/* What each CPU was doing, switch by switch. */
struct cpu_run {
	bool any_switch;
	uint32_t cur;             /* thread on the CPU since `since`              */
	uint64_t since;
	uint64_t idle;            /* cycles the idle thread ran                   */
	uint64_t switches;
	uint64_t mismatches;      /* old thread not the one switched in before    */
};

struct sched {
	struct threads threads;
	struct cpu_run *cpus;
	struct span *spans;
	uint64_t switches;
};

/* report_util.c */
const char *kp_rp_ms(const struct kp_log *log, uint64_t cycles, char *buf, size_t size);
const char *kp_rp_pct(uint64_t part, uint64_t whole, char *buf, size_t size);
void kp_rp_wrapped(FILE *f, const char *label, int indent, const char *text);
const char *kp_rp_value_name(uint16_t hook, uint8_t version, const char *field, uint64_t v);
const char *kp_rp_source_name(unsigned source, char *buf, size_t size);
void kp_rp_name_cut(FILE *f, const char *name, int room);
void kp_rp_spans(struct kp_log *log, struct span *s);
bool kp_rp_group_on(const struct kp_log *log, uint32_t mask);

/* report_hot.c */
void kp_rp_hot_spots(FILE *f, struct kp_log *log, const struct kp_symbols *syms);
void kp_rp_profile_objects(FILE *f, struct kp_log *log, const struct kp_symbols *syms);
void kp_rp_hot_summary(FILE *f, struct kp_log *log, const struct kp_symbols *syms);

/* report_threads.c */
void kp_rp_sched_collect(struct kp_log *log, struct sched *s);
void kp_rp_sched_free(struct sched *s);
int kp_rp_cmp_thread(const void *a, const void *b);
void kp_rp_thread_line(FILE *f, struct kp_log *log, const struct thread *th, uint64_t total);
void kp_rp_threads(FILE *f, struct kp_log *log, struct sched *s);
void kp_rp_cpus(FILE *f, struct kp_log *log, const struct sched *s);

#endif
