/*
 * pe_ident.c - what ties a PE image to its PDB (see pdb.h): ImageBase and
 * SizeOfImage from the PE32+ optional header, TimeDateStamp from the file
 * header, and the GUID, age and PDB path of the CodeView RSDS record that
 * the debug directory (data directory 6, IMAGE_DEBUG_TYPE_CODEVIEW 2)
 * points at.  These are what xperf puts into KernelTraceControl's ImageID
 * and DbgID_RSDS events when it merges a trace, read here the same way
 * from the stand-in image that lld-link wrote.  Layouts: the PE/COFF
 * specification (Microsoft, "PE Format").
 */
#include "tools/kprof/export/etl/pdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

#define PE_OPT_MAGIC_PE32PLUS 0x20Bu
#define PE_DIR_DEBUG 6u
#define PE_DEBUG_TYPE_CODEVIEW 2u
#define PE_SECTION_HEADER_SIZE 40u
#define PE_DEBUG_DIR_SIZE 28u

struct pe {
	const uint8_t *d;
	size_t n;
};

static bool u16_at(const struct pe *p, size_t off, uint32_t *v)
{
	if (off + 2 > p->n)
		return false;
	*v = (uint32_t)p->d[off] | (uint32_t)p->d[off + 1] << 8;
	return true;
}

static bool u32_at(const struct pe *p, size_t off, uint32_t *v)
{
	if (off + 4 > p->n)
		return false;
	memcpy(v, p->d + off, 4); /* x86-64 host: little-endian */
	return true;
}

/* The file offset of an RVA, through the section table. */
static bool rva_to_off(const struct pe *p, size_t sections, uint32_t nsec, uint32_t rva, size_t *off)
{
	for (uint32_t i = 0; i < nsec; i++) {
		size_t s = sections + (size_t)i * PE_SECTION_HEADER_SIZE;
		uint32_t vsize, va, rawsize, raw;
		if (!u32_at(p, s + 8, &vsize) || !u32_at(p, s + 12, &va) || !u32_at(p, s + 16, &rawsize) ||
		    !u32_at(p, s + 20, &raw))
			return false;
		if (rva >= va && rva - va < rawsize) {
			*off = (size_t)raw + (rva - va);
			return true;
		}
	}
	return false;
}

/* The RSDS record among the debug directory's entries. */
static bool find_rsds(const struct pe *p, size_t dir, uint32_t dirsize, struct kp_pdb_identity *id)
{
	for (uint32_t e = 0; e + PE_DEBUG_DIR_SIZE <= dirsize; e += PE_DEBUG_DIR_SIZE) {
		uint32_t type, size, raw;
		if (!u32_at(p, dir + e + 12, &type) || !u32_at(p, dir + e + 16, &size) ||
		    !u32_at(p, dir + e + 24, &raw))
			return false;
		if (type != PE_DEBUG_TYPE_CODEVIEW || size < 24 + 1 || (size_t)raw + size > p->n ||
		    memcmp(p->d + raw, "RSDS", 4))
			continue;
		memcpy(id->guid, p->d + raw + 4, 16);
		u32_at(p, raw + 20, &id->age);
		size_t len = strnlen((const char *)p->d + raw + 24, size - 24);
		if (len == size - 24 || len >= sizeof(id->pdb_name))
			return false; /* no NUL in the record, or too long */
		memcpy(id->pdb_name, p->d + raw + 24, len + 1);
		return true;
	}
	return false;
}

static const char *parse(const struct pe *p, struct kp_pdb_identity *id)
{
	uint32_t lfanew, sig, nsec, optsize, magic, ndirs, dbg_rva, dbg_size;
	size_t opt, dir;

	if (p->n < 0x40 || memcmp(p->d, "MZ", 2) || !u32_at(p, 0x3C, &lfanew) || !u32_at(p, lfanew, &sig) ||
	    sig != 0x00004550)
		return "no PE signature";
	opt = (size_t)lfanew + 24;
	if (!u16_at(p, lfanew + 6, &nsec) || !u32_at(p, lfanew + 8, &id->timestamp) ||
	    !u16_at(p, lfanew + 20, &optsize) || !u16_at(p, opt, &magic) || magic != PE_OPT_MAGIC_PE32PLUS)
		return "not a PE32+ image";
	if (opt + 32 > p->n || !u32_at(p, opt + 56, &id->image_size) || !u32_at(p, opt + KP_PE_OPT_CHECKSUM, &id->checksum) ||
	    !u32_at(p, opt + 108, &ndirs))
		return "a cut optional header";
	memcpy(&id->image_base, p->d + opt + 24, 8);
	if (ndirs <= PE_DIR_DEBUG || !u32_at(p, opt + 112 + 8 * PE_DIR_DEBUG, &dbg_rva) ||
	    !u32_at(p, opt + 116 + 8 * PE_DIR_DEBUG, &dbg_size) || !dbg_size)
		return "no debug directory";
	if (!rva_to_off(p, opt + optsize, nsec, dbg_rva, &dir))
		return "the debug directory lies in no section";
	if (!find_rsds(p, dir, dbg_size, id))
		return "no CodeView RSDS record in the debug directory";
	return NULL;
}

bool kp_pe_identity(const char *path, struct kp_pdb_identity *id, char *why, size_t whylen)
{
	FILE *f = fopen(path, "rb");
	struct pe p = { 0 };
	uint8_t *buf = NULL;
	size_t cap = 0;
	const char *bad;

	if (!f) {
		snprintf(why, whylen, "cannot open %s", path);
		return false;
	}
	for (;;) {
		buf = kp_grow(buf, &cap, p.n + 65536, 1);
		size_t got = fread(buf + p.n, 1, cap - p.n, f);
		p.n += got;
		if (!got)
			break;
	}
	fclose(f);
	p.d = buf;
	if ((bad = parse(&p, id)))
		snprintf(why, whylen, "%s: %s", path, bad);
	free(buf);
	return !bad;
}
