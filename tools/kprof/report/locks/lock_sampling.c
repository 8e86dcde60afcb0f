/*
 * lock_sampling.c - which spin-lock acquisitions the kernel traced, for
 * the report's estimates (locks.c): the sampling setting in force for each
 * SpinLock record, and the lines that say where the settings came from.
 *
 * The settings come from KprofSpinlockConfig records (hook 0xFE05,
 * written when the trace starts and whenever they change): a record is
 * weighed by the last setting written before it in time (the model keeps
 * its index), the first one for records before any.  A log without them
 * takes the kernel's defaults and the run header's command line keys
 * spinlock.*.
 */
#include "tools/kprof/report/report.h"

#include <stdlib.h>
#include <string.h>

/* The kernel's defaults, then the command line's spinlock.* keys (all or
 * nothing, as spinlock_params_set() applies them). */
static void fallback_config(const struct kp_log *log, struct kp_lock_sampling *s)
{
	static const char *const keys[4] = {
		"spinlock.spin_threshold=", "spinlock.acquire_sample_rate=", "spinlock.contention_sample_rate=",
		"spinlock.hold_threshold=",
	};
	static const KPROF_SPINLOCK_CONFIG defaults = { 1, 1000, 1, 1000000 };
	uint32_t v[4] = { 1, 1000, 1, 1000000 };
	bool any = false;

	s->fallback = defaults;
	s->fallback_source = "the kernel's defaults: no KprofSpinlockConfig record, no spinlock.* key";
	for (int k = 0; log->have_header && k < 4; k++) {
		for (const char *p = log->cmdline; (p = strstr(p, keys[k])); p++) {
			if (p != log->cmdline && p[-1] != ' ')
				continue;
			v[k] = (uint32_t)strtoul(p + strlen(keys[k]), NULL, 10);
			any = true;
		}
	}
	if (!any)
		return;
	if (v[0] < 1 || v[1] < 1000 || v[2] < 1 || (v[3] != 0 && v[3] < 1000000)) {
		s->fallback_source = "the kernel's defaults: spinlock.* keys out of range (refused), "
				     "no KprofSpinlockConfig record";
		return;
	}
	s->fallback = (KPROF_SPINLOCK_CONFIG){ v[0], v[1], v[2], v[3] };
	s->fallback_source = "the command line's spinlock.* keys, defaults for the rest: "
			     "no KprofSpinlockConfig record";
}

void kp_lock_sampling_init(struct kp_lock_sampling *s, const struct kp_report *r)
{
	*s = (struct kp_lock_sampling){ .configs = r->m->spinlock_configs, .nconfigs = r->m->nspinlock_configs };
	fallback_config(r->log, s);
}

const KPROF_SPINLOCK_CONFIG *kp_lock_sampling_at(const struct kp_lock_sampling *s, int config)
{
	return s->nconfigs ? &s->configs[config < 0 ? 0 : config] : &s->fallback;
}

void kp_lock_sampling_print(FILE *f, const struct kp_lock_sampling *s)
{
	const KPROF_SPINLOCK_CONFIG *c = s->nconfigs ? &s->configs[s->nconfigs - 1] : &s->fallback;
	bool changed = false;

	for (size_t i = 1; i < s->nconfigs; i++)
		changed |= memcmp(&s->configs[i], &s->configs[0], sizeof(*c)) != 0;
	fprintf(f, "sampling%s: spin threshold %u, acquire rate %u, contention rate %u, hold threshold %u\n",
		changed ? " (last)" : "", c->SpinLockSpinThreshold, c->SpinLockAcquireSampleRate,
		c->SpinLockContentionSampleRate, c->SpinLockHoldThreshold);
	if (!s->nconfigs)
		fprintf(f, "  from %s\n", s->fallback_source);
	else if (changed)
		fprintf(f, "  from %zu KprofSpinlockConfig records: the rates changed; each record is scaled\n"
			   "  by the rates in force when it was written\n", s->nconfigs);
	else
		fprintf(f, "  from %zu KprofSpinlockConfig record%s\n", s->nconfigs, s->nconfigs == 1 ? "" : "s");
}
