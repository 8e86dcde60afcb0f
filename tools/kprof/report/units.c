/*
 * units.c - one unit of time per column of the report: the largest of
 * s, ms, us and ns in which the column's largest value is at least 1, so
 * that no column mixes scales and none prints seconds as millions of
 * microseconds.  Values read with three decimals in that unit (ns: whole
 * nanoseconds), rounded down from the exact cycle count at the run
 * header's TSC rate; "?" without one.
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>

static const struct kp_unit units[] = {
	{ "s", 1 }, { "ms", 1000 }, { "us", 1000000 }, { "ns", 1000000000 },
};

static uint64_t tsc_hz(const struct kp_log *log)
{
	return log->have_header ? log->header.tsc_hz : 0;
}

struct kp_unit kp_unit_for(const struct kp_log *log, uint64_t max_cycles)
{
	uint64_t hz = tsc_hz(log);
	size_t i;

	for (i = 0; i + 1 < sizeof(units) / sizeof(units[0]); i++)
		if (hz && (unsigned __int128)max_cycles * units[i].per_s >= hz)
			break;
	return hz ? units[i] : units[1];
}

const char *kp_unit_text(const struct kp_log *log, struct kp_unit u, uint64_t cycles, char *buf, size_t size)
{
	uint64_t hz = tsc_hz(log);

	if (!hz) {
		snprintf(buf, size, "?");
		return buf;
	}
	if (u.per_s == 1000000000) {
		snprintf(buf, size, "%" PRIu64, (uint64_t)((unsigned __int128)cycles * u.per_s / hz));
		return buf;
	}
	unsigned __int128 milli = (unsigned __int128)cycles * u.per_s * 1000u / hz;
	snprintf(buf, size, "%" PRIu64 ".%03u", (uint64_t)(milli / 1000u), (unsigned)(milli % 1000u));
	return buf;
}

const char *kp_report_time(const struct kp_log *log, uint64_t cycles, char *buf, size_t size)
{
	struct kp_unit u = kp_unit_for(log, cycles);
	char v[48];

	snprintf(buf, size, "%s %s", kp_unit_text(log, u, cycles, v, sizeof(v)), tsc_hz(log) ? u.name : "");
	return buf;
}
