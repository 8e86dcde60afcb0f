/*
 * cmdline_key.h - the shape of a table of command-line keys.
 *
 * The kernel's table (cmdline_keys.c) and the architecture's
 * (<arch/cmdline.h>) are both made of these rows; each table fills its
 * own struct, so the architecture's keys never touch the kernel's
 * configuration.  The parser and the rules are in cmdline.h.
 */
#ifndef KPROF_KERNEL_CMDLINE_KEY_H
#define KPROF_KERNEL_CMDLINE_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cmdline_type {
	CMDLINE_ENUM, /* one name from `names`, stored as its index        */
	CMDLINE_UINT, /* decimal or 0x hex in [min, max]; `special` = 0     */
	CMDLINE_SET,  /* comma-separated names from `names`, stored as bits */
};

struct cmdline_key {
	const char *name;          /* "cpus"                                   */
	enum cmdline_type type;
	size_t offset;             /* of the uint32_t field in the table's struct */
	const char *const *names;  /* ENUM and SET: NULL-terminated            */
	uint64_t min, max;         /* UINT range                               */
	const char *special;       /* UINT: a word meaning 0 (e.g. "all")      */
	bool pow2;                 /* UINT: must be a power of two             */
	bool or_zero;              /* UINT: 0 is accepted too (off)            */
	bool min_in_rule;          /* UINT: the parser checks only 0..max; a   */
	                           /* rule refuses values below min, with the  */
	                           /* message of the call that applies them    */
	const char *used_by;       /* which runs read it, for docs/cmdline.md  */
	const char *help;          /* one line: what it sets                   */
	const char *probe;         /* checked again once the hardware is       */
	                           /* probed: against what (NULL: never)       */
};

/* One table of keys and the struct its offsets point into. */
struct cmdline_table {
	const struct cmdline_key *keys;
	size_t count;
	void *config;
};

/* A value found unusable once the hardware is probed (what a key's
 * `probe` field says is refused).  Prints the message, which names the
 * key, the value and what this machine accepts, and counts it; the caller
 * goes on as if the key had its default, so probing finishes and every
 * such problem is shown.  The run then ends as a rejected command line
 * (exit CONFIG) before any scenario runs (kernel/init/main.c). */
void cmdline_refuse_at_probe(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* KPROF_KERNEL_CMDLINE_KEY_H */
