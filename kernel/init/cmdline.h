/*
 * cmdline.h - parsing the kernel command line into struct kconfig.
 *
 * Syntax: words separated by spaces or tabs, each `key=value`.  Every key
 * may appear once.  Values are checked against the key's type and range;
 * each problem is reported through the callback with the key, the value
 * and what is accepted.
 */
#ifndef KPROF_KERNEL_CMDLINE_H
#define KPROF_KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/init/config.h"

enum cmdline_type {
	CMDLINE_ENUM, /* one name from `names`, stored as its index        */
	CMDLINE_UINT, /* decimal or 0x hex in [min, max]; `special` = 0     */
	CMDLINE_SET,  /* comma-separated names from `names`, stored as bits */
};

struct cmdline_key {
	const char *name;          /* "cpus"                                  */
	enum cmdline_type type;
	size_t offset;             /* of the uint32_t field in struct kconfig */
	const char *const *names;  /* ENUM and SET: NULL-terminated           */
	uint64_t min, max;         /* UINT range                              */
	const char *special;       /* UINT: a word meaning 0 (e.g. "all")     */
	bool pow2;                 /* UINT: must be a power of two            */
	const char *help;          /* one line for README and --help          */
};

extern const struct cmdline_key cmdline_keys[];
extern const size_t cmdline_key_count;

typedef void (*cmdline_error_fn)(void *ctx, const char *message);

/* Fill cfg with the defaults. */
void config_defaults(struct kconfig *cfg);

/* Parse `line` into cfg (which should hold the defaults).  Returns the
 * number of errors; with errors, cfg must not be used. */
int cmdline_parse(const char *line, struct kconfig *cfg, cmdline_error_fn err, void *ctx);

#endif /* KPROF_KERNEL_CMDLINE_H */
