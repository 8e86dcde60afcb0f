/*
 * clock.c - the clock interrupt: each CPU's interrupt timer drives its
 * timer queue, and the queue drives the clock tick (tick_hz= times a
 * second) and every other timed callback.
 *
 * The interrupt arrives at CLOCK_LEVEL.  In TSC-deadline and one-shot modes
 * the timer is re-armed for the queue's next deadline after each
 * interrupt (and by ke_set_timer_current() when a new entry becomes the
 * earliest); in periodic mode it fires every tick and the queue is only
 * checked.
 *
 * Lateness: at each interrupt the earliest due entry of the queue (in
 * periodic mode: the tick itself, ClockDue) is compared with the time the
 * handler is done.  More than CLOCK_LATE_US late is counted and, with
 * trace=clock, recorded (KPROF_CLOCK_LATE): from the due time on, the CPU
 * ran nothing timed, no tick, no time-out.  An idle CPU kicked to run a
 * thread that answers more than CLOCK_LATE_US later is recorded the same
 * way (ke_clock_note_late_kick, from the dispatcher): it took no interrupt
 * from the kick on.  On a virtual machine this is mostly the host not
 * running the virtual CPU, or a CPU spinning with interrupts off for a
 * lock whose holder the host does not run; on real hardware, interrupts
 * masked too long (SMIs included).
 *
 * Arrival: every clock interrupt's arrival after the due time of its
 * earliest work is also counted, late or not, in half-octave buckets
 * (ClockArrivalBuckets, include/kprof/lateness.h) with the latest
 * (ClockArrivalMax): the distribution the run's fidelity statement gives
 * (KprofFidelity, kernel/timekeep/fidelity.c).  Only this CPU writes its
 * counts, with interrupts off (the handler; ke_clock_arrivals_reset).
 *
 * Who the clock calls: the tick clients each subsystem declares
 * (KE_TICK_CLIENT: the linker gathers them, ke_clock_init sorts them once,
 * before any CPU's clock starts, and they are only read after), the one
 * sharer of the timer (the profile timer: ke_clock_share_timer) and the
 * late recorder (the trace: ke_clock_set_late_recorder), each set once at
 * boot.  So ke names no folder above it on the tick's path.
 */
#include "kernel/ke/time/clock.h"

#include <arch/cpu.h>
#include <arch/interrupt.h>
#include <arch/dev/timer.h>
#include <arch/trapframe.h>

#include "kernel/ke/ke_keys.h"
#include "kernel/console/console.h"
#include "kernel/debug/panic.h"
#include "kernel/ke/prcb.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/libk.h"

#define CLOCK_LATE_US 200

static KTIMER_ENTRY clock_tick_entry[KPROF_MAX_CPUS];
static uint64_t clock_late_cycles;
static uint64_t clock_tick_cycles;

/* Made by the linker (linker.ld names them; the host's linker makes them
 * for a section whose name is an identifier).  Weak: a program with no
 * client links. */
extern const struct ke_tick_client *const __start_kprof_tick_clients[] __attribute__((weak));
extern const struct ke_tick_client *const __stop_kprof_tick_clients[] __attribute__((weak));

static const struct ke_tick_client *tick_clients[KE_TICK_CLIENTS_MAX];
static uint32_t ntick_clients;
static const struct ke_timer_sharer *timer_sharer;
static ke_clock_late_fn late_recorder;

static bool tick_before(const struct ke_tick_client *a, const struct ke_tick_client *b)
{
	return a->order != b->order ? a->order < b->order : strcmp(a->name, b->name) < 0;
}

/* The declared clients, sorted by order (then name), into tick_clients. */
static void gather_tick_clients(void)
{
	const struct ke_tick_client *const *p = __start_kprof_tick_clients;
	size_t n = p ? (size_t)(__stop_kprof_tick_clients - p) : 0;

	if (n > KE_TICK_CLIENTS_MAX)
		ke_bug_check_ex(KPROF_ASSERTION_FAILED, n, KE_TICK_CLIENTS_MAX, 0, 0,
				"clock: %zu tick clients declared, room for %u (KE_TICK_CLIENTS_MAX)", n,
				KE_TICK_CLIENTS_MAX);
	for (size_t i = 0; i < n; i++) { /* insertion sort: a handful */
		size_t j = i;
		for (; j > 0 && tick_before(p[i], tick_clients[j - 1]); j--)
			tick_clients[j] = tick_clients[j - 1];
		tick_clients[j] = p[i];
	}
	ntick_clients = (uint32_t)n;
}

