/*
 * cpus.c - the CPUs section of `kprof report`: per CPU, the span of its
 * records, and how the whole trace divides on it (model/schedule.c,
 * model/stall.c): busy (a thread other than idle ran), idle, stalled (the
 * CPU could not run: its KprofClockLate intervals, steal time on a VM)
 * and no trace (holes: frames lost, records dropped).  The four add up to
 * the trace's span, to the cycle.
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>

/* Were stalls recorded: trace=clock on (or KprofClockLate records)? */
static bool stalls_known(const struct kp_report *r)
{
	return r->m->stall_records || (r->log->have_header && kp_report_group_on(r->log, PERF_KPROF_CLOCK));
}

/* "busy idle stalled no-trace" shares of span, and the switches; stalled
 * "-" when not known (busy and idle then hold it). */
static void cpu_shares(FILE *f, const struct kp_model_cpu *cpu, uint64_t span, bool known)
{
	char b[16], i[16], s[16], n[16];

	fprintf(f, "%8s %8s %8s %8s %10" PRIu64, kp_pct(b, sizeof(b), cpu->busy, span, 2),
		kp_pct(i, sizeof(i), cpu->idle, span, 2), known ? kp_pct(s, sizeof(s), cpu->stalled, span, 2) : "-",
		kp_pct(n, sizeof(n), cpu->no_trace, span, 2), cpu->switches);
}

/* The CPU's SMIs over the trace (KprofSmiCount), as "\tSMIs: ..."; ""
 * for a log without KprofSmiCount records (older kernels). */
static const char *smi_text(const struct kp_model *m, const struct kp_model_cpu *c, char *buf, size_t size)
{
	if (!m->smi_records)
		return "";
	if (!c->smi_records)
		snprintf(buf, size, "\tSMIs: not recorded");
	else if (!c->smi_counted)
		snprintf(buf, size, "\tSMIs: not counted on this CPU");
	else
		snprintf(buf, size, "\tSMIs: %" PRIu64, c->smis);
	return buf;
}

static void smi_note(FILE *f, const struct kp_model *m)
{
	if (m->smi_records)
		fprintf(f, "SMIs: the System Management Interrupts each CPU took from trace start to end (the\n"
			   "CPU's own count, KprofSmiCount); firmware ran then, unseen, in time the report gives\n"
			   "to whatever the CPU was doing. \"not counted\": the CPU keeps no such count.\n");
}

/* The stalls of every CPU: how many, their total and the longest; and
 * its SMIs beside them. */
static void stall_lines(FILE *f, const struct kp_report *r)
{
	const struct kp_model *m = r->m;
	char t[48], l[48], at[32], smi[48];

	if (!stalls_known(r)) {
		fprintf(f, "\nstalled: not known: the run did not trace=clock (KprofClockLate records), so time the\n"
			   "CPUs could not run counts as busy or idle\n");
		smi_note(f, m);
		for (uint32_t i = 0; m->smi_records && i < m->ncpus; i++)
			fprintf(f, "  cpu %u: %s\n", i, smi_text(m, &m->cpu[i], smi, sizeof(smi)) + 1);
		return;
	}
	fprintf(f, "\nstalled: the CPU could not run (its clock interrupt came more than 200 us late: the\n"
		   "virtual CPU was not running - steal time - or interrupts were masked), from each\n"
		   "KprofClockLate record's DueTime to DueTime + LateCycles; not busy, idle or any thread's CPU\n"
		   "time.\n"
		   "Stalls shorter than 200 us are not recorded, so these are lower bounds.\n");
	smi_note(f, m);
	for (uint32_t i = 0; i < m->ncpus; i++) {
		const struct kp_model_cpu *c = &m->cpu[i];
		const struct kp_stall *longest = NULL;
		for (size_t k = 0; k < c->nstalls; k++)
			if (!longest || c->stalls[k].end - c->stalls[k].start > longest->end - longest->start)
				longest = &c->stalls[k];
		if (!longest) {
			kp_wrapf(f, "  ", 0, 4, ", ", "cpu %u: %s%s", i, m->smi_records ? "no stalls" : "none",
				 smi_text(m, c, smi, sizeof(smi)));
			continue;
		}
		snprintf(at, sizeof(at), "%.3f", kp_model_ms(m, longest->start));
		kp_wrapf(f, "  ", 0, 4, ", ", "cpu %u: %" PRIu64 " records\t%zu stalls\t%s in all\tlongest %s at %s ms%s",
			 i, c->stall_records, c->nstalls, kp_report_time(r->log, c->stalled, t, sizeof(t)),
			 kp_report_time(r->log, longest->end - longest->start, l, sizeof(l)), at,
			 smi_text(m, c, smi, sizeof(smi)));
	}
}

