/*
 * perfetto_json.c - the JSON pieces of `kprof perfetto`, and its clock:
 * every time stamp is converted from the TSC to whole nanoseconds since
 * the trace's origin, once per end, so a slice's duration is end - start
 * on that grid and neighbours touch exactly (rounding ts and dur apart
 * made 1 ns overlaps, and importers dropped the slices).
 *
 * Times are written as microseconds with three decimals: exact for
 * Perfetto, which rounds us * 1000 to nanoseconds.  JavaScript importers
 * (Chrome DevTools, speedscope) add ts + dur as doubles instead, and
 * 0.001 is not exact in binary, so the sum can come out one unit in the
 * last place past the next slice's ts.  pf_span therefore writes a
 * duration that is the same nanoseconds (within 1e-6 ns) but whose double
 * makes ts + dur the double of the end exactly.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/export/perfetto/pf.h"
#include "tools/kprof/util/json.h"

void pf_begin(struct pf *p, const char *ph, uint32_t pid, uint32_t tid)
{
	fputs(p->first ? "\n" : ",\n", p->f);
	p->first = false;
	fprintf(p->f, "{\"ph\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, ph, pid, tid);
}

uint64_t pf_ns(const struct kp_model *m, uint64_t tsc)
{
	uint64_t hz = (uint64_t)m->hz;

	if (tsc <= m->origin || !hz)
		return 0;
	unsigned __int128 c = (unsigned __int128)(tsc - m->origin) * 1000000000u;
	return (uint64_t)((c + hz / 2) / hz);
}

/* "12.345" (us) for 12345 ns. */
static void us_text(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

void pf_time(struct pf *p, const char *key, uint64_t tsc)
{
	char t[32];
	us_text(t, sizeof(t), pf_ns(p->m, tsc));
	fprintf(p->f, ",\"%s\":%s", key, t);
}

/* The shortest of %.15g..%.17g that reads back as d. */
static void double_text(char *buf, size_t size, double d)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			return;
	}
}

/* The positive double `units` units in the last place from d. */
static double ulps_from(double d, int units)
{
	uint64_t bits;
	memcpy(&bits, &d, sizeof(bits));
	bits += (int64_t)units;
	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* The duration's text: its exact microseconds where the doubles add up,
 * else the double near them (a few units in the last place away) that
 * makes ts + dur the end's double, still dur_ns once rounded to
 * nanoseconds.  Where no double does (the sum falls between, rounding to
 * even), the largest whose sum stays below the end's: the slice then ends
 * a fraction of a unit in the last place early, never late. */
static void dur_text(char *buf, size_t size, uint64_t start_ns, uint64_t dur_ns)
{
	char t[32];
	us_text(t, sizeof(t), start_ns);
	double s = strtod(t, NULL);
	us_text(t, sizeof(t), start_ns + dur_ns);
	double e = strtod(t, NULL);
	us_text(buf, size, dur_ns);
	double d = strtod(buf, NULL);
	if (s + d == e || d == 0)
		return;
	double c = e - s, below = -1;
	for (int j = -4; j <= 4; j++) {
		double x = ulps_from(c, j);
		if ((uint64_t)(x * 1000.0 + 0.5) != dur_ns)
			continue;
		if (s + x == e) {
			double_text(buf, size, x);
			return;
		}
		if (s + x < e)
			below = x;
	}
	if (below >= 0)
		double_text(buf, size, below);
}

void pf_span(struct pf *p, uint64_t start, uint64_t end)
{
	uint64_t a = pf_ns(p->m, start), b = pf_ns(p->m, end);
	char t[40];

	if (b < a)
		b = a;
	us_text(t, sizeof(t), a);
	fprintf(p->f, ",\"ts\":%s", t);
	dur_text(t, sizeof(t), a, b - a);
	fprintf(p->f, ",\"dur\":%s", t);
}

void pf_str_arg(struct pf *p, const char *key, const char *v)
{
	fprintf(p->f, ",\"%s\":", key);
	kp_json_string(p->f, v);
}

void pf_addr_arg(struct pf *p, const char *key, uint64_t a)
{
	fprintf(p->f, ",\"%s\":\"0x%016" PRIx64 "\"", key, a);
}

/* "function": "name+0x12", with --kernel. */
void pf_function_arg(struct pf *p, const char *key, uint64_t a)
{
	char buf[256];
	if (!p->syms)
		return;
	pf_str_arg(p, key, kp_symbols_format(p->syms, a, buf, sizeof(buf)));
}

void pf_thread_arg(struct pf *p, const char *key, uint32_t tid)
{
	char label[64];
	pf_str_arg(p, key, kp_model_thread_label(p->m, tid, label, sizeof(label)));
}
