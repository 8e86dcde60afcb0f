/*
 * symbols.c - the kernel ELF's function symbols (see symbols.h), read with
 * elfutils' libelf.
 *
 * From .symtab (else .dynsym) it keeps STT_FUNC symbols and the assembly
 * labels (STT_NOTYPE, local or global) that lie inside an executable
 * section, sorts them by address and answers lookups by binary search.  A
 * symbol without a size extends to the next symbol (or its section's end).
 * Of several symbols at one address one is kept: a function before a
 * label, global before local, a name without a leading '_' before one
 * with, then the name in byte order - so the choice never depends on the
 * order of the symbol table.
 *
 * The kernel's identity: its .kprof_build_id section holds the build id
 * string the kernel also puts in the run header (KPROF_BUILD_ID, `git
 * describe --dirty`), so kp_symbols_for can refuse the ELF of another
 * build (build_id.c).  Source lines come from its DWARF (lines.c).
 */
#include "tools/kprof/elf/symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/kprof/elf/build_id.h"
#include "tools/kprof/read/lines.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

struct kp_sym {
	uint64_t start;
	uint64_t size;   /* from the symbol table, 0 if none                 */
	uint64_t end;    /* effective end (exclusive)                        */
	uint64_t limit;  /* end of the symbol's section                      */
	char *name;
	int func;        /* STT_FUNC                                         */
	int global;      /* STB_GLOBAL or STB_WEAK                           */
};

struct kp_symbols {
	struct kp_sym *syms;
	size_t n, cap;
	int fd;                  /* the ELF, open for the line tables        */
	struct kp_lines *lines;  /* NULL without DWARF                       */
	char build_id[KP_BUILD_ID_MAX + 1]; /* .kprof_build_id, "" if none  */
	char *warning;           /* --force-kernel with another build's ELF  */
};

static void add_sym(struct kp_symbols *s, const struct kp_sym *k)
{
	s->syms = kp_grow(s->syms, &s->cap, s->n + 1, sizeof(*s->syms));
	s->syms[s->n] = *k;
	s->syms[s->n++].name = kp_xstrdup(k->name);
}

/* Lower rank is preferred among symbols at the same address. */
static int rank(const struct kp_sym *k)
{
	return (k->func ? 0 : 4) + (k->global ? 0 : 2) + (k->name[0] == '_' ? 1 : 0);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct kp_sym *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (rank(x) != rank(y))
		return rank(x) - rank(y);
	return strcmp(x->name, y->name);
}

/* Is this symbol a function or a label in an executable section?  Sets
 * *limit to the end of its section. */
static int wanted(Elf *elf, const GElf_Sym *sym, uint64_t *limit)
{
	int type = GELF_ST_TYPE(sym->st_info);
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (type != STT_FUNC && type != STT_NOTYPE)
		return 0;
	if (sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return 0;
	if (!(scn = elf_getscn(elf, sym->st_shndx)) || !gelf_getshdr(scn, &sh))
		return 0;
	*limit = sh.sh_addr + sh.sh_size;
	if (type == STT_FUNC)
		return 1;
	/* Labels: only inside an executable section (not linker markers
	 * such as the end of .text, nor data labels). */
	return (sh.sh_flags & SHF_EXECINSTR) && sym->st_value >= sh.sh_addr && sym->st_value < *limit;
}

static void read_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct kp_symbols *s)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < count; i++) {
		GElf_Sym sym;
		struct kp_sym k = { 0 };
		const char *name;
		if (!gelf_getsym(data, (int)i, &sym) || !wanted(elf, &sym, &k.limit))
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !name[0])
			continue;
		k.start = sym.st_value;
		k.size = sym.st_size;
		k.name = (char *)name;
		k.func = GELF_ST_TYPE(sym.st_info) == STT_FUNC;
		k.global = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
		add_sym(s, &k);
	}
}

/* The symbol table section: .symtab, else .dynsym; NULL if neither. */
static Elf_Scn *find_table(Elf *elf, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh, dynsh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			*out = sh;
			return scn;
		}
		if (sh.sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dynsh = sh;
		}
	}
	if (dyn)
		*out = dynsh;
	return dyn;
}

/* Sort, drop duplicates at one address, give sizeless symbols an end. */
static void finish(struct kp_symbols *s)
{
	size_t out = 0;

	qsort(s->syms, s->n, sizeof(*s->syms), cmp_sym);
	for (size_t i = 0; i < s->n; i++) {
		if (out && s->syms[out - 1].start == s->syms[i].start) {
			free(s->syms[i].name);
			continue;
		}
		s->syms[out++] = s->syms[i];
	}
	s->n = out;
	for (size_t i = 0; i < s->n; i++) {
		struct kp_sym *k = &s->syms[i];
		if (k->size) {
			k->end = k->start + k->size;
			continue;
		}
		k->end = k->limit > k->start ? k->limit : k->start + 1;
		if (i + 1 < s->n && s->syms[i + 1].start < k->end)
			k->end = s->syms[i + 1].start;
	}
}

