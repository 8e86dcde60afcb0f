/*
 * test_cmdline_doc.c - docs/cmdline.md is exactly what tools/cmdline-doc/cmdline_doc.c
 * writes from the key tables and rules: a key, range, default or rule
 * changed without `make docs` fails here (so in make unit-tests and make
 * check).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tools/cmdline-doc/cmdline_doc.h"

#ifndef KPROF_CMDLINE_DOC
#define KPROF_CMDLINE_DOC "docs/cmdline.md"
#endif

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	*len = n;
	return buf;
}

static void test_doc_matches_tables(void **state)
{
	(void)state;
	char *want = NULL;
	size_t want_len = 0, have_len = 0;
	FILE *gen = open_memstream(&want, &want_len);
	assert_non_null(gen);
	cmdline_doc_write(gen);
	assert_int_equal(fclose(gen), 0);

	FILE *f = fopen(KPROF_CMDLINE_DOC, "r");
	if (!f)
		fail_msg("cannot read %s: run `make docs`", KPROF_CMDLINE_DOC);
	char *have = read_all(f, &have_len);
	fclose(f);
	assert_non_null(have);

	size_t i = 0;
	while (i < want_len && i < have_len && want[i] == have[i])
		i++;
	if (i != want_len || i != have_len) {
		size_t line = 1;
		for (size_t j = 0; j < i; j++)
			line += want[j] == '\n';
		fail_msg("%s differs from what the key tables generate from line %zu on: run `make docs` (tools/cmdline-doc/cmdline_doc.c)",
			 KPROF_CMDLINE_DOC, line);
	}
	free(want);
	free(have);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doc_matches_tables),
	};
	return cmocka_run_group_tests_name("cmdline_doc", tests, NULL, NULL);
}
