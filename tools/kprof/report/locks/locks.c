/*
 * locks.c - the "Spin locks" section of `kprof report`, in the
 * manner of illumos lockstat: per lock (SpinLockAddress, named from its
 * KprofObjectName record when the kernel wrote one) and, under each, per
 * release site (CallerAddress: where the lock was released, the record
 * being written at release; kernel/locks/spinlock.h), from the
 * WMI_SPINLOCK records: traced acquisitions, how many were contended,
 * wait and hold cycles (median, 99th percentile, maximum), spins,
 * AcquireMode names, and estimated totals scaled by the sampling.
 *
 * Which releases are traced (docs/etw-records.md, kernel/locks/lockstat.c): an
 * acquisition is contended when its SpinCount reaches SpinThreshold, and
 * then traced with probability 1/ContentionSampleRate; any other one with
 * probability 1/AcquireSampleRate; one held (ReleaseTime - AcquireTime)
 * for at least HoldThreshold cycles (when that is not 0) always, whatever
 * the draw said.  A record is written once however many of these reasons
 * it had, so its chance of being traced is 1 if it was a long hold, else
 * 1/rate of its class.  The estimate weighs each traced record by the
 * inverse of that chance (Horvitz-Thompson): a long hold counts 1, a
 * contended one ContentionSampleRate, another AcquireSampleRate.  Scaling
 * the long holds too would count them rate times over.
 *
 * The rates in force for each record: lock_sampling.c.
 *
 * Statistics are of the traced records: wait over those that waited
 * (WaitTimeInCycles > 0), hold over all; percentiles are nearest-rank.
 * Ordering: total wait cycles descending, ties by address (release sites:
 * then traced count descending), so the text is stable for golden tests.
 * Sites are printed whole, function+0xoff and, from the kernel's DWARF,
 * file:line: a name too long for its column gets a line of its own.
 * The records are read from the log in time order, the figures made as
 * they come (lock_stats.c: a row per lock and release site, the medians
 * and percentiles exact without keeping the records).
 *
 * A wait's stretch of time on a stalled CPU (model/stall.c: the CPU could
 * not run, steal time on a VM) is not spin-wait time: it is taken out of
 * the record's wait (WaitTimeInCycles less the stall cycles within
 * [AcquireTime - WaitTimeInCycles, AcquireTime) on its CPU) and shown
 * apart as "stalled".
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/read/fields.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/sort.h"

#define TOP_LOCKS 15
#define TOP_SITES 5
#define NAME_COLS 30                  /* release-site column; longer get a line    */
#define SITE_MODE_COLS 53             /* the modes under it, up to "hold"          */
#define MODES KP_LOCK_MODES

/* AcquireMode i as the field table names it; the last one is any other. */
static const char *mode_name(int i)
{
	return i < MODES - 1 ? kp_acquire_mode_name((uint8_t)i) : "other";
}

