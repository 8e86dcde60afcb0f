/*
 * cmdline.c - the command-line parser (see cmdline.h for the syntax).
 *
 * Pure: no allocation, no output except through the error callback, so the
 * host unit tests run it as is.  Every word is checked even after an error,
 * so the user sees all problems at once.
 */
#include "kernel/init/cmdline.h"

#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"

#include <stdarg.h>
#include <stdbool.h>

#define CMDLINE_WORD_MAX 256 /* longest key=value word reported verbatim */
#define CMDLINE_MAX_KEYS 128 /* duplicate detection covers this many keys  */

struct word {
	const char *p; /* start */
	size_t n;      /* length */
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const struct cmdline_key *find_key(struct word k)
{
	for (size_t i = 0; i < cmdline_key_count; i++)
		if (strlen(cmdline_keys[i].name) == k.n && strncmp(cmdline_keys[i].name, k.p, k.n) == 0)
			return &cmdline_keys[i];
	return NULL;
}

static bool word_is(struct word w, const char *s)
{
	return strlen(s) == w.n && strncmp(s, w.p, w.n) == 0;
}

/* "a, b, c" for the names of a key (truncated to fit). */
static void list_names(char *buf, size_t size, const char *const *names)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; names[i] && len < size; i++)
		len += (size_t)ksnprintf(buf + len, size - len, "%s%s", i ? ", " : "", names[i]);
}

static void list_keys(char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < cmdline_key_count && len < size; i++)
		len += (size_t)ksnprintf(buf + len, size - len, "%s%s", i ? ", " : "", cmdline_keys[i].name);
}

static void report(cmdline_error_fn err, void *ctx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void report(cmdline_error_fn err, void *ctx, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err)
		err(ctx, msg);
}

static int index_of(const char *const *names, struct word w)
{
	for (int i = 0; names[i]; i++)
		if (word_is(w, names[i]))
			return i;
	return -1;
}

/* Decimal or 0x-hex without sign; false on junk or overflow. */
static bool parse_u64(struct word w, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	unsigned base = 10;

	if (w.n > 2 && w.p[0] == '0' && (w.p[1] == 'x' || w.p[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == w.n)
		return false;
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
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

static bool set_value(const struct cmdline_key *k, struct word v, struct kconfig *cfg, cmdline_error_fn err,
		      void *ctx)
{
	uint32_t *field = (uint32_t *)((char *)cfg + k->offset);
	char accepted[256];

	switch (k->type) {
	case CMDLINE_ENUM: {
		int i = index_of(k->names, v);
		if (i < 0) {
			list_names(accepted, sizeof(accepted), k->names);
			report(err, ctx, "cmdline: %s=%.*s: unknown value; accepted: %s", k->name, (int)v.n, v.p,
			       accepted);
			return false;
		}
		*field = (uint32_t)i;
		return true;
	}
	case CMDLINE_UINT: {
		uint64_t x;
		if (k->special && word_is(v, k->special)) {
			*field = 0;
			return true;
		}
		if (!parse_u64(v, &x) || x < k->min || x > k->max) {
			report(err, ctx, "cmdline: %s=%.*s: %s; accepted: a whole number from %llu to %llu%s%s%s",
			       k->name, (int)v.n, v.p, parse_u64(v, &x) ? "out of range" : "not a number",
			       (unsigned long long)k->min, (unsigned long long)k->max, k->special ? " or '" : "",
			       k->special ? k->special : "", k->special ? "'" : "");
			return false;
		}
		if (k->pow2 && (x & (x - 1))) {
			report(err, ctx, "cmdline: %s=%.*s: not a power of two; accepted: 4, 8, 16, ... up to %llu",
			       k->name, (int)v.n, v.p, (unsigned long long)k->max);
			return false;
		}
		*field = (uint32_t)x;
		return true;
	}
	case CMDLINE_SET: {
		uint32_t bits = 0;
		size_t start = 0;
		for (size_t i = 0; i <= v.n; i++) {
			if (i < v.n && v.p[i] != ',')
				continue;
			struct word item = { v.p + start, i - start };
			int idx = index_of(k->names, item);
			if (idx < 0) {
				list_names(accepted, sizeof(accepted), k->names);
				report(err, ctx, "cmdline: %s=%.*s: unknown item '%.*s'; accepted: a comma-separated list of %s",
				       k->name, (int)v.n, v.p, (int)item.n, item.p, accepted);
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

int cmdline_parse(const char *line, struct kconfig *cfg, cmdline_error_fn err, void *ctx)
{
	bool seen[CMDLINE_MAX_KEYS] = { false };
	char accepted[512];
	int errors = 0;
	const char *p = line ? line : "";

	for (;;) {
		while (is_space(*p))
			p++;
		if (!*p)
			break;
		struct word w = { p, 0 };
		while (p[w.n] && !is_space(p[w.n]))
			w.n++;
		p += w.n;

		int shown = (int)MIN(w.n, (size_t)CMDLINE_WORD_MAX);
		size_t eq = 0;
		while (eq < w.n && w.p[eq] != '=')
			eq++;
		if (eq == w.n || eq == 0) {
			list_keys(accepted, sizeof(accepted));
			report(err, ctx, "cmdline: '%.*s' is not key=value; accepted keys: %s", shown, w.p, accepted);
			errors++;
			continue;
		}
		struct word key = { w.p, eq };
		struct word val = { w.p + eq + 1, w.n - eq - 1 };
		const struct cmdline_key *k = find_key(key);
		if (!k) {
			list_keys(accepted, sizeof(accepted));
			report(err, ctx, "cmdline: unknown key '%.*s' in '%.*s'; accepted keys: %s", (int)key.n, key.p,
			       shown, w.p, accepted);
			errors++;
			continue;
		}
		size_t ki = (size_t)(k - cmdline_keys);
		if (ki < CMDLINE_MAX_KEYS && seen[ki]) {
			report(err, ctx, "cmdline: %s= given more than once; each key may appear once", k->name);
			errors++;
			continue;
		}
		if (ki < CMDLINE_MAX_KEYS)
			seen[ki] = true;
		if (!set_value(k, val, cfg, err, ctx))
			errors++;
	}
	return errors;
}
