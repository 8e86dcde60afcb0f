/*
 * run.c - one run loaded for measuring (metrics.h): its log read, its
 * model built once, the kernel's symbols opened and checked against the
 * log's build (as every command checks --kernel), and the figures the
 * report computes per section (the spin-lock records, the ProfileTime
 * rows) made once for all the rules or metrics that read them.
 */
#include "tools/kprof/metrics/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/elf/build_id.h"

int kp_run_load(struct kp_runlog *r, const char *path, const char *kernel, bool force)
{
	*r = (struct kp_runlog){ .path = path };
	if (kp_log_read(path, &r->log)) {
		fprintf(stderr, "kprof: cannot read %s: %s\n", path, strerror(errno));
		*r = (struct kp_runlog){ 0 }; /* nothing to free: path NULL */
		return 3;
	}
	kp_build_id_expect(r->log.have_header ? r->log.build_id : NULL, force);
	if (!kp_symbols_for(kernel, &r->syms)) {
		kp_log_free(&r->log);
		*r = (struct kp_runlog){ 0 };
		return 3;
	}
	kp_totals(&r->log, &r->totals, NULL);
	/* compare's threads and both's lock figures; no wait or ready is read */
	kp_model_build_keeping(&r->m, &r->log, KP_KEEP_RUNS);
	struct kp_report_cache cache = { 0 }; /* the samples' sums, for the rows */
	r->rp = (struct kp_report){ .log = &r->log, .m = &r->m, .syms = r->syms, .cache = &cache };
	r->locks = kp_lock_recs(&r->rp, &r->nlocks);
	kp_report_gather(&r->rp, KP_GATHER_SAMPLES);
	r->nhot = kp_hot_profile_rows(&r->rp, &r->hot, &r->hot_all);
	kp_report_cache_free(&cache);
	r->rp.cache = NULL;
	return 0;
}

void kp_run_free(struct kp_runlog *r)
{
	free(r->locks);
	free(r->hot);
	kp_model_free(&r->m);
	if (r->syms)
		kp_symbols_close(r->syms);
	kp_log_free(&r->log);
}

bool kp_run_lost(const struct kp_runlog *r, uint64_t *lost, char *why, size_t size)
{
	const struct kp_totals *t = &r->totals;
	size_t len = 0;

	*lost = t->lost_total + t->lost_file + t->lost_link;
	if (!r->log.ncpus) {
		snprintf(why, size, "no CPU sent any frame, so nothing says what was lost");
		return false;
	}
	if (!t->cpus_without_end)
		return true;
	len = (size_t)snprintf(why, size, "not known: no end frame (the kernel's count of dropped records) from CPU");
	for (uint32_t i = 0, k = 0; i < r->log.ncpus && len < size; i++)
		if (!r->log.cpus[i].have_end)
			len += (size_t)snprintf(why + len, size - len, "%s %u", k++ ? "," : "", i);
	return false;
}
