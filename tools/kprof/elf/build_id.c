/*
 * build_id.c - checking --kernel against the log's build id (build_id.h).
 *
 * The ids are compared as strings, byte for byte: the run header's field
 * holds at most KP_BUILD_ID_MAX bytes of the kernel's id, so the ELF's is
 * cut the same way first.  Two builds from one commit with the same
 * uncommitted changes share an id ("<commit>-dirty"): the check catches
 * another commit, another tree state that git describes differently, and
 * any file that is not a kprof kernel; it cannot tell apart two builds
 * of one dirty tree.
 */
#include "tools/kprof/elf/build_id.h"
#include "tools/kprof/util/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	bool set;                  /* kp_build_id_expect was called          */
	bool have;                 /* the log has a run header               */
	char id[KP_BUILD_ID_MAX + 1];
	bool force;                /* --force-kernel                         */
} expect;

void kp_elf_build_id(Elf *elf, char *buf, size_t size)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	buf[0] = 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, KP_BUILD_ID_SECTION) || sh.sh_type == SHT_NOBITS)
			continue;
		if ((d = elf_getdata(scn, NULL)) && d->d_buf && d->d_size)
			snprintf(buf, size, "%.*s", (int)strnlen(d->d_buf, d->d_size), (const char *)d->d_buf);
		return;
	}
}

void kp_build_id_expect(const char *log_build_id, bool force)
{
	expect.set = true;
	expect.have = log_build_id && log_build_id[0]; /* an empty id says nothing */
	snprintf(expect.id, sizeof(expect.id), "%s", log_build_id ? log_build_id : "");
	expect.force = force;
}

bool kp_build_id_check(const char *kernel, const char *elf_id, char **warning)
{
	char cut[KP_BUILD_ID_MAX + 1], text[1024];

	*warning = NULL;
	if (!expect.set)
		return true; /* a caller that reads an ELF without a log */
	if (!expect.have) {
		fprintf(stderr, "kprof: warning: the log has no run header (or no build id in it), so nothing says "
				"which kernel recorded it: --kernel %s (build %s) is taken on trust\n", kernel,
			elf_id[0] ? elf_id : "unknown");
		return true;
	}
	snprintf(cut, sizeof(cut), "%s", elf_id);
	if (elf_id[0] && !strcmp(cut, expect.id))
		return true;
	/* Both ids are bytes of files: printed with their control characters escaped. */
	char log_id[4 * KP_BUILD_ID_MAX + 1], file_id[4 * KP_BUILD_ID_MAX + 1];
	kp_printable(log_id, sizeof(log_id), expect.id);
	kp_printable(file_id, sizeof(file_id), cut);
	snprintf(text, sizeof(text), "--kernel %s is not the kernel that recorded the log: its build id is %s%s%s, the "
		 "log's is \"%s\"", kernel, elf_id[0] ? "\"" : "", elf_id[0] ? file_id : "unknown (no " KP_BUILD_ID_SECTION
		 " section: not a kprof kernel, or one built before kprof named its builds)", elf_id[0] ? "\"" : "",
		 log_id);
	if (!expect.force) {
		fprintf(stderr, "kprof: %s; give the kernel.elf of that build (its functions are elsewhere in "
				"another), or --force-kernel to use this one anyway\n", text);
		return false;
	}
	fprintf(stderr, "kprof: WARNING: %s; used anyway (--force-kernel): FUNCTION NAMES MAY BE WRONG\n", text);
	size_t n = strlen(text) + 64;
	*warning = malloc(n);
	if (*warning)
		snprintf(*warning, n, "WARNING: %s; function names may be wrong", text);
	return true;
}