void kp_report_stalled_line(FILE *f, const struct kp_report *r)
{
	const struct kp_model *m = r->m;
	char line[400], p[16];
	size_t len = 0;

	if (!m->stall_records || m->end <= m->begin)
		return;
	for (uint32_t i = 0; i < m->ncpus && len < sizeof(line); i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%scpu %u %s", i ? ", " : "", i,
					kp_pct(p, sizeof(p), m->cpu[i].stalled, m->end - m->begin, 1));
	if (len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, " of the trace: the CPUs could not run (steal time on a VM, or "
							 "interrupts masked; KprofClockLate), not counted as busy");
	kp_wrap(f, "stalled", 10, 10, " ", line);
}

void kp_report_cpus(FILE *f, const struct kp_report *r)
{
	const struct kp_model *m = r->m;
	char a[32], c[32];
	uint64_t span = m->end - m->begin;
	struct kp_unit u;

	kp_report_section(f, "CPUs");
	kp_wrapf(f, "", 0, 0, " ",
		 "Each CPU's records from its first to its last (traced); busy, idle, stalled and no trace: "
		 "shares of the whole trace (%s, from its start to the last record of any CPU) in a thread, "
		 "in the idle thread (ThreadId 0, from the CSwitch records), when the CPU could not run, "
		 "and without trace: the four add up to 100%%.",
		 kp_report_time(r->log, span, a, sizeof(a)));
	fputc('\n', f);
	if (!m->ncpus) {
		fprintf(f, "No CPU sent any frame.\n");
		return;
	}
	uint64_t longest = 0;
	for (uint32_t i = 0; i < m->ncpus; i++)
		if (m->cpu[i].any && m->cpu[i].last - m->cpu[i].first > longest)
			longest = m->cpu[i].last - m->cpu[i].first;
	u = kp_unit_for(r->log, longest);
	snprintf(c, sizeof(c), "traced %s", u.name);
	fprintf(f, "%5s %16s %14s %8s %8s %8s %8s %10s\n", "cpu", "traced cycles", c, "busy", "idle", "stalled",
		"no trace", "switches");
	bool holes = false;
	for (uint32_t i = 0; i < m->ncpus; i++) {
		const struct kp_model_cpu *cpu = &m->cpu[i];
		uint64_t len = cpu->last - cpu->first;
		holes |= cpu->no_trace || cpu->lost_kernel;
		if (!cpu->any) {
			fprintf(f, "%5u  no records\n", i);
			continue;
		}
		fprintf(f, "%5u %16" PRIu64 " %14s ", i, len, kp_unit_text(r->log, u, len, a, sizeof(a)));
		if (!cpu->switches)
			fprintf(f, "%8s %8s %8s %8s %10s  (no CSwitch records: busy and idle unknown)", "?", "?", "?", "?",
				"0");
		else
			cpu_shares(f, cpu, span, stalls_known(r));
		fputc('\n', f);
	}
	const char *sep = "\ndropped (records the CPU's trace buffer could not store):";
	for (uint32_t i = 0; i < m->ncpus; i++)
		if (m->cpu[i].lost_kernel) {
			fprintf(f, "%s cpu %u: %" PRIu64, sep, i, m->cpu[i].lost_kernel);
			sep = ",";
		}
	if (sep[0] != '\n')
		fputc('\n', f);
	stall_lines(f, r);
	if (holes)
		fprintf(f, "\nno trace: time around frames lost on the link (between the records either side) and\n"
			   "around records the kernel dropped (from the first drop to the next record stored, or\n"
			   "from the CPU's last record to the end of the trace), counted as neither busy nor idle\n"
			   "nor any thread's CPU time.\n");
}
