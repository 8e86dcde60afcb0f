/*
 * pdb_symbols.h - the kernel ELF's functions as the publics of its PDB:
 * which symbols, at which offset from the image base, under which name.
 */
#ifndef KPROF_TOOL_PDB_SYMBOLS_H
#define KPROF_TOOL_PDB_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A public: the name the PDB gives it and its RVA (VA - image base). */
struct kp_pdb_public {
	uint32_t rva;
	char *name;
};

struct kp_pdb_symbols {
	uint64_t image_base;         /* KPROF_KERNEL_LINK_VA                   */
	uint32_t image_size;         /* from the base to the end of the last
	                                high-half PT_LOAD, page-rounded        */
	struct kp_pdb_public *pub;   /* sorted by rva, then name               */
	size_t n, cap;
	size_t outside;              /* functions outside the image (.boot32)  */
};

/* The publics of the ELF at path.  False, with why, when it cannot be
 * read or has no function in the image. */
bool kp_pdb_symbols_read(const char *path, struct kp_pdb_symbols *s, char *why, size_t whylen);
void kp_pdb_symbols_free(struct kp_pdb_symbols *s);

#endif
