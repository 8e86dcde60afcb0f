/*
 * cmdline.h - the kernel command line: key tables, the parser and the one
 * check of the whole configuration.
 *
 * Syntax: words separated by spaces or tabs, each `key=value`.  Every key
 * may appear once.  The keys come from every subsystem's own table,
 * registered with CMDLINE_TABLE() (kernel/lib/cmdline_key.h) and walked
 * as one in their order (cmdline_tables.c); each table fills its owner's
 * struct, which the rest of the kernel reads through a const view.
 *
 * config_parse() is the one pass: defaults, then every word checked
 * against its key's type and range, then every rule between keys
 * (cmdline_rules.c).  Each problem is reported through the callback with
 * the key, the value given and what is accepted; all of them, not only
 * the first.  With any problem the configuration must not be used.  After
 * it nothing writes the parsed structs (tools/check-layering.sh).
 * docs/cmdline.md is generated from these tables (make docs).
 */
#ifndef KPROF_KERNEL_CMDLINE_H
#define KPROF_KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>

#include "kernel/lib/cmdline_key.h"

/* What became of each key (index over all tables, in order). */
enum cmdline_key_state {
	CMDLINE_DEFAULT,  /* not on the command line: the default stands */
	CMDLINE_GIVEN,    /* given and accepted                         */
	CMDLINE_REJECTED, /* given and refused: the default still stands */
};

#define CMDLINE_MAX_KEYS  128 /* keys in all tables together (workloads built in add theirs) */
#define CMDLINE_MAX_TABLES 48 /* registered tables            */

/* What a line handed to the error callback is (cmdline_report.c). */
enum cmdline_line {
	CMDLINE_PROBLEM, /* the first line of a problem: one per problem */
	CMDLINE_MORE,    /* a further line of the problem before it: the rest */
			 /* of its list of what is accepted                   */
};

/* No line handed to the callback is longer (bytes, no '\n'): a longer
 * message is cut and ends in "...".  The kernel's console writes a line
 * this long whole (checked in main.c). */
#define CMDLINE_LINE_MAX 480
/* A list of what is accepted wraps onto further lines (CMDLINE_MORE) at
 * this width; an item is never split, however long the list. */
#define CMDLINE_WRAP 100
/* A word of the command line is echoed up to this many bytes, then "...". */
#define CMDLINE_WORD_MAX 160

typedef void (*cmdline_error_fn)(void *ctx, const char *line, enum cmdline_line kind);

/* Format one problem as one line and hand it to err (if any): the one way
 * the parser and the rules report. */
void cmdline_report(cmdline_error_fn err, void *ctx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void cmdline_vreport(cmdline_error_fn err, void *ctx, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

/* The i-th name of a list, NULL past the last. */
typedef const char *(*cmdline_item_fn)(const void *src, size_t i);

/* One problem whose line ends in a list: fmt's text, then every item(src,
 * i) as "a, b, c", wrapped onto as many CMDLINE_MORE lines as it takes. */
void cmdline_report_list(cmdline_error_fn err, void *ctx, cmdline_item_fn item, const void *src, const char *fmt,
			 ...) __attribute__((format(printf, 5, 6)));

/* Every registered table (CMDLINE_TABLE), sorted by order then owner,
 * copied into out (max entries).  Returns how many are registered; when
 * that is more than max, out is left untouched. */
size_t cmdline_tables(struct cmdline_table *out, size_t max);

/* The key called name[0..len) (not NUL-terminated: a word of a command
 * line, or a whole C string with its strlen), walking the tables as one;
 * *table is its table and *index its index over all tables (either may be
 * NULL).  NULL when no table has it.  The one search of the key tables:
 * the parser and the rules use it. */
const struct cmdline_key *cmdline_key_find(const struct cmdline_table *tables, size_t ntables, const char *name,
					   size_t len, const struct cmdline_table **table, size_t *index);

/* Copy each table's defaults into its struct (all of them before any key
 * is parsed: several tables may fill one struct). */
void cmdline_tables_defaults(const struct cmdline_table *tables, size_t ntables);

/* Parse `line` into the tables' structs (which should hold the defaults),
 * walking the tables as one.  state (CMDLINE_MAX_KEYS entries, or NULL)
 * receives each key's enum cmdline_key_state.  Returns the number of
 * problems, each reported through err. */
int cmdline_parse(const char *line, const struct cmdline_table *tables, size_t ntables, uint8_t *state,
		  cmdline_error_fn err, void *ctx);

/* A rule between keys, or on the values of one key beyond its range
 * (cmdline_rules.c).  It runs only when every key it reads was accepted
 * or left at its default. */
struct config_view;
struct cmdline_rule {
	const char *keys[4];       /* the keys it reads; NULL-terminated      */
	/* The rule in one line, for docs/cmdline.md (numbers from the same
	 * constants the check uses). */
	void (*describe)(char *buf, size_t size);
	/* Report each breach through the view's callback; return how many. */
	int (*check)(const struct config_view *v);
};

extern const struct cmdline_rule cmdline_rules[];
extern const size_t cmdline_rule_count;

/* Is `name` a key of one of the tables?  (The unit tests check that
 * every key a rule reads is.) */
bool config_key_known(const struct cmdline_table *tables, size_t ntables, const char *name);

/* The one pass over every registered table: defaults, the command line,
 * then every rule whose keys were all accepted.  Returns the number of
 * problems.  Run once, on the boot CPU, before anything reads a key. */
int config_parse(const char *line, cmdline_error_fn err, void *ctx);

#endif /* KPROF_KERNEL_CMDLINE_H */
