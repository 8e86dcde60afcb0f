/*
 * warnings.h - collect the warning lines a parser reports, for tests.
 * Header-only: each test program gets its own copy of the store.
 */
#ifndef KPROF_TEST_WARNINGS_H
#define KPROF_TEST_WARNINGS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static char warnings[80][256];
static unsigned nwarnings;

static inline void collect(const char *msg)
{
	if (nwarnings < sizeof(warnings) / sizeof(warnings[0]))
		snprintf(warnings[nwarnings], sizeof(warnings[0]), "%s", msg);
	nwarnings++;
}

/* True if some warning contains needle. */
static inline bool warned(const char *needle)
{
	for (unsigned i = 0; i < nwarnings && i < sizeof(warnings) / sizeof(warnings[0]); i++)
		if (strstr(warnings[i], needle))
			return true;
	return false;
}

#endif
