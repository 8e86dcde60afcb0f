/*
 * skew.c - each CPU's TSC offset from CPU 0's, measured once at boot.
 *
 * Ping-pong over one shared cache line (after Linux's tsc_sync check):
 * the leader reads its TSC (t0) and posts a ping; the other CPU, seeing
 * it, reads its TSC (t1) and posts it back; the leader, seeing that,
 * reads t2.
 * Then the other CPU's offset lies in [t1 - t2, t1 - t0] whatever the
 * delays (its read came after t0 and before t2 in true time); the
 * intervals of all rounds are intersected, so the result is as tight as
 * the quickest round trip.  An empty intersection means the offset moved
 * during the measurement: the TSCs are not synchronised.  Rounds stop at
 * SKEW_ROUNDS, or after SKEW_BUDGET_US per CPU once SKEW_MIN_ROUNDS are
 * in (a host that runs few of the virtual CPUs at once makes every round
 * trip a host time slice: a TCG guest on this 2-core host under a load of
 * 12 took 2 to 20 ms a round, where a quiet one took 64 rounds in well
 * under a millisecond), and the whole measurement, waiting for each CPU
 * to answer included, ends after SKEW_WAIT_US (a CPU not reached by then
 * is "not measured", said so).
 *
 * The CPUs are paired one at a time, so that only two virtual CPUs spin
 * at once (a broadcast that kept every CPU spinning starved the pair being
 * measured on a loaded 2-core host): the boot thread, raised to
 * DISPATCH_LEVEL on whatever CPU it runs (the leader), queues a DPC on
 * each other CPU in turn that answers the pings tagged with its number
 * while pp.turn names it, and leaves when the turn moves on; offsets from
 * the leader's TSC are then made offsets from CPU 0's (interval
 * subtraction).
 */
#include "kernel/timekeep/watchdog.h"

#include <arch/cpu.h>

#include "kernel/console/console.h"
#include "kernel/ke/dpc.h"
#include "kernel/ke/irql.h"
#include "kernel/ke/prcb.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/muldiv.h"
#include "kernel/timekeep/skew.h"

#define SKEW_ROUNDS    64
#define SKEW_MIN_ROUNDS 8      /* past the budget, until this many       */
#define SKEW_BUDGET_US 20000   /* per CPU, for its rounds                 */
#define SKEW_WAIT_US   2000000 /* all CPUs, from the start to the end     */

#define TURN_NONE UINT32_MAX

static struct {
	volatile uint64_t ping;  /* (cpu << 32) | round, posted by the leader */
	volatile uint64_t pong;  /* the same, answered                        */
	volatile uint64_t t1;    /* the answering CPU's TSC                   */
	volatile uint32_t turn;  /* the CPU answering now, TURN_NONE between  */
	volatile uint32_t ready; /* 1 + the CPU that is answering             */
	uint64_t wait_end;       /* leader: TSC the whole measurement ends by */
} pp __attribute__((aligned(64)));

/* Offsets from the leader's TSC (the boot thread's CPU), then from CPU 0's. */
static struct skew_interval from_leader[KPROF_MAX_CPUS], result[KPROF_MAX_CPUS];
static KDPC answer_dpc[KPROF_MAX_CPUS]; /* one each: a late one finds its turn gone */
/* Set by each CPU's answering DPC as it returns.  One flag per CPU, not one
 * shared "who left" word: a DPC of a CPU the leader gave up on may run
 * late, at any time, and must not overwrite the word the leader is
 * waiting on for the CPU answering now (that wait then never ended: a
 * 64-CPU boot on a loaded host hung here). */
static volatile uint8_t answer_left[KPROF_MAX_CPUS];

static bool past(uint64_t end)
{
	return (int64_t)(arch_rdtsc() - end) > 0;
}

/* The leader's side for `cpu`, whose answering DPC is queued. */
static void lead(uint32_t cpu, struct skew_interval *iv)
{
	uint64_t start;

	skew_interval_init(iv);
	/* Its DPC may not run at once (a host that runs few of the virtual
	 * CPUs at a time): wait for it, within the whole measurement's time. */
	while (__atomic_load_n(&pp.ready, __ATOMIC_ACQUIRE) != cpu + 1)
		if (past(pp.wait_end))
			return;
	start = arch_rdtsc();
	for (uint32_t k = 1; k <= SKEW_ROUNDS && !past(pp.wait_end); k++) {
		if (iv->rounds >= SKEW_MIN_ROUNDS && past(start + ke_us_to_tsc(SKEW_BUDGET_US)))
			break;
		uint64_t tag = (uint64_t)cpu << 32 | k;
		uint64_t t0 = arch_rdtsc_ordered();
		__atomic_store_n(&pp.ping, tag, __ATOMIC_RELEASE);
		while (__atomic_load_n(&pp.pong, __ATOMIC_ACQUIRE) != tag)
			if (past(pp.wait_end))
				return;
		uint64_t t2 = arch_rdtsc_ordered();
		skew_interval_add(iv, t0, pp.t1, t2);
	}
}

/* The answering side, in a DPC on that CPU: answers its pings while it is
 * its turn (at once gone if the leader gave up on it). */
