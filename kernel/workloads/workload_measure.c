/*
 * workload_measure.c - the measurement helpers of the workload API
 * (api/measure.h): time base, busy waits, sample sets and their summary.
 */
#include "kernel/workloads/api/measure.h"

#include <arch/cpu.h>

#include "kernel/console/console.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/muldiv.h"
#include "kernel/lib/printf.h"
#include "kernel/lib/stats.h"
#include "kernel/mm/heap.h"

uint64_t workload_cycles(void)
{
	return arch_rdtsc();
}

uint64_t workload_cycles_to_ns(uint64_t cycles)
{
	return ke_tsc_hz ? mul_div_u64(cycles, 1000000000, ke_tsc_hz) : 0;
}

uint64_t workload_ns_to_cycles(uint64_t ns)
{
	return ke_ns_to_tsc(ns);
}

void workload_spin_ns(uint64_t ns)
{
	uint64_t start = arch_rdtsc(), span = ke_ns_to_tsc(ns);
	while (arch_rdtsc() - start < span)
		arch_cpu_relax();
}

void workload_cpu_relax(void)
{
	arch_cpu_relax();
}

bool workload_samples_init(struct workload_samples *s, uint32_t capacity)
{
	*s = (struct workload_samples){ 0 };
	s->v = capacity ? kmalloc((size_t)capacity * sizeof(s->v[0])) : NULL;
	s->capacity = s->v ? capacity : 0;
	return s->v != NULL;
}

void workload_samples_add(struct workload_samples *s, uint64_t value)
{
	s->seen++;
	if (s->count < s->capacity)
		s->v[s->count++] = value;
}

void workload_samples_merge(struct workload_samples *dst, const struct workload_samples *src)
{
	uint32_t room = dst->capacity - dst->count, n = MIN(room, src->count);
	memcpy(dst->v + dst->count, src->v, (size_t)n * sizeof(src->v[0]));
	dst->count += n;
	dst->seen += src->seen;
}

void workload_samples_free(struct workload_samples *s)
{
	if (s->v)
		kfree(s->v);
	*s = (struct workload_samples){ 0 };
}

struct workload_summary workload_samples_summary(struct workload_samples *s)
{
	struct workload_summary sum = { .seen = s->seen, .kept = s->count };
	uint64_t total = 0;

	if (!s->count)
		return sum;
	sum.min = UINT64_MAX;
	for (uint32_t i = 0; i < s->count; i++) {
		sum.min = MIN(sum.min, s->v[i]);
		sum.max = MAX(sum.max, s->v[i]);
		total += s->v[i];
	}
	sum.mean = total / s->count;
	sum.p99 = select_u64(s->v, s->count, (size_t)s->count * 99 / 100);
	sum.median = median_u64(s->v, s->count);
	return sum;
}

void workload_print_rate(const char *what, uint64_t count, uint64_t cycles)
{
	uint64_t ns = workload_cycles_to_ns(cycles);
	kprintf("%s: %llu per second (%llu in %llu ms)\n", what,
		(unsigned long long)(ns ? mul_div_u64(count, 1000000000, ns) : 0), (unsigned long long)count,
		(unsigned long long)(ns / 1000000));
}

void workload_print_summary(const char *what, const char *unit, const struct workload_summary *sum)
{
	char of[32] = "";
	if (sum->kept < sum->seen)
		ksnprintf(of, sizeof(of), " of %llu", (unsigned long long)sum->seen);
	kprintf("%s: n=%u%s min %llu median %llu p99 %llu max %llu mean %llu %s\n", what, sum->kept, of,
		(unsigned long long)sum->min, (unsigned long long)sum->median, (unsigned long long)sum->p99,
		(unsigned long long)sum->max, (unsigned long long)sum->mean, unit);
}
