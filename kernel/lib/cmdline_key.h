/*
 * cmdline_key.h - the shape of a table of command-line keys, and how a
 * subsystem registers the table of the keys it owns.
 *
 * Each subsystem that has keys (the architecture, ke, trace, locks,
 * profile, ex, usb, the workloads) keeps them in a table of these rows,
 * in its own *_keys.c, filling its own struct; it registers the table
 * with CMDLINE_TABLE() and no central list names it.  The one parse pass
 * (kernel/init/cmdline.h: config_parse) walks every registered table as
 * one, in the order of their `order` numbers; once it has run, the parsed
 * structs are reached only through const views (docs/config-keys.md).
 * A ground-floor header: it includes nothing of the kernel's.
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
	/* ENUM: the names made when they are first needed, instead of
	 * `names` (a registry's: scenario= takes every registered workload). */
	const char *const *(*names_of)(void);
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

/* One table of keys and the struct its offsets point into.  The parser
 * writes the struct only through `config`; the owner hands out nothing
 * but a const view of it.  A registered table also has its defaults (the
 * parser copies them in first), its owner's name and its place. */
struct cmdline_table {
	const struct cmdline_key *keys;
	size_t count;
	void *config;
	const void *defaults; /* size bytes copied into config before parsing */
	size_t size;
	const char *owner;    /* "trace": the subsystem, for ties and messages */
	/* Place among the registered tables: docs/cmdline.md and the list of
	 * accepted keys show the keys in this order (ties: by owner).  The
	 * kernel's own tables use 10..990 (their numbers are in the files
	 * that register them), the architecture's 1000; a table added later
	 * takes a free number where its keys belong. */
	unsigned order;
	/* A rule of the table's own (a workload's, which no central list
	 * knows): run in the same pass after the rules between keys, when none
	 * of the table's keys was refused.  NULL when the values are fine;
	 * otherwise one line saying what was wrong and what is accepted, in
	 * buf (size bytes) or a constant. */
	const char *(*check)(const void *config, char *buf, size_t size);
	/* The values the table derives from whether a key was given, set at
	 * the end of the same pass (the last writes to its struct): given[i]
	 * is true when the table's key i was on the command line and
	 * accepted, false when it was left at its default.  NULL when the
	 * table derives none.  So the parser knows no subsystem's key. */
	void (*finish)(void *config, const bool *given);
};

/* A key's names (ENUM, SET): its list, or the one made for it. */
static inline const char *const *cmdline_key_names(const struct cmdline_key *k)
{
	return k->names_of ? k->names_of() : k->names;
}

/* Register a table: CMDLINE_TABLE(trace_keys, .keys = rows, ...) defines
 * the table `name` with the given fields and puts a pointer to it in the
 * section the parser walks (kernel/init/cmdline_tables.c), so adding a
 * subsystem's keys edits no other file.  The kernel's linker script keeps
 * the section; on the host (unit tests, the docs generator) the linker
 * makes __start_/__stop_ for it. */
#define CMDLINE_TABLE(name, ...)                                                                              \
	static const struct cmdline_table name = { __VA_ARGS__ };                                             \
	static const struct cmdline_table *const name##_entry                                                 \
		__attribute__((used, section("kprof_cmdline_tables"), aligned(sizeof(void *)))) = &name

/* A value found unusable once the hardware is probed (what a key's
 * `probe` field says is refused).  Prints the message, which names the
 * key, the value and what this machine accepts, and counts it; the caller
 * goes on as if the key had its default, so probing finishes and every
 * such problem is shown.  The run then ends as a rejected command line
 * (exit CONFIG) before any scenario runs (kernel/init/main.c). */
void cmdline_refuse_at_probe(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* KPROF_KERNEL_CMDLINE_KEY_H */
