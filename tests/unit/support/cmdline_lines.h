/*
 * cmdline_lines.h - the lines the command line's problems put on the
 * console (every line the error callback gets, in order), and the check
 * of a list of what is accepted in them: every item whole on exactly one
 * line, in table order, no line longer than the console writes whole.
 * For the parser's tests (test_cmdline.c, test_cmdline_keys.c); included
 * by one test program each (its definitions are static).
 */
#ifndef KPROF_TEST_CMDLINE_LINES_H
#define KPROF_TEST_CMDLINE_LINES_H

#include <stdio.h>
#include <string.h>

#include "kernel/console/console.h"
#include "kernel/init/cmdline.h"

#define LINES_MAX 2048

static struct {
	int problems;                              /* CMDLINE_PROBLEM lines    */
	size_t n;                                  /* lines seen               */
	size_t len[LINES_MAX];                     /* each one's whole length  */
	enum cmdline_line kind[LINES_MAX];
	char text[LINES_MAX][CMDLINE_LINE_MAX + 2]; /* room to see one too long */
} lines;

static void lines_reset(void)
{
	memset(&lines, 0, sizeof(lines));
}

static void lines_collect(void *ctx, const char *line, enum cmdline_line kind)
{
	(void)ctx;
	if (lines.n < LINES_MAX) {
		lines.len[lines.n] = strlen(line);
		lines.kind[lines.n] = kind;
		snprintf(lines.text[lines.n], sizeof(lines.text[0]), "%s", line);
	}
	lines.n++;
	lines.problems += kind == CMDLINE_PROBLEM;
}

/* Every line fits the console: the callback's limit, and with its '\n'
 * one kprintf (kernel/init/main.c prints each so). */
static void lines_check_lengths(void)
{
	assert_true(lines.n <= LINES_MAX);
	for (size_t i = 0; i < lines.n; i++) {
		assert_true(lines.len[i] <= CMDLINE_LINE_MAX);
		assert_true(lines.len[i] + 1 <= KPRINTF_MAX);
	}
}

/* Line `first` is a problem starting with `head` and ending in a list
 * that goes on over the CMDLINE_MORE lines after it: the list must be
 * exactly items[0..count) in order, each line no wider than CMDLINE_WRAP
 * unless it holds one item only.  Returns the index of the next line. */
static size_t lines_check_list(size_t first, const char *head, const char *const *items, size_t count)
{
	static const char indent[] = "cmdline:   ";
	size_t next = 0; /* items matched so far */

	assert_true(first < lines.n);
	assert_int_equal(lines.kind[first], CMDLINE_PROBLEM);
	assert_memory_equal(lines.text[first], head, strlen(head));
	size_t i = first;
	do {
		const char *p = lines.text[i] + (i == first ? strlen(head) : sizeof(indent) - 1);
		if (i != first)
			assert_memory_equal(lines.text[i], indent, sizeof(indent) - 1);
		unsigned on_line = 0;
		while (*p) {
			while (*p == ' ')
				p++;
			size_t n = strcspn(p, ",");
			assert_true(next < count);
			if (n != strlen(items[next]) || memcmp(p, items[next], n))
				fail_msg("line %zu: item %zu is '%.*s', expected '%s'", i, next, (int)n, p, items[next]);
			next++;
			on_line++;
			p += n;
			if (*p == ',')
				p++;
		}
		if (i != first)
			assert_true(on_line >= 1);
		if (on_line > 1 || (i == first && on_line == 1)) /* a wide item may stand alone */
			assert_true(lines.len[i] <= CMDLINE_WRAP);
		i++;
	} while (i < lines.n && lines.kind[i] == CMDLINE_MORE);
	assert_int_equal(next, count);
	return i;
}

#endif /* KPROF_TEST_CMDLINE_LINES_H */
