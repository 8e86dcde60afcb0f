/*
 * stats.c - the 95% intervals of `kprof compare` (compare.h).
 *
 * Over runs (both sides sets of at least two runs): Welch's t interval of
 * the difference of the two means of the per-run values, with the
 * Welch-Satterthwaite degrees of freedom; the t quantile from Student's
 * distribution function, I_x(df/2, 1/2) the regularised incomplete beta
 * function (its continued fraction, evaluated by the modified Lentz
 * method), inverted by bisection.
 *
 * Over the same runs (--by: A's events against B's in each run): the
 * paired t interval of the mean of the per-run differences, n - 1
 * degrees of freedom (the runs' shared conditions cancel).
 *
 * Within one run each (a run against a run): the normal interval of the
 * difference, B - A +- 1.96 sqrt(var A + var B), each variance estimated
 * within its run (collect.c says how for each kind of figure).
 */
#include "tools/kprof/compare/compare.h"

#include <math.h>
#include <stdlib.h>

#define Z975 1.959963984540054

/* The continued fraction of I_x(a, b) (x < (a + 1) / (a + b + 2)). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = fabs(d) < tiny ? tiny : d;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m;
		double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		for (int k = 0; k < 2; k++) {
			d = 1 + num * d;
			d = fabs(d) < tiny ? tiny : d;
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			d = 1 / d;
			h *= d * c;
			num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		}
		if (fabs(d * c - 1) < 1e-15)
			break;
	}
	return h;
}

/* The regularised incomplete beta function I_x(a, b). */
static double ibeta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double kp_t_cdf(double t, double df)
{
	double tail = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t));
	return t >= 0 ? 1 - tail : tail;
}

double kp_t_quantile(double p, double df)
{
	double lo = 0, hi = 1;

	if (p == 0.5)
		return 0;
	if (p < 0.5)
		return -kp_t_quantile(1 - p, df);
	while (kp_t_cdf(hi, df) < p && hi < 1e9)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (kp_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Mean and sample variance of v[0..n). */
static void mean_var(const double *v, size_t n, double *mean, double *var)
{
	double s = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = s / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*var = n > 1 ? ss / (double)(n - 1) : NAN;
}

bool kp_welch(const double *a, size_t na, const double *b, size_t nb, struct kp_interval *out)
{
	double ma, va, mb, vb;

	if (na < 2 || nb < 2)
		return false;
	mean_var(a, na, &ma, &va);
	mean_var(b, nb, &mb, &vb);
	double ea = va / (double)na, eb = vb / (double)nb, se2 = ea + eb;
	out->a = ma;
	out->b = mb;
	out->diff = mb - ma;
	out->df = se2 > 0 ? se2 * se2 / (ea * ea / (double)(na - 1) + eb * eb / (double)(nb - 1)) : INFINITY;
	double half = se2 > 0 ? kp_t_quantile(0.975, out->df) * sqrt(se2) : 0;
	out->lo = out->diff - half;
	out->hi = out->diff + half;
	return true;
}

bool kp_paired(const double *a, const double *b, size_t n, struct kp_interval *out)
{
	double ma, va, mb, vb, md, vd;
	double *d;

	if (n < 2)
		return false;
	d = malloc(n * sizeof(*d));
	if (!d)
		return false;
	for (size_t i = 0; i < n; i++)
		d[i] = b[i] - a[i];
	mean_var(a, n, &ma, &va);
	mean_var(b, n, &mb, &vb);
	mean_var(d, n, &md, &vd);
	free(d);
	double se2 = vd / (double)n, half = se2 > 0 ? kp_t_quantile(0.975, (double)(n - 1)) * sqrt(se2) : 0;
	*out = (struct kp_interval){ .a = ma, .b = mb, .diff = md, .lo = md - half, .hi = md + half,
				     .df = (double)(n - 1) };
	return true;
}

bool kp_normal_diff(double a, double var_a, double b, double var_b, struct kp_interval *out)
{
	if (isnan(var_a) || isnan(var_b))
		return false;
	double half = Z975 * sqrt(var_a + var_b);
	*out = (struct kp_interval){ .a = a, .b = b, .diff = b - a, .lo = b - a - half, .hi = b - a + half,
				     .df = INFINITY };
	return true;
}