/* Locks: total wait descending, then address. */
static int lock_order(const void *a, const void *b)
{
	const struct kp_lock_group *x = a, *y = b;
	if (x->wait_total != y->wait_total)
		return x->wait_total > y->wait_total ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* "SpinLock 12, QueuedSpinLock 3" in at most cols; "+k more" when cut. */
static const char *mode_list(const uint64_t *modes, char *buf, size_t cols)
{
	size_t len = 0;
	int left = 0;

	buf[0] = 0;
	for (int i = 0; i < MODES; i++)
		left += modes[i] != 0;
	for (int i = 0; i < MODES; i++) {
		char one[48];
		if (!modes[i])
			continue;
		snprintf(one, sizeof(one), "%s%s %" PRIu64, len ? ", " : "", mode_name(i), modes[i]);
		if (len + strlen(one) + (left > 1 ? 9 : 0) > cols) {
			snprintf(buf + len, cols + 1 - len, "%s+%d more", len ? ", " : "", left);
			break;
		}
		strcpy(buf + len, one);
		len += strlen(one);
		left--;
	}
	return buf;
}

/* Only executive spin locks: their CallerAddress is the return address
 * of the release call (exspinlock.c), the others' the release itself
 * (KI_HERE in spinlock.h). */
static bool site_is_return(const struct kp_lock_group *c)
{
	return !c->modes[SpinLockModeOrdinary] && !c->modes[SpinLockModeQueued] && !c->modes[MODES - 1];
}

/* Two rows: counts and wait, then the modes and hold (cycles). */
static void print_site(FILE *f, const struct kp_lock_group *c, const struct kp_symbols *syms)
{
	char name[512], modes[SITE_MODE_COLS + 1], p[16], med[24], p99[24], max[24];

	kp_report_site(syms, c->addr, site_is_return(c), name, sizeof(name));
	if (strlen(name) > NAME_COLS) {
		fprintf(f, "    %s\n", name);
		name[0] = 0;
	}
	fprintf(f, "    %-*s %7" PRIu64 " %6s %9" PRIu64 "  wait %10s %10s %10s\n", NAME_COLS, name, c->traced,
		kp_pct(p, sizeof(p), c->contended, c->traced, 1), c->spins,
		kp_stats_num(med, sizeof(med), c->wait.median, c->wait.n),
		kp_stats_num(p99, sizeof(p99), c->wait.p99, c->wait.n), kp_stats_num(max, sizeof(max), c->wait.max, c->wait.n));
	fprintf(f, "      %-*s  hold %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n", SITE_MODE_COLS,
		mode_list(c->modes, modes, SITE_MODE_COLS), c->hold.median, c->hold.p99, c->hold.max);
}

/* The estimates' 95% intervals (interval.c), when any record stood for
 * more than itself: the totals, and the contended share of all the
 * acquisitions (a ratio of two of them, the delta method, clipped to
 * 0..100%), the share `kprof assert`'s `contended est` measures. */
static void print_ci(FILE *f, const struct kp_log *log, const char *lead, const struct kp_lock_group *g)
{
	char a[48], c[48], w[80], lo[32], hi[32];
	double half = 1.959963984540054 * sqrt(g->var_wait), var, slo, shi;
	double share = kp_lock_est_share((double)g->est_acq, (double)g->est_cont, g->var_acq, g->var_cont, &var);

	if (g->var_acq <= 0)
		return;
	kp_report_time(log, half < (double)g->est_wait - (double)g->wait_total ? g->est_wait - (uint64_t)half : g->wait_total,
		       lo, sizeof(lo));
	kp_report_time(log, g->est_wait + (uint64_t)half, hi, sizeof(hi));
	snprintf(w, sizeof(w), "%s to %s", lo, hi);
	kp_share_interval(share, var, &slo, &shi);
	kp_wrapf(f, lead, 0, (int)strlen(lead) + 2, ", ",
		 "95%% CI: acquisitions %s\tcontended %s (%.1f-%.1f%% of all)\twait total %s",
		 kp_ht_text(g->est_acq, g->var_acq, g->traced, a, sizeof(a)),
		 kp_ht_text(g->est_cont, g->var_cont, g->contended, c, sizeof(c)), 100 * slo, 100 * shi, w);
}

/* "\tstalled 1.234 ms (left out)" when any of the waits was stalled, else "". */
static const char *stalled_text(const struct kp_log *log, uint64_t stalled, char *buf, size_t size)
{
	char t[32];

	buf[0] = 0;
	if (stalled)
		snprintf(buf, size, "\tstalled %s (left out)", kp_report_time(log, stalled, t, sizeof(t)));
	return buf;
}

static void print_lock(FILE *f, const struct kp_report *rp, int rank, const struct kp_lock_group *g,
		       const struct kp_lock_group *sites)
{
	const struct kp_symbols *syms = rp->syms;
	struct kp_log *log = rp->log;
	char head[400], modes[KP_TEXT_WIDTH + 1], p[16], us[32], name[300], st[64];
	uint64_t rest = 0;
	int len;

	len = snprintf(head, sizeof(head), "%2d lock %s: ", rank, kp_report_object(rp, g->addr, name, sizeof(name)));
	if (len > KP_TEXT_WIDTH - 24) /* the modes on a line of their own */
		fprintf(f, "\n%s\n     %s\n", head, mode_list(g->modes, modes, (size_t)(KP_TEXT_WIDTH - 5)));
	else
		fprintf(f, "\n%s%s\n", head, mode_list(g->modes, modes, (size_t)(KP_TEXT_WIDTH - len)));
	kp_wrapf(f, "     ", 0, 7, ", ",
		 "traced %" PRIu64 "\tcontended %" PRIu64 " (%s)\tspins %" PRIu64 "\twait total %" PRIu64 " cycles = %s%s",
		 g->traced, g->contended, kp_pct(p, sizeof(p), g->contended, g->traced, 1), g->spins, g->wait_total,
		 kp_report_time(log, g->wait_total, us, sizeof(us)), stalled_text(log, g->stalled, st, sizeof(st)));
	kp_wrapf(f, "     ", 0, 7, ", ",
		 "estimate: %" PRIu64 " acquisitions\t%" PRIu64 " contended (%s)\twait total %" PRIu64
		 " cycles = %s",
		 g->est_acq, g->est_cont, kp_pct(p, sizeof(p), g->est_cont, g->est_acq, 1), g->est_wait,
		 kp_report_time(log, g->est_wait, us, sizeof(us)));
	print_ci(f, log, "     ", g);
	const struct kp_stats *rows[] = { &g->wait, &g->hold, &g->hold_est };
	struct kp_stats_units u = kp_stats_units(log, rows, 3);
	kp_stats_header(f, "     ", &u);
	kp_stats_row(f, log, "     wait", &g->wait, &u);
	kp_stats_row(f, log, "     hold", &g->hold, &u);
	kp_stats_row(f, log, "     hold est", &g->hold_est, &u);
	fprintf(f, "    %-*s %7s %6s %9s  %-4s %10s %10s %10s\n", NAME_COLS,
		g->nsites > TOP_SITES ? "release sites (top 5)" : "release sites", "traced", "cont%", "spins", "", "median",
		"p99", "max");
	for (size_t i = 0; i < g->nsites; i++) {
		if (i < TOP_SITES)
			print_site(f, &sites[g->site0 + i], syms);
		else
			rest += sites[g->site0 + i].traced;
	}
	if (g->nsites > TOP_SITES)
		fprintf(f, "    (%zu more release sites, %" PRIu64 " traced)\n", g->nsites - TOP_SITES, rest);
}

/* The lock (its name, or address and symbol) and where it is released
 * most (the site with the most traced releases, then the lowest
 * address), whole: the line wraps instead (report.c's --summary keeps the
 * continuation lines with it). */
static void print_most_contended(FILE *f, const struct kp_report *rp, const struct kp_lock_group *best,
				 const struct kp_lock_group *sites)
{
	char name[300], site[512], pct[16];
	const struct kp_lock_group *top = &sites[best->site0];

	for (size_t i = 1; i < best->nsites; i++)
		if (sites[best->site0 + i].traced > top->traced ||
		    (sites[best->site0 + i].traced == top->traced && sites[best->site0 + i].addr < top->addr))
			top = &sites[best->site0 + i];
	kp_wrapf(f, "", 0, 2, " ", "most contended: %s: %" PRIu64 " contended acquisitions (%s of traced), released "
		 "most at %s", kp_report_object(rp, best->addr, name, sizeof(name)), best->contended,
		 kp_pct(pct, sizeof(pct), best->contended, best->traced, 0),
		 kp_report_site(rp->syms, top->addr, site_is_return(top), site, sizeof(site)));
}

/* The lock with the most contended acquisitions (estimated, then traced,
 * then total wait, then lowest address), and the one waited for longest
 * (then lowest address). */
static void print_leaders(FILE *f, const struct kp_report *rp, const struct kp_lock_group *locks, size_t nlocks,
			  const struct kp_lock_group *sites)
{
	const struct kp_lock_group *best = NULL, *waited = NULL;
	char name[300], us[32];

	for (size_t i = 0; i < nlocks; i++) { /* locks[] is in address order here */
		const struct kp_lock_group *g = &locks[i];
		if (g->contended && (!best || g->est_cont > best->est_cont ||
				     (g->est_cont == best->est_cont &&
				      (g->contended > best->contended ||
				       (g->contended == best->contended && g->wait_total > best->wait_total)))))
			best = g;
		if (g->wait_total && (!waited || g->wait_total > waited->wait_total))
			waited = g;
	}
	if (!best)
		fprintf(f, "most contended: none (no traced acquisition reached the spin threshold)\n");
	else
		print_most_contended(f, rp, best, sites);
	if (!waited) {
		fprintf(f, "most waited for: none (no traced acquisition waited)\n");
		return;
	}
	kp_wrapf(f, "", 0, 2, " ", "most waited for: %s: %" PRIu64 " cycles = %s in all",
		 kp_report_object(rp, waited->addr, name, sizeof(name)), waited->wait_total,
		 kp_report_time(rp->log, waited->wait_total, us, sizeof(us)));
}

void kp_report_locks(FILE *f, const struct kp_report *rp)
{
	struct kp_log *log = rp->log;
	struct kp_lock_sampling smp;
	const struct kp_lock_table *t = &rp->cache->locks; /* gathered (walk.c) */
	char p[16], us[32], st[64];

	kp_report_section(f, "Spin locks");
	if (!t->all.traced) {
		fprintf(f, "no SpinLock records (spin-lock tracing is the group trace=spinlock)\n");
		return;
	}
	kp_lock_sampling_init(&smp, rp);
	const struct kp_lock_group *all = &t->all, *sites = t->sites;
	size_t nlocks = t->nlocks, nsites = t->nsites;

	print_leaders(f, rp, t->locks, nlocks, sites);
	kp_lock_sampling_print(f, &smp);
	fprintf(f, "\"estimate\": each traced record counts <its sampling rate> acquisitions (1 if held past "
		   "threshold)\n");
	kp_wrapf(f, "", 0, 2, ", ",
		 "traced: %" PRIu64 " acquisitions of %zu lock%s at %zu release site%s\t%" PRIu64
		 " contended (%s)\t%" PRIu64 " spins\twait total %" PRIu64 " cycles = %s%s",
		 all->traced, nlocks, nlocks == 1 ? "" : "s", nsites, nsites == 1 ? "" : "s", all->contended,
		 kp_pct(p, sizeof(p), all->contended, all->traced, 1), all->spins, all->wait_total,
		 kp_report_time(log, all->wait_total, us, sizeof(us)), stalled_text(log, all->stalled, st, sizeof(st)));
	kp_wrapf(f, "", 0, 2, ", ",
		 "estimate: %" PRIu64 " acquisitions\t%" PRIu64 " contended (%s)\twait total %" PRIu64
		 " cycles = %s",
		 all->est_acq, all->est_cont, kp_pct(p, sizeof(p), all->est_cont, all->est_acq, 1), all->est_wait,
		 kp_report_time(log, all->est_wait, us, sizeof(us)));
	print_ci(f, log, "", all);
	fprintf(f, "contended: SpinCount >= spin threshold; wait: WaitTimeInCycles of those that waited,\n"
		   "less its time on a stalled CPU (stalled: KprofClockLate intervals, shown apart);\n"
		   "hold: ReleaseTime - AcquireTime; median, p99 (nearest rank), max of the traced records;\n"
		   "hold est: the same weighted by the estimate (long holds are always traced, others not);\n"
		   "95%% CI: of the estimates, normal, from the Horvitz-Thompson variance sum w(w-1)\n");
	kp_report_lost_note(f, log);

	struct kp_lock_group *order = kp_xcalloc(nlocks, sizeof(*order)); /* the table stays in address order */
	memcpy(order, t->locks, nlocks * sizeof(*order));
	kp_sort(order, nlocks, sizeof(*order), lock_order);
	fprintf(f, "\nLocks by total wait (top %d of %zu)\n", nlocks > TOP_LOCKS ? TOP_LOCKS : (int)nlocks, nlocks);
	for (size_t i = 0; i < nlocks && i < TOP_LOCKS; i++)
		print_lock(f, rp, (int)i + 1, &order[i], sites);
	free(order);
}
