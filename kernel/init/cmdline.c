/*
 * cmdline.c - the command-line parser (see cmdline.h for the syntax).
 *
 * Pure: no allocation, no output except through the error callback, so the
 * host unit tests and the docs/cmdline.md generator run it as is.  Every
 * word is checked even after an error, so the user sees all problems at
 * once.  The tables are walked as one: a key's index is its position in
 * the first table, then the second, and so on.  The accepted keys are
 * listed with the first unknown key or malformed word, over as many lines
 * as they take (cmdline_report.c); later ones point back to that list.
 */
#include "kernel/init/cmdline.h"

#include "kernel/lib/libk.h"

#include <stdarg.h>
#include <stdbool.h>

/* A word of the command line in a message: "%.*s%s", at most
 * CMDLINE_WORD_MAX bytes of it, then "..." when it is longer. */
#define SHOWN(w) (int)MIN((w).n, (size_t)CMDLINE_WORD_MAX), (w).p, (w).n > CMDLINE_WORD_MAX ? "..." : ""

struct word {
	const char *p; /* start */
	size_t n;      /* length */
};

struct parser {
	const struct cmdline_table *tables;
	size_t ntables;
	cmdline_error_fn err;
	void *ctx;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool word_is(struct word w, const char *s)
{
	return strlen(s) == w.n && strncmp(s, w.p, w.n) == 0;
}

/* The key named k and its table, with *index its index over all tables. */
static const struct cmdline_key *find_key(const struct parser *ps, struct word k, const struct cmdline_table **table,
					  size_t *index)
{
	return cmdline_key_find(ps->tables, ps->ntables, k.p, k.n, table, index);
}

/* cmdline_item_fn over a key's NULL-terminated names. */
static const char *name_item(const void *src, size_t i)
{
	return ((const char *const *)src)[i];
}

/* cmdline_item_fn over every key of every table, in order. */
static const char *key_item(const void *src, size_t i)
{
	const struct parser *ps = src;
	for (size_t t = 0; t < ps->ntables; t++) {
		if (i < ps->tables[t].count)
			return ps->tables[t].keys[i].name;
		i -= ps->tables[t].count;
	}
	return NULL;
}

#define report(ps, ...) cmdline_report((ps)->err, (ps)->ctx, __VA_ARGS__)
#define report_list(ps, item, src, ...) cmdline_report_list((ps)->err, (ps)->ctx, item, src, __VA_ARGS__)

static int index_of(const char *const *names, struct word w)
{
	for (int i = 0; names[i]; i++)
		if (word_is(w, names[i]))
			return i;
	return -1;
}

enum number { NUMBER_OK, NUMBER_JUNK, NUMBER_OVERFLOW };

/* Decimal or 0x-hex without sign.  Digits beyond 64 bits are still read
 * to the end, so "99999999999999999999" is a number, only too big. */
static enum number parse_u64(struct word w, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	unsigned base = 10;
	bool overflow = false;

	if (w.n > 2 && w.p[0] == '0' && (w.p[1] == 'x' || w.p[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == w.n)
		return NUMBER_JUNK;
	for (; i < w.n; i++) {
		char c = w.p[i];
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return NUMBER_JUNK;
		if (v > (UINT64_MAX - d) / base)
			overflow = true;
		else
			v = v * base + d;
	}
	*out = v;
	return overflow ? NUMBER_OVERFLOW : NUMBER_OK;
}

static bool set_uint(const struct parser *ps, const struct cmdline_key *k, struct word v, uint32_t *field)
{
	uint64_t x = 0;
	uint64_t min = k->min_in_rule ? 0 : k->min;

	if (k->special && word_is(v, k->special)) {
		*field = 0;
		return true;
	}
	enum number n = parse_u64(v, &x);
	bool in_range = n == NUMBER_OK && ((x >= min && x <= k->max) || (k->or_zero && x == 0));
	if (!in_range) {
		report(ps, "cmdline: %s=%.*s%s: %s; accepted: %sa whole number from %llu to %llu%s%s%s", k->name,
		       SHOWN(v), n == NUMBER_JUNK ? "not a number" : "out of range", k->or_zero && min ? "0 or " : "",
		       (unsigned long long)min, (unsigned long long)k->max, k->special ? " or '" : "",
		       k->special ? k->special : "", k->special ? "'" : "");
		return false;
	}
	if (k->pow2 && (x & (x - 1))) {
		report(ps, "cmdline: %s=%.*s%s: not a power of two; accepted: %llu, %llu, %llu, ... up to %llu", k->name,
		       SHOWN(v), (unsigned long long)min, (unsigned long long)min * 2, (unsigned long long)min * 4,
		       (unsigned long long)k->max);
		return false;
	}
	*field = (uint32_t)x;
	return true;
}

static bool set_value(const struct parser *ps, const struct cmdline_key *k, struct word v, void *config)
{
	uint32_t *field = (uint32_t *)((char *)config + k->offset);

	switch (k->type) {
	case CMDLINE_ENUM: {
		int i = index_of(cmdline_key_names(k), v);
		if (i < 0) {
			report_list(ps, name_item, cmdline_key_names(k), "cmdline: %s=%.*s%s: unknown value; accepted:", k->name,
				    SHOWN(v));
			return false;
		}
		*field = (uint32_t)i;
		return true;
	}
	case CMDLINE_UINT:
		return set_uint(ps, k, v, field);
	case CMDLINE_SET: {
		uint32_t bits = 0;
		size_t start = 0;
		for (size_t i = 0; i <= v.n; i++) {
			if (i < v.n && v.p[i] != ',')
				continue;
			struct word item = { v.p + start, i - start };
			int idx = index_of(cmdline_key_names(k), item);
			if (idx < 0) {
				report_list(ps, name_item, cmdline_key_names(k),
					    "cmdline: %s=%.*s%s: unknown item '%.*s%s'; accepted: a comma-separated list of",
					    k->name, SHOWN(v), SHOWN(item));
				return false;
			}
			bits |= 1u << idx;
			start = i + 1;
		}
		*field = bits;
		return true;
	}
	}
	return false;
}

/* A key named in two tables: the parser finds the first, so the second
 * would never get its value.  The build refuses a workload that does it
 * (tools/check-workloads.py); this holds the kernel to it whatever was
 * linked.  Each such key is one problem. */
static int duplicate_keys(const struct parser *ps)
{
	int errors = 0;

	for (size_t t = 0; t < ps->ntables; t++)
		for (size_t i = 0; i < ps->tables[t].count; i++)
			for (size_t u = 0; u < t; u++)
				for (size_t j = 0; j < ps->tables[u].count; j++)
					if (!strcmp(ps->tables[t].keys[i].name, ps->tables[u].keys[j].name)) {
						report(ps, "cmdline: the key %s= is in two tables, %s's and %s's: the second "
						       "would never get its value; accepted: each key in one table (a "
						       "workload's named WORKLOAD.KEY, docs/workloads.md)",
						       ps->tables[t].keys[i].name,
						       ps->tables[u].owner ? ps->tables[u].owner : "?",
						       ps->tables[t].owner ? ps->tables[t].owner : "?");
						errors++;
					}
	return errors;
}

int cmdline_parse(const char *line, const struct cmdline_table *tables, size_t ntables, uint8_t *state,
		  cmdline_error_fn err, void *ctx)
{
	const struct parser ps = { .tables = tables, .ntables = ntables, .err = err, .ctx = ctx };
	uint8_t local[CMDLINE_MAX_KEYS];
	bool keys_listed = false; /* the accepted keys are on an earlier line */
	int errors = duplicate_keys(&ps);
	const char *p = line ? line : "";

	if (!state)
		state = local;
	memset(state, CMDLINE_DEFAULT, CMDLINE_MAX_KEYS);
	for (;;) {
		while (is_space(*p))
			p++;
		if (!*p)
			break;
		struct word w = { p, 0 };
		while (p[w.n] && !is_space(p[w.n]))
			w.n++;
		p += w.n;

		size_t eq = 0;
		while (eq < w.n && w.p[eq] != '=')
			eq++;
		if (eq == w.n || eq == 0) {
			if (keys_listed)
				report(&ps, "cmdline: '%.*s%s' is not key=value; accepted keys: as listed above", SHOWN(w));
			else
				report_list(&ps, key_item, &ps, "cmdline: '%.*s%s' is not key=value; accepted keys:", SHOWN(w));
			keys_listed = true;
			errors++;
			continue;
		}
		struct word key = { w.p, eq };
		struct word val = { w.p + eq + 1, w.n - eq - 1 };
		const struct cmdline_table *t = NULL;
		size_t ki = 0;
		const struct cmdline_key *k = find_key(&ps, key, &t, &ki);
		if (!k) {
			if (keys_listed)
				report(&ps, "cmdline: unknown key '%.*s%s' in '%.*s%s'; accepted keys: as listed above",
				       SHOWN(key), SHOWN(w));
			else
				report_list(&ps, key_item, &ps, "cmdline: unknown key '%.*s%s' in '%.*s%s'; accepted keys:",
					    SHOWN(key), SHOWN(w));
			keys_listed = true;
			errors++;
			continue;
		}
		if (ki < CMDLINE_MAX_KEYS && state[ki] != CMDLINE_DEFAULT) {
			report(&ps, "cmdline: %s= given more than once; each key may appear once", k->name);
			errors++;
			continue;
		}
		bool ok = set_value(&ps, k, val, t->config);
		if (ki < CMDLINE_MAX_KEYS)
			state[ki] = ok ? CMDLINE_GIVEN : CMDLINE_REJECTED;
		errors += !ok;
	}
	return errors;
}
