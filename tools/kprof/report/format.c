/*
 * format.c - what the sections of `kprof report` share (report.h):
 * section titles, names of code and data addresses, the
 * note on lost records, and which event groups the run traced.
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>
#include <string.h>

#include "tools/kprof/read/fields.h"

void kp_report_section(FILE *f, const char *title)
{
	int n = fprintf(f, "\n== %s ", title) - 1;
	for (; n < KP_TEXT_WIDTH; n++)
		fputc('=', f);
	fputs("\n\n", f);
}

const char *kp_report_code_name(const struct kp_symbols *syms, uint64_t addr, char *buf, size_t size)
{
	if (syms)
		return kp_symbols_format(syms, addr, buf, size);
	snprintf(buf, size, "0x%" PRIx64, addr); /* as kp_symbols_format() */
	return buf;
}

const char *kp_report_data_name(const struct kp_symbols *syms, uint64_t addr, char *buf, size_t size)
{
	const char *name;
	uint64_t start, len;

	buf[0] = 0;
	if (syms && kp_symbols_lookup(syms, addr, &name, &start, &len) && len && addr - start < len)
		kp_symbols_format(syms, addr, buf, size);
	return buf;
}

const char *kp_report_object(const struct kp_report *r, uint64_t addr, char *buf, size_t size)
{
	const struct kp_object_name *on = kp_model_object_name(r->m, addr, UINT64_MAX);
	char name[48], sym[160];

	if (on) {
		snprintf(buf, size, "%s (%s at 0x%016" PRIx64 ")", kp_model_object_label(r->m, addr, UINT64_MAX, name, sizeof(name)),
			 kp_object_kind_name(on->kind), addr);
		return buf;
	}
	kp_report_data_name(r->syms, addr, sym, sizeof(sym));
	snprintf(buf, size, "0x%016" PRIx64 "%s%s%s", addr, sym[0] ? " (" : "", sym, sym[0] ? ")" : "");
	return buf;
}

const char *kp_report_site(const struct kp_symbols *syms, uint64_t addr, bool return_address, char *buf,
			   size_t size)
{
	char line[256];
	size_t len;

	kp_report_code_name(syms, addr, buf, size);
	len = strlen(buf);
	if (kp_symbols_site_line(syms, addr, return_address, line, sizeof(line)))
		snprintf(buf + len, size - len, " (%s)", line);
	return buf;
}

void kp_report_lost_note(FILE *f, const struct kp_log *log)
{
	uint64_t lost = 0;

	for (uint32_t i = 0; i < log->ncpus; i++) {
		lost = kp_sat_add(lost, kp_cpu_lost(&log->cpus[i]));
		lost = kp_sat_add(lost, kp_cpu_lost_file(&log->cpus[i])); /* not in a trace file too small */
	}
	if (lost)
		fprintf(f, "note: the trace lost %" PRIu64 " records (of all kinds): these counts are low\n", lost);
}

bool kp_report_group_on(const struct kp_log *log, uint32_t mask)
{
	PERFINFO_GROUPMASK g;
	if (!log->have_header)
		return true;
	memcpy(g.Masks, log->header.group_masks, sizeof(g.Masks));
	return perfinfo_is_group_on(&g, mask);
}
