/*
 * pdb_symbols.c - the kernel ELF's functions as PDB publics (see
 * pdb_symbols.h), read with elfutils' libelf.
 *
 * The image.  The kernel is linked at KPROF_KERNEL_LINK_VA and loaded
 * from there on (boot/bootinfo.h); its 32-bit entry code (.boot32) runs
 * identity-mapped at KPROF_KERNEL_LINK_PA, below every address a sample
 * or stack can hold once the kernel runs.  The image is therefore
 * [KPROF_KERNEL_LINK_VA, end of the last PT_LOAD segment above it), its
 * size rounded up to a 4 KiB page (kp_elf_image_of, elf/elf_image.c): the
 * range the ETL's image events give.
 *
 * The publics.  Every STT_FUNC symbol, and every label (STT_NOTYPE) that
 * lies inside an executable section (the assembly entry stubs), whose
 * address is in the image, at RVA = address - image base.  The first page
 * of a PE holds its headers, so a symbol there (none in kprof's kernel,
 * whose .text starts at +0x9000) cannot be placed and is counted as
 * outside.  PDB publics are one namespace while ELF local symbols are not:
 * a name that several symbols at different addresses carry (static
 * functions of the same name in several files) becomes "name[file.c]",
 * with the file from the STT_FILE symbol that precedes the local symbols of
 * each file in .symtab (or "name@RVA" for a global or a file-less one).
 * Names that an assembler cannot quote (a '"', a '\\', a control byte)
 * are left out and counted as outside.
 */
#include "tools/kprof/export/etl/pdb_symbols.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/bootinfo.h"
#include "tools/kprof/elf/elf_image.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

#define PE_HEADER_PAGE 0x1000u

/* A candidate before names are settled. */
struct cand {
	uint32_t rva;
	const char *name;            /* in the ELF's string table              */
	const char *file;            /* STT_FILE before it, NULL for globals   */
};

static bool quotable(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p == '"' || *p == '\\' || *p < 0x20 || *p == 0x7F)
			return false;
	return true;
}

static int cmp_cand_name(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : kp_cmp_u64(x->rva, y->rva);
}

static int cmp_public(const void *a, const void *b)
{
	const struct kp_pdb_public *x = a, *y = b;
	int c = kp_cmp_u64(x->rva, y->rva);
	return c ? c : strcmp(x->name, y->name);
}

/* Is the symbol a function, or a label inside an executable section? */
static bool is_code(Elf *elf, const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (type != STT_FUNC && type != STT_NOTYPE)
		return false;
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return false;
	if (type == STT_FUNC)
		return true;
	if (!(scn = elf_getscn(elf, sym->st_shndx)) || !gelf_getshdr(scn, &sh))
		return false;
	return (sh.sh_flags & SHF_EXECINSTR) && sym->st_value >= sh.sh_addr && sym->st_value < sh.sh_addr + sh.sh_size;
}

/* Every code symbol of the image, with the file of the local ones. */
static struct cand *collect(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct kp_pdb_symbols *s, size_t *nc)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0, cap = 0;
	struct cand *c = NULL;
	const char *file = NULL;

	*nc = 0;
	for (size_t i = 0; data && i < count; i++) {
		GElf_Sym sym;
		const char *name;
		if (!gelf_getsym(data, (int)i, &sym) || !(name = elf_strptr(elf, sh->sh_link, sym.st_name)))
			continue;
		if (GELF_ST_TYPE(sym.st_info) == STT_FILE) {
			file = name[0] ? name : NULL;
			continue;
		}
		if (!name[0] || !is_code(elf, &sym))
			continue;
		if (sym.st_value < s->image_base + PE_HEADER_PAGE || sym.st_value >= s->image_base + s->image_size ||
		    !quotable(name)) {
			s->outside++;
			continue;
		}
		c = kp_grow(c, &cap, *nc + 1, sizeof(*c));
		c[(*nc)++] = (struct cand){ (uint32_t)(sym.st_value - s->image_base), name,
					    GELF_ST_BIND(sym.st_info) == STB_LOCAL ? file : NULL };
	}
	return c;
}

static void add_public(struct kp_pdb_symbols *s, uint32_t rva, char *name)
{
	s->pub = kp_grow(s->pub, &s->cap, s->n + 1, sizeof(*s->pub));
	s->pub[s->n++] = (struct kp_pdb_public){ rva, name };
}

/* Settle the names: one public per (name, rva); a name at several RVAs
 * is qualified by its file (or its RVA). */
static void name_publics(struct kp_pdb_symbols *s, struct cand *c, size_t nc)
{
	kp_sort(c, nc, sizeof(*c), cmp_cand_name);
	for (size_t i = 0; i < nc;) {
		size_t j = i + 1;
		bool several = false;
		while (j < nc && !strcmp(c[j].name, c[i].name)) {
			several |= c[j].rva != c[i].rva;
			j++;
		}
		for (size_t k = i; k < j; k++) {
			char buf[1024];
			if (k > i && c[k].rva == c[k - 1].rva)
				continue; /* the same symbol twice */
			if (!several)
				add_public(s, c[k].rva, kp_xstrdup(c[k].name));
			else if (c[k].file && quotable(c[k].file))
				snprintf(buf, sizeof(buf), "%s[%s]", c[k].name, c[k].file);
			else
				snprintf(buf, sizeof(buf), "%s@0x%x", c[k].name, c[k].rva);
			if (several)
				add_public(s, c[k].rva, kp_xstrdup(buf));
		}
		i = j;
	}
	kp_sort(s->pub, s->n, sizeof(*s->pub), cmp_public);
}

static Elf_Scn *symtab(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == SHT_SYMTAB)
			return scn;
	return NULL;
}

bool kp_pdb_symbols_read(const char *path, struct kp_pdb_symbols *s, char *why, size_t whylen)
{
	int fd;
	Elf *elf = NULL;
	Elf_Scn *scn;
	GElf_Shdr sh;
	struct cand *c = NULL;
	size_t nc = 0;
	uint64_t size = 0;
	bool ok = false;

	*s = (struct kp_pdb_symbols){ .image_base = KPROF_KERNEL_LINK_VA };
	elf_version(EV_CURRENT);
	if ((fd = open(path, O_RDONLY)) < 0) {
		snprintf(why, whylen, "cannot open %s", path);
		return false;
	}
	if (!(elf = elf_begin(fd, ELF_C_READ, NULL)) || elf_kind(elf) != ELF_K_ELF)
		snprintf(why, whylen, "%s is not an ELF file", path);
	else if (!kp_elf_image_of(elf, &s->image_base, &size))
		snprintf(why, whylen, "%s has no PT_LOAD segment at or above 0x%llx (KPROF_KERNEL_LINK_VA)", path,
			 (unsigned long long)s->image_base);
	else if (s->image_size = (uint32_t)size, !(scn = symtab(elf, &sh)))
		snprintf(why, whylen, "%s has no symbol table (.symtab)", path);
	else if (c = collect(elf, scn, &sh, s, &nc), !nc)
		snprintf(why, whylen, "%s has no function in its image", path);
	else {
		name_publics(s, c, nc);
		ok = true;
	}
	free(c); /* its names point into the ELF: settled names are copies */
	if (elf)
		elf_end(elf);
	close(fd);
	if (!ok)
		kp_pdb_symbols_free(s);
	return ok;
}

void kp_pdb_symbols_free(struct kp_pdb_symbols *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->pub[i].name);
	free(s->pub);
	s->pub = NULL;
	s->n = s->cap = 0;
}
