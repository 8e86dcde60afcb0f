/*
 * lines.c - source lines from the kernel's DWARF (lines.h), with libdw.
 *
 * Two questions: the line of an address (the line table row covering it,
 * dwarf_getsrc_die: what `addr2line` prints first), and the line that
 * called the code at an address when that code is inlined from another
 * file (a lock's release, an inline function of spinlock.h): going out
 * through the inlined subroutines around it, innermost first, the first
 * DW_AT_call_file / DW_AT_call_line in a file other than the address's
 * own - of the lines `addr2line -i` prints, the first in another file
 * than the first.  An inline function may be an inlined subroutine twice
 * over in its own file (GCC nests one), hence the file test rather than
 * the innermost call.  The chain of inlined subroutines is found by
 * walking down the compilation unit's tree through the DIEs whose ranges
 * hold the address (dwarf_getscopes would go on from the innermost one's
 * abstract origin instead, and miss the outer calls).  File names are printed as the
 * compiler recorded them, less a leading "./": kprof's Makefile compiles
 * from the repository root, so they read kernel/workloads/scenarios/locks.c.
 */
#include "tools/kprof/read/lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kp_lines {
	Dwarf *dwarf;
};

struct kp_lines *kp_lines_open(int fd)
{
	Dwarf *d = dwarf_begin(fd, DWARF_C_READ);
	struct kp_lines *l;

	if (!d)
		return NULL; /* no .debug_info: no lines */
	if (!(l = calloc(1, sizeof(*l)))) {
		dwarf_end(d);
		return NULL;
	}
	l->dwarf = d;
	return l;
}

void kp_lines_close(struct kp_lines *l)
{
	if (!l)
		return;
	dwarf_end(l->dwarf);
	free(l);
}

static void put(char *buf, size_t size, const char *file, int line)
{
	if (!strncmp(file, "./", 2))
		file += 2;
	snprintf(buf, size, "%s:%d", file, line);
}

#define MAX_INLINE 32

/* The inlined subroutines around addr below die, outermost first, into
 * chain[*n..]. */
static void inline_chain(Dwarf_Die *die, uint64_t addr, Dwarf_Die *chain, int *n)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		if (dwarf_haspc(&child, addr) != 1)
			continue;
		if (dwarf_tag(&child) == DW_TAG_inlined_subroutine && *n < MAX_INLINE)
			chain[(*n)++] = child;
		inline_chain(&child, addr, chain, n);
		return;
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The line that called the inlined code at addr from another file than
 * `own` (see the top). */
static bool inline_call_line(Dwarf_Die *cu, uint64_t addr, const char *own, char *buf, size_t size)
{
	Dwarf_Die chain[MAX_INLINE];
	Dwarf_Attribute a;
	Dwarf_Files *files;
	Dwarf_Word file, line;
	size_t nfiles;
	const char *name;
	int n = 0;

	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
		return false;
	inline_chain(cu, addr, chain, &n);
	while (n-- > 0) { /* innermost first */
		if (dwarf_formudata(dwarf_attr(&chain[n], DW_AT_call_file, &a), &file) != 0 ||
		    dwarf_formudata(dwarf_attr(&chain[n], DW_AT_call_line, &a), &line) != 0 || file >= nfiles ||
		    !(name = dwarf_filesrc(files, file, NULL, NULL)) || line == 0 || !strcmp(name, own))
			continue;
		put(buf, size, name, (int)line);
		return true;
	}
	return false;
}

bool kp_lines_lookup(const struct kp_lines *l, uint64_t addr, bool caller, char *buf, size_t size)
{
	Dwarf_Die cu;
	Dwarf_Line *line;
	const char *file;
	int n = 0;

	if (!l || !dwarf_addrdie(l->dwarf, addr, &cu) || !(line = dwarf_getsrc_die(&cu, addr)))
		return false;
	if (!(file = dwarf_linesrc(line, NULL, NULL)) || dwarf_lineno(line, &n) != 0 || n <= 0)
		return false;
	if (caller && inline_call_line(&cu, addr, file, buf, size))
		return true;
	put(buf, size, file, n);
	return true;
}
