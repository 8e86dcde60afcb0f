/*
 * cmdline_parse.h - turn UEFI load options or the text of
 * \kprof\cmdline.txt into the kernel command line.  Pure code (no EFI calls
 * or headers) so it can be unit-tested on the host.
 */
#ifndef KPROF_BOOT_UEFI_CMDLINE_PARSE_H
#define KPROF_BOOT_UEFI_CMDLINE_PARSE_H

#include <stddef.h>
#include <stdint.h>

enum ldr_cmdline_result {
	LDR_CMDLINE_OK = 0,       /* out holds a non-empty command line  */
	LDR_CMDLINE_EMPTY = 1,    /* nothing but blanks (out is "")       */
	LDR_CMDLINE_BINARY = 2,   /* not printable text                   */
	LDR_CMDLINE_TOO_LONG = 3, /* *len is the length that did not fit  */
};

/*
 * LoadOptions: size bytes of UCS-2.  A first word ending in ".efi" (the
 * image path the UEFI shell passes) is dropped, blanks around the rest are
 * trimmed and tabs/CR/LF become spaces.  Anything outside printable ASCII
 * before the first NUL, non-NUL data after it, or an odd size is BINARY.
 * On OK and TOO_LONG *len is the command line's length (without NUL).
 */
enum ldr_cmdline_result ldr_cmdline_from_ucs2(const void *opts, size_t size,
					      char *out, size_t out_max,
					      size_t *len);

/*
 * cmdline.txt: ASCII lines (LF or CRLF); blank lines and lines whose first
 * non-blank character is '#' are skipped; each remaining line is trimmed
 * and they are joined with single spaces.  A leading UTF-8 BOM is skipped.
 * A byte outside printable ASCII (tab allowed) in a kept line is BINARY,
 * with its offset in *len.
 */
enum ldr_cmdline_result ldr_cmdline_from_text(const char *text, size_t size,
					      char *out, size_t out_max,
					      size_t *len);

#endif /* KPROF_BOOT_UEFI_CMDLINE_PARSE_H */