void ke_clock_share_timer(const struct ke_timer_sharer *s)
{
	timer_sharer = s;
}

void ke_clock_set_late_recorder(ke_clock_late_fn fn)
{
	__atomic_store_n(&late_recorder, fn, __ATOMIC_RELEASE);
}

static void record_late(const KPROF_CLOCK_LATE *r)
{
	ke_clock_late_fn fn = __atomic_load_n(&late_recorder, __ATOMIC_ACQUIRE);

	if (fn)
		fn(r);
}

uint64_t ke_clock_tick_cycles(void)
{
	return clock_tick_cycles;
}

/* Arm the timer for this CPU's earliest deadline: the timer queue's, or
 * the sharer's when it has one here and it comes first (then the timer
 * raises the sharer's interrupt: the profile timer's,
 * kernel/profile/profile_timer.c). */
static void clock_arm(KPRCB *prcb, uint64_t next)
{
	if (arch_timer_get_mode() == ARCH_TIMER_PERIODIC)
		return;
	uint64_t shared = timer_sharer ? timer_sharer->due(prcb->Number) : 0;
	if (shared && shared < next)
		arch_timer_arm_for(shared, timer_sharer->irq);
	else if (next != UINT64_MAX)
		arch_timer_arm_for(next, ARCH_INT_CLOCK);
}

static void clock_rearm(KPRCB *prcb)
{
	clock_arm(prcb, ki_timer_queue_next(&prcb->TimerQueue));
}

void ki_clock_rearm(void)
{
	clock_rearm(ke_get_current_prcb());
}

void ki_clock_after_profile(uint64_t now)
{
	KPRCB *prcb = ke_get_current_prcb();
	uint64_t next = ki_timer_queue_next(&prcb->TimerQueue); /* one look at the queue */

	if (next <= now)
		arch_send_self_ipi(ARCH_INT_CLOCK); /* its handler re-arms the timer */
	else
		clock_arm(prcb, next);
}

/* When the earliest work of this interrupt was due: the queue's first
 * entry (periodic mode: the tick itself). */
static uint64_t clock_due(KPRCB *prcb, uint64_t now)
{
	if (arch_timer_get_mode() == ARCH_TIMER_PERIODIC) {
		uint64_t due = prcb->ClockDue;
		prcb->ClockDue = now + clock_tick_cycles; /* the next, from this one */
		return due;
	}
	return ki_timer_queue_next(&prcb->TimerQueue);
}

/* The work due at `due` was done by `done`, the end of the handler: the
 * interrupt may have come late, or the handler may have waited (for the
 * dispatcher lock, say) with interrupts off. */
static void clock_lateness(KPRCB *prcb, uint64_t due, uint64_t done, const KTRAP_FRAME *tf)
{
	if (!due || due == UINT64_MAX || done <= due || done - due <= clock_late_cycles)
		return;
	KPROF_CLOCK_LATE r = { .DueTime = due, .LateCycles = done - due, .InstructionPointer = trap_frame_ip(tf) };
	prcb->ClockLateCount++;
	prcb->ClockLateCycles += r.LateCycles;
	if (r.LateCycles > prcb->ClockLateMax)
		prcb->ClockLateMax = r.LateCycles;
	record_late(&r);
}

/* How late the interrupt came: its entry (`now`) against the due time. */
static void clock_arrival(KPRCB *prcb, uint64_t due, uint64_t now)
{
	if (!due || due == UINT64_MAX)
		return;
	uint64_t late = now > due ? now - due : 0;
	prcb->ClockArrivals++;
	prcb->ClockArrivalBuckets[kprof_lateness_bucket(late)]++;
	if (late > prcb->ClockArrivalMax)
		prcb->ClockArrivalMax = late;
}

void ke_clock_arrivals_reset(void)
{
	KPRCB *prcb = ke_get_current_prcb();
	unsigned long flags = arch_irq_save();

	prcb->ClockArrivals = 0;
	prcb->ClockArrivalMax = 0;
	for (uint32_t b = 0; b < KPROF_LATENESS_BUCKETS; b++)
		prcb->ClockArrivalBuckets[b] = 0;
	arch_irq_restore(flags);
}

