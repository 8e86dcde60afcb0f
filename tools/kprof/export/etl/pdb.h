/*
 * pdb.h - a PDB for the ELF kernel, so that WPA, xperf and TraceEvent
 * (which resolve addresses only through PDBs) name its functions.
 *
 * kp_pdb_write() builds a stand-in PE image of the kernel with Debian's
 * LLVM tools: an assembly file with one public label per kernel function
 * at the function's offset from the kernel's image base (pdb_symbols.c),
 * assembled by llvm-mc and linked by lld-link /debug at that image base,
 * which writes the PDB (pdb_build.c).  The identity the ETL's Image,
 * ImageID and DbgID_RSDS events carry is read back from the PE that
 * lld-link wrote, once its CheckSum is set (pe_checksum.c, pe_ident.c):
 * image base, size, CheckSum, TimeDateStamp, and the CodeView RSDS
 * record's GUID, age and PDB name.  The PE is kept beside the PDB.
 */
#ifndef KPROF_TOOL_PDB_H
#define KPROF_TOOL_PDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KP_PDB_NAME_MAX 256
#define KP_PE_OPT_CHECKSUM 64u /* OptionalHeader.CheckSum's offset, PE32 and PE32+ alike */

/* What ties an image to its PDB (the PE's headers and debug directory). */
struct kp_pdb_identity {
	uint64_t image_base;           /* OptionalHeader.ImageBase            */
	uint32_t image_size;           /* OptionalHeader.SizeOfImage          */
	uint32_t timestamp;            /* FileHeader.TimeDateStamp            */
	uint32_t checksum;             /* OptionalHeader.CheckSum             */
	uint8_t guid[16];              /* RSDS GUID, as stored (Data1..3 LE)  */
	uint32_t age;                  /* RSDS Age                            */
	char pdb_name[KP_PDB_NAME_MAX];   /* RSDS path: the PDB's file name   */
	char image_name[KP_PDB_NAME_MAX]; /* the PE's file name               */
};

/* Write the PDB of the kernel ELF at elf_path to pdb_path (a name ending
 * in .pdb), the PE image it was linked with beside it (.dll for .pdb),
 * and fill *id.  False when it could not (the LLVM tools are missing, the
 * ELF has no function in its image, a tool failed, ...), with why in
 * why[]; neither file is left then. */
bool kp_pdb_write(const char *elf_path, const char *pdb_path, struct kp_pdb_identity *id, char *why,
		  size_t whylen);

/* Write the PE file's OptionalHeader.CheckSum (pe_checksum.c).  False,
 * with why, when it has no PE header or cannot be written. */
bool kp_pe_checksum(const char *path, char *why, size_t whylen);

/* The identity of the PE file at path (pe_ident.c).  False, with why,
 * when it is not a PE32+ image with a CodeView RSDS debug record. */
bool kp_pe_identity(const char *path, struct kp_pdb_identity *id, char *why, size_t whylen);

#endif
