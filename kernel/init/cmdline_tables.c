/*
 * cmdline_tables.c - every registered table of keys, in order.
 *
 * Each subsystem registers the table of the keys it owns with
 * CMDLINE_TABLE() (kernel/lib/cmdline_key.h), which puts a pointer to it
 * in the section kprof_cmdline_tables; no list here names them.  The
 * linker gathers the pointers in whatever order it links the objects, so
 * they are sorted here by their `order` and then their owner's name: the
 * keys keep one order in docs/cmdline.md and in the list of accepted keys
 * whatever the build links first.
 *
 * Pure, like the parser: the unit tests and the docs generator, linked on
 * the host with the same tables, see what the kernel sees.
 */
#include "kernel/init/cmdline.h"

#include "kernel/lib/libk.h"

#include <stdbool.h>

/* Made by the linker: the kernel's linker.ld names them, the host's
 * linker makes them for a section whose name is an identifier.  Weak, so
 * that a program with no table links (and finds none). */
extern const struct cmdline_table *const __start_kprof_cmdline_tables[] __attribute__((weak));
extern const struct cmdline_table *const __stop_kprof_cmdline_tables[] __attribute__((weak));

const struct cmdline_key *cmdline_key_find(const struct cmdline_table *tables, size_t ntables, const char *name,
					   size_t len, const struct cmdline_table **table, size_t *index)
{
	size_t base = 0;

	for (size_t t = 0; t < ntables; base += tables[t].count, t++)
		for (size_t i = 0; i < tables[t].count; i++) {
			const char *k = tables[t].keys[i].name;
			if (strlen(k) != len || strncmp(k, name, len) != 0)
				continue;
			if (table)
				*table = &tables[t];
			if (index)
				*index = base + i;
			return &tables[t].keys[i];
		}
	return NULL;
}

static bool goes_before(const struct cmdline_table *a, const struct cmdline_table *b)
{
	if (a->order != b->order)
		return a->order < b->order;
	return strcmp(a->owner ? a->owner : "", b->owner ? b->owner : "") < 0;
}

size_t cmdline_tables(struct cmdline_table *out, size_t max)
{
	const struct cmdline_table *const *p = __start_kprof_cmdline_tables;
	size_t n = p ? (size_t)(__stop_kprof_cmdline_tables - p) : 0;

	if (n > max)
		return n; /* the caller refuses: more tables than it can walk */
	for (size_t k = 0; k < n; k++) {
		/* Insertion sort: a few dozen tables, once per parse. */
		size_t i = k;
		for (; i > 0 && goes_before(p[k], &out[i - 1]); i--)
			out[i] = out[i - 1];
		out[i] = *p[k];
	}
	return n;
}

void cmdline_tables_defaults(const struct cmdline_table *tables, size_t ntables)
{
	for (size_t t = 0; t < ntables; t++)
		if (tables[t].defaults)
			memcpy(tables[t].config, tables[t].defaults, tables[t].size);
}