static struct kp_symbols *fail(struct kp_symbols *s, char *err, size_t errlen, const char *path, const char *why)
{
	snprintf(err, errlen, "%s: %s", path, why);
	kp_symbols_close(s);
	return NULL;
}

static struct kp_symbols *load(Elf *elf, const char *path, char *err, size_t errlen)
{
	struct kp_symbols *s = kp_xcalloc(1, sizeof(*s));
	GElf_Shdr sh;
	Elf_Scn *scn;

	s->fd = -1;
	if (elf_kind(elf) != ELF_K_ELF)
		return fail(s, err, errlen, path, "not an ELF file");
	if (!(scn = find_table(elf, &sh)))
		return fail(s, err, errlen, path, "no symbol table (.symtab or .dynsym): stripped? give the unstripped kernel ELF");
	read_table(elf, scn, &sh, s);
	if (!s->n)
		return fail(s, err, errlen, path, "the symbol table holds no function symbols");
	finish(s);
	kp_elf_build_id(elf, s->build_id, sizeof(s->build_id));
	return s;
}

struct kp_symbols *kp_symbols_open(const char *path, char *err, size_t errlen)
{
	struct kp_symbols *s;
	struct stat st;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
		return NULL;
	}
	if ((fd = open(path, O_RDONLY)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a file%s", path, S_ISDIR(st.st_mode) ? " (a directory)" : "");
		close(fd);
		return NULL;
	}
	if (!(elf = elf_begin(fd, ELF_C_READ, NULL))) {
		snprintf(err, errlen, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
		close(fd);
		return NULL;
	}
	s = load(elf, path, err, errlen);
	elf_end(elf);
	if (s) {
		s->fd = fd;
		s->lines = kp_lines_open(fd);
	} else {
		close(fd);
	}
	return s;
}

bool kp_symbols_for(const char *kernel, struct kp_symbols **syms)
{
	char err[512] = "";

	*syms = NULL;
	if (!kernel)
		return true;
	*syms = kp_symbols_open(kernel, err, sizeof(err));
	if (!*syms) {
		fprintf(stderr, "kprof: --kernel %s\n", err[0] ? err : kernel);
		return false;
	}
	if (!kp_build_id_check(kernel, (*syms)->build_id, &(*syms)->warning)) {
		kp_symbols_close(*syms);
		*syms = NULL;
		return false;
	}
	return true;
}

const char *kp_symbols_warning(const struct kp_symbols *s)
{
	return s ? s->warning : NULL;
}

bool kp_symbols_site_line(const struct kp_symbols *s, uint64_t addr, bool return_address, char *buf, size_t size)
{
	if (!s)
		return false;
	if (return_address) /* the call instruction ends just before it */
		return kp_lines_lookup(s->lines, addr - 1, false, buf, size);
	return kp_lines_lookup(s->lines, addr, true, buf, size);
}

void kp_symbols_close(struct kp_symbols *s)
{
	if (!s)
		return;
	kp_lines_close(s->lines);
	if (s->fd >= 0)
		close(s->fd);
	free(s->warning);
	for (size_t i = 0; i < s->n; i++)
		free(s->syms[i].name);
	free(s->syms);
	free(s);
}

/* The last symbol starting at or before addr, or NULL. */
static const struct kp_sym *floor_sym(const struct kp_symbols *s, uint64_t addr)
{
	size_t lo = kp_bound_u64(s->syms, s->n, sizeof(*s->syms), offsetof(struct kp_sym, start), addr, true);

	return lo ? &s->syms[lo - 1] : NULL;
}

bool kp_symbols_lookup(const struct kp_symbols *s, uint64_t addr, const char **name, uint64_t *start,
		       uint64_t *size)
{
	const struct kp_sym *k = s ? floor_sym(s, addr) : NULL;

	if (!k || addr >= k->end)
		return false;
	if (name)
		*name = k->name;
	if (start)
		*start = k->start;
	if (size)
		*size = k->size;
	return true;
}

const char *kp_symbols_format(const struct kp_symbols *s, uint64_t addr, char *buf, size_t size)
{
	const char *name;
	uint64_t start;

	if (!kp_symbols_lookup(s, addr, &name, &start, NULL))
		snprintf(buf, size, "0x%" PRIx64, addr);
	else if (addr == start)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%s+0x%" PRIx64, name, addr - start);
	return buf;
}

size_t kp_symbols_count(const struct kp_symbols *s)
{
	return s ? s->n : 0;
}

const char *kp_symbols_at(const struct kp_symbols *s, size_t i, uint64_t *start)
{
	if (start)
		*start = s->syms[i].start;
	return s->syms[i].name;
}
