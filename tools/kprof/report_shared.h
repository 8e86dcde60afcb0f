/*
 * report_shared.h - helpers the locks and resources sections of the report
 * share (defined in report_resources.c): order statistics, number and
 * percentage formatting, naming code and data addresses, wrapping.
 */
#ifndef KPROF_TOOL_REPORT_SHARED_H
#define KPROF_TOOL_REPORT_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/kprof/alloc.h"
#include "tools/kprof/log.h"
#include "tools/kprof/symbols.h"

struct kp_rl_stats {
	size_t n;                     /* values                                     */
	uint64_t median, p99, max;    /* nearest rank; 0 when n is 0                */
};
struct kp_rl_vw {
	uint64_t v, w;                /* a value and its weight                     */
};
void kp_rl_stats(uint64_t *v, size_t n, struct kp_rl_stats *s);
void kp_rl_weighted_stats(struct kp_rl_vw *a, size_t n, struct kp_rl_stats *s);
void kp_rl_stats_header(FILE *f, const char *indent);
void kp_rl_stats_row(FILE *f, const struct kp_log *log, const char *label, const struct kp_rl_stats *s);
const char *kp_rl_num(char *buf, size_t size, uint64_t v, bool have);
const char *kp_rl_pct(char *buf, size_t size, uint64_t part, uint64_t whole);
const char *kp_rl_code_name(const struct kp_symbols *syms, uint64_t addr, char *buf, size_t size);
const char *kp_rl_data_name(const struct kp_symbols *syms, uint64_t addr, char *buf, size_t size);
void kp_rl_lost_note(FILE *f, const struct kp_log *log);
void kp_rl_wrap(FILE *f, const char *indent, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