void ke_clock_note_late_kick(uint64_t sent, uint64_t answered)
{
	ke_clock_note_stall(sent, answered);
}

void ke_clock_note_stall(uint64_t from, uint64_t to)
{
	if (!from || !clock_late_cycles || to <= from || to - from <= clock_late_cycles)
		return;
	KPROF_CLOCK_LATE r = { .DueTime = from, .LateCycles = to - from, .InstructionPointer = 0 };
	record_late(&r);
}

static void clock_interrupt(KTRAP_FRAME *tf)
{
	KPRCB *prcb = ke_get_current_prcb();
	unsigned long flags = arch_irq_save();
	uint64_t now = arch_rdtsc();
	uint64_t due = clock_due(prcb, now);

	clock_arrival(prcb, due, now);
	ki_timer_queue_expire(&prcb->TimerQueue, now, tf);
	clock_rearm(prcb);
	clock_lateness(prcb, due, arch_rdtsc(), tf);
	arch_irq_restore(flags);
}

static void clock_tick(KTIMER_ENTRY *e, KTRAP_FRAME *tf, void *context)
{
	KPRCB *prcb = ke_get_current_prcb();

	prcb->ClockTicks++;
	for (uint32_t i = 0; i < ntick_clients; i++)
		tick_clients[i]->tick(prcb, tf);
}

void ke_clock_init(void)
{
	enum arch_timer_mode mode;

	switch (ke_config->timer) {
	case TIMER_DEADLINE: mode = ARCH_TIMER_DEADLINE; break;
	case TIMER_ONESHOT: mode = ARCH_TIMER_ONESHOT; break;
	case TIMER_PERIODIC: mode = ARCH_TIMER_PERIODIC; break;
	default:
		mode = arch_timer_mode_supported(ARCH_TIMER_DEADLINE) ? ARCH_TIMER_DEADLINE : ARCH_TIMER_ONESHOT;
		break;
	}
	if (!arch_timer_mode_supported(mode)) {
		kprintf("clock: timer=%s is not available on this CPU; using one-shot mode\n",
			arch_timer_mode_name(mode));
		mode = ARCH_TIMER_ONESHOT;
	}
	arch_timer_set_mode(mode);
	gather_tick_clients();
	clock_tick_cycles = ke_tsc_hz / ke_config->tick_hz;
	clock_late_cycles = ke_us_to_tsc(CLOCK_LATE_US);
	arch_interrupt_connect(ARCH_INT_CLOCK, clock_interrupt);
	kprintf("clock: %u Hz tick at IRQL %u (vector 0x%x), timer in %s mode\n", ke_config->tick_hz,
		arch_interrupt_irql(ARCH_INT_CLOCK), arch_interrupt_vector(ARCH_INT_CLOCK), arch_timer_mode_name(mode));
}

void ke_clock_start_cpu(void)
{
	KPRCB *prcb = ke_get_current_prcb();
	KTIMER_ENTRY *tick = &clock_tick_entry[prcb->Number];
	unsigned long flags = arch_irq_save();

	arch_timer_enable();
	ke_timer_entry_init(tick, clock_tick, NULL);
	ki_timer_queue_insert(&prcb->TimerQueue, tick, arch_rdtsc() + clock_tick_cycles, clock_tick_cycles);
	if (arch_timer_get_mode() == ARCH_TIMER_PERIODIC) {
		prcb->ClockDue = arch_rdtsc() + clock_tick_cycles;
		arch_timer_start_periodic(clock_tick_cycles);
	} else {
		clock_rearm(prcb);
	}
	arch_irq_restore(flags);
}

void ke_set_timer_current(KTIMER_ENTRY *e, uint64_t deadline_tsc, uint64_t period_tsc)
{
	KPRCB *prcb = ke_get_current_prcb();
	unsigned long flags = arch_irq_save();

	if (ki_timer_queue_insert(&prcb->TimerQueue, e, deadline_tsc, period_tsc))
		clock_rearm(prcb);
	arch_irq_restore(flags);
}

bool ke_cancel_timer(KTIMER_ENTRY *e)
{
	return ki_timer_queue_remove(e);
}
