/*
 * pe_checksum.c - kp_pe_checksum() (pdb.h): write a PE image's
 * OptionalHeader.CheckSum, as MSVC's `link /release` does and as Windows'
 * CheckSumMappedFile computes it (lld-link 14 leaves it 0): the file's
 * 16-bit little-endian words summed with the carries folded back in
 * (an odd last byte counts as a word), the CheckSum field itself taken
 * as 0, then the file's length added.  The ETL's Image event carries it
 * as ImageChecksum, so a reader sees the same value in the trace and in
 * the image the PDB was linked with.
 */
#include "tools/kprof/export/etl/pdb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/util/alloc.h"

static uint32_t checksum(const uint8_t *d, size_t n, size_t field)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i += 2) {
		uint32_t w = d[i] | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0);
		if (i >= field && i < field + 4)
			w = 0;
		sum += w;
		sum = (sum & 0xFFFF) + (sum >> 16);
	}
	return (uint32_t)(sum + n);
}

bool kp_pe_checksum(const char *path, char *why, size_t whylen)
{
	FILE *f = fopen(path, "r+b");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0, got;
	uint32_t lfanew, sum;
	bool ok = false;

	if (!f) {
		snprintf(why, whylen, "cannot open %s", path);
		return false;
	}
	do {
		buf = kp_grow(buf, &cap, n + 65536, 1);
		n += got = fread(buf + n, 1, cap - n, f);
	} while (got);
	if (n < 0x40 || memcmp(buf, "MZ", 2) || (memcpy(&lfanew, buf + 0x3C, 4), (size_t)lfanew + 24 + 68 > n) ||
	    memcmp(buf + lfanew, "PE\0\0", 4)) {
		snprintf(why, whylen, "%s: no PE header", path);
	} else {
		size_t field = (size_t)lfanew + 24 + KP_PE_OPT_CHECKSUM;
		sum = checksum(buf, n, field);
		ok = fseek(f, (long)field, SEEK_SET) == 0 && fwrite(&sum, 4, 1, f) == 1; /* little-endian host */
		if (!ok)
			snprintf(why, whylen, "cannot write the CheckSum of %s", path);
	}
	free(buf);
	if (fclose(f) && ok) {
		snprintf(why, whylen, "cannot write the CheckSum of %s", path);
		ok = false;
	}
	return ok;
}
