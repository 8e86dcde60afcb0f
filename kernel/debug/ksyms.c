/*
 * ksyms.c - lookups in the generated symbol table.
 *
 * Layout (tools/gen-ksyms.sh): ksyms_num entries; ksyms_addr[] sorted
 * ascending; ksyms_name_off[i] is the offset of symbol i's NUL-terminated
 * name in ksyms_names; ksyms_text_end bounds the last function.
 */
#include "kernel/debug/ksyms.h"

#include "kernel/lib/libk.h"

extern const uint64_t ksyms_num;
extern const uint64_t ksyms_addr[];
extern const uint32_t ksyms_name_off[];
extern const char ksyms_names[];
extern const uint64_t ksyms_text_end;

const char *ksym_lookup(uintptr_t addr, uintptr_t *offset)
{
	size_t lo = 0, hi = ksyms_num;

	if (hi == 0 || addr < ksyms_addr[0] || addr >= ksyms_text_end)
		return NULL;
	/* Last entry with address <= addr. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (ksyms_addr[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (offset)
		*offset = addr - ksyms_addr[lo];
	return &ksyms_names[ksyms_name_off[lo]];
}

uintptr_t ksym_address(const char *name)
{
	for (size_t i = 0; i < ksyms_num; i++)
		if (strcmp(&ksyms_names[ksyms_name_off[i]], name) == 0)
			return ksyms_addr[i];
	return 0;
}

size_t ksym_count(void)
{
	return ksyms_num;
}
