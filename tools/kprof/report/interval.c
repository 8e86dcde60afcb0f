/*
 * interval.c - 95% confidence intervals for the report's sampled
 * figures, so that an estimate from a handful of samples says so:
 *
 *   - a share of samples (a hot spot's): the Wilson score interval for a
 *     binomial proportion k/n (Wilson 1927), which stays inside [0, 1]
 *     and is sound for small k, unlike the normal "p +- 1.96 sqrt(p(1-p)/n)".
 *     When the samples carry weights (a SampledProfile's Count: the
 *     periods it stands for) the share is of the weights, and n is Kish's
 *     effective sample size (sum w)^2 / sum w^2, k = share x n: the same
 *     interval when every weight is 1, wider the more they vary;
 *   - a Horvitz-Thompson total (the spin-lock estimates, locks.c): every
 *     acquisition is traced independently with probability 1/w, so the
 *     estimate sum(w) over the traced ones has the unbiased variance
 *     estimate sum(w (w - 1)); the interval is the normal one,
 *     estimate +- 1.96 sqrt(that), never below the traced count itself;
 *   - a ratio of two such totals (the contended share of all
 *     acquisitions, est_cont / est_acq = R): by the delta method its
 *     variance is sum(w (w - 1) (y - R)^2) / est_acq^2, y 1 for a
 *     contended record, else 0; the sum splits into the two variance
 *     sums already kept, var_cont (1 - R)^2 + (var_acq - var_cont) R^2.
 *     The normal interval, clipped to [0, 1]: a share is no less and no
 *     more.  When every record stands for itself the variance is 0: the
 *     share is then exact, not estimated.
 */
#include "tools/kprof/report/report.h"

#include <inttypes.h>
#include <math.h>

#define Z95 1.959963984540054 /* the standard normal's 97.5% quantile */

void kp_wilson(double p, double n, double *lo, double *hi)
{
	if (!(n > 0)) {
		*lo = 0, *hi = 1;
		return;
	}
	double z2 = Z95 * Z95, d = 1 + z2 / n;
	double mid = (p + z2 / (2.0 * n)) / d;
	double half = Z95 * sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / d;
	*lo = mid - half < 0 ? 0 : mid - half;
	*hi = mid + half > 1 ? 1 : mid + half;
}

const char *kp_share_ci_text(uint64_t w, uint64_t all_w, double all_w2, char *buf, size_t size)
{
	double lo = 0, hi = 1;

	if (all_w && all_w2 > 0)
		kp_wilson((double)w / (double)all_w, (double)all_w * (double)all_w / all_w2, &lo, &hi);
	snprintf(buf, size, "%.1f-%.1f%%", 100.0 * lo, 100.0 * hi);
	return buf;
}

const char *kp_ht_text(uint64_t estimate, double variance, uint64_t traced, char *buf, size_t size)
{
	double half = Z95 * sqrt(variance), lo = (double)estimate - half, hi = (double)estimate + half;

	if (lo < (double)traced)
		lo = (double)traced;
	snprintf(buf, size, "%.0f-%.0f", lo, hi);
	return buf;
}

double kp_lock_est_share(double est_acq, double est_cont, double var_acq, double var_cont, double *var)
{
	if (!(est_acq > 0)) {
		*var = 0;
		return 0;
	}
	double r = est_cont / est_acq;
	*var = (var_cont * (1 - r) * (1 - r) + (var_acq - var_cont) * r * r) / (est_acq * est_acq);
	return r;
}

void kp_share_interval(double share, double var, double *lo, double *hi)
{
	double half = Z95 * sqrt(var > 0 ? var : 0);

	*lo = share - half < 0 ? 0 : share - half;
	*hi = share + half > 1 ? 1 : share + half;
}