static void answer(KDPC *dpc, void *context, void *a1, void *a2)
{
	uint32_t cpu = (uint32_t)(uintptr_t)context;
	uint64_t seen = 0;

	if (__atomic_load_n(&pp.turn, __ATOMIC_ACQUIRE) == cpu)
		__atomic_store_n(&pp.ready, cpu + 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&pp.turn, __ATOMIC_ACQUIRE) == cpu) {
		uint64_t tag = __atomic_load_n(&pp.ping, __ATOMIC_ACQUIRE);
		if (tag >> 32 == cpu && tag != seen) {
			pp.t1 = arch_rdtsc_ordered();
			__atomic_store_n(&pp.pong, tag, __ATOMIC_RELEASE);
			seen = tag;
		}
		arch_cpu_relax();
	}
	__atomic_store_n(&answer_left[cpu], 1, __ATOMIC_RELEASE);
}

/* One CPU at a time, so that only two virtual CPUs spin at once. */
static void measure_all(uint32_t n)
{
	KIRQL old = ke_raise_irql(DISPATCH_LEVEL); /* stay on this CPU */
	uint32_t self = ke_get_current_processor_number();

	pp.wait_end = arch_rdtsc() + ke_us_to_tsc(SKEW_WAIT_US);
	for (uint32_t c = 0; c < n && c < KPROF_MAX_CPUS; c++) {
		if (c == self) {
			from_leader[c] = (struct skew_interval){ .lo = 0, .hi = 0, .rounds = 1 };
			continue;
		}
		pp.ready = 0;
		__atomic_store_n(&pp.turn, c, __ATOMIC_RELEASE);
		ke_initialize_dpc(&answer_dpc[c], answer, (void *)(uintptr_t)c);
		ke_set_target_processor_dpc(&answer_dpc[c], c);
		ke_insert_queue_dpc(&answer_dpc[c], 0, 0);
		lead(c, &from_leader[c]);
		bool answered = pp.ready == c + 1;
		__atomic_store_n(&pp.turn, TURN_NONE, __ATOMIC_RELEASE);
		/* It leaves at once, so the next pair gets the host alone; it set
		 * pp.ready, so it is in answer() and will set its flag. */
		while (answered && !__atomic_load_n(&answer_left[c], __ATOMIC_ACQUIRE))
			arch_cpu_relax();
	}
	ke_lower_irql(old);
	for (uint32_t c = 1; c < n && c < KPROF_MAX_CPUS; c++)
		result[c] = self == 0 ? from_leader[c] : skew_interval_sub(&from_leader[c], &from_leader[0]);
}

static uint64_t ns_of(uint64_t cycles)
{
	return mul_div_u64(cycles, 1000000000ULL, ke_tsc_hz);
}

struct tsc_skew_summary tsc_skew_summary(void)
{
	struct tsc_skew_summary r = { 0 };
	uint64_t worst = 0;

	for (uint32_t c = 1; c < ke_number_processors && c < KPROF_MAX_CPUS; c++) {
		const struct skew_interval *iv = &result[c];
		if (!iv->rounds)
			continue;
		r.measured++;
		if (!skew_interval_valid(iv)) {
			r.moved = true;
			continue;
		}
		int64_t mid = skew_interval_mid(iv);
		uint64_t mag = mid < 0 ? (uint64_t)-mid : (uint64_t)mid;
		if (!r.cpu || mag > worst) {
			worst = mag;
			r.cpu = c;
			r.skew_ns = mid < 0 ? -(int64_t)ns_of(mag) : (int64_t)ns_of(mag);
			r.error_ns = ns_of((uint64_t)(iv->hi - iv->lo) / 2);
		}
	}
	return r;
}

void tsc_skew_measure(void)
{
	uint32_t n = ke_number_processors;
	uint64_t max_err = 0;

	if (n < 2)
		return;
	measure_all(n);
	struct tsc_skew_summary r = tsc_skew_summary();
	for (uint32_t c = 1; c < n && c < KPROF_MAX_CPUS; c++)
		if (skew_interval_valid(&result[c]) && (uint64_t)(result[c].hi - result[c].lo) / 2 > max_err)
			max_err = (uint64_t)(result[c].hi - result[c].lo) / 2;
	if (!r.measured) {
		kprintf("time: TSC skew: not measured: no other CPU answered within %u ms\n", SKEW_WAIT_US / 1000);
		return;
	}
	uint64_t mag = r.skew_ns < 0 ? (uint64_t)-r.skew_ns : (uint64_t)r.skew_ns;
	if (r.cpu)
		kprintf("time: TSC skew from cpu 0 at boot: largest %c%llu ns (cpu %u, +-%llu ns), uncertainty up to "
			"%llu ns, %u of %u CPUs measured by ping-pong%s\n",
			r.skew_ns < 0 ? '-' : '+', (unsigned long long)mag, r.cpu, (unsigned long long)r.error_ns,
			(unsigned long long)ns_of(max_err), r.measured, n - 1,
			mag > r.error_ns ? "; beyond its uncertainty: that CPU's stamps are corrected by it" : "");
	if (r.moved)
		kprintf("time: TSC skew: a CPU's TSC moved against cpu 0's while measured: the TSCs are not "
			"synchronised\n");
}

int64_t tsc_skew_correction(uint32_t cpu)
{
	const struct skew_interval *iv = cpu < KPROF_MAX_CPUS ? &result[cpu] : NULL;

	if (!iv || cpu == 0 || !skew_interval_valid(iv) || (iv->lo <= 0 && iv->hi >= 0))
		return 0; /* not measured, or within the uncertainty */
	return -skew_interval_mid(iv);
}
