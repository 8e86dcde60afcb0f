/*
 * sides.c - what each side of `kprof compare` is (compare.h): a log file
 * (one run); a run's folder, as `make run` leaves it (its serial.log);
 * or a set's folder, as `make run REPEAT=N` leaves it (build/runs/NAME/
 * 1..N: folders that each hold a serial.log), its runs in the order of
 * their numbers.  Anything else is refused, naming what was looked for.
 *
 * Once read, a set's runs are checked (kp_cmp_side_keep): a log with no
 * run header or no records (an empty serial.log, a text file) or of
 * another scenario than most of the set's is not one of its runs; it is
 * left out with a note, so the figures are those of the real runs only,
 * never a mean with a run of zeros.  A single log with neither a header
 * nor a record is refused: there is nothing of a run in it.
 */
#include "tools/kprof/compare/compare.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "include/kprof/scenario.h"
#include "tools/kprof/util/alloc.h"
#include "tools/kprof/util/utf8.h"

static bool is_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static char *join(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = kp_xcalloc(n, 1);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

/* Run folders by number ("2" before "10"): the paths differ only in the
 * folder's name, so a shorter one first, then in byte order. */
static int by_number(const void *x, const void *y)
{
	const char *a = *(char *const *)x, *b = *(char *const *)y;
	if (strlen(a) != strlen(b))
		return strlen(a) < strlen(b) ? -1 : 1;
	return strcmp(a, b);
}

int kp_cmp_side_read(const char *path, struct kp_cmp_side *s)
{
	struct stat st;
	size_t cap = 0;
	DIR *d;

	*s = (struct kp_cmp_side){ .path = path };
	if (stat(path, &st)) {
		fprintf(stderr, "kprof: compare: cannot read %s: %s\n", path, strerror(errno));
		return 3;
	}
	if (S_ISREG(st.st_mode)) {
		s->logs = kp_xcalloc(1, sizeof(*s->logs));
		s->logs[s->n++] = kp_xstrdup(path);
		return 0;
	}
	char *own = join(path, "serial.log");
	if (is_file(own)) {
		s->logs = kp_xcalloc(1, sizeof(*s->logs));
		s->logs[s->n++] = own;
		return 0;
	}
	free(own);
	if (!(d = opendir(path))) {
		fprintf(stderr, "kprof: compare: cannot read the folder %s: %s\n", path, strerror(errno));
		return 3;
	}
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char *dir = join(path, e->d_name), *log = join(dir, "serial.log");
		free(dir);
		if (!is_file(log)) {
			free(log);
			continue;
		}
		s->logs = kp_grow(s->logs, &cap, s->n + 1, sizeof(*s->logs));
		s->logs[s->n++] = log;
	}
	closedir(d);
	if (!s->n) {
		fprintf(stderr, "kprof: compare: %s is neither a log, a run's folder (with serial.log) nor a set of "
				"runs (folders with serial.log: make run REPEAT=N makes build/runs/NAME/1..N)\n", path);
		return 3;
	}
	qsort(s->logs, s->n, sizeof(*s->logs), by_number);
	return 0;
}

void kp_cmp_side_free(struct kp_cmp_side *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->logs[i]);
	free(s->logs);
}

/* The run's scenario, as the pictures name it ("" when not known). */
static const char *scenario(const struct kp_runlog *r)
{
	return r->log.scenario_name[0] ? r->log.scenario_name
	       : r->log.have_header ? kprof_scenario_name(r->log.header.scenario) : "";
}

static bool is_run(const struct kp_runlog *r)
{
	return r->log.have_header && r->totals.records;
}

int kp_cmp_side_keep(struct kp_cmp_table *t, int side, struct kp_cmp_side *s, struct kp_runlog **runs)
{
	const char *most = NULL;
	size_t best = 0, kept = 0, n = s->n;
	char sc[300], out[400] = "";
	size_t len = 0;

	if (n == 1) {
		if (runs[0]->log.have_header || runs[0]->totals.records)
			return 0;
		fprintf(stderr, "kprof: compare: %s holds no run: no run header and no records\n",
			kp_printable(sc, sizeof(sc), s->logs[0]));
		return 3;
	}
	for (size_t i = 0; i < n; i++) { /* the scenario most of the runs have */
		size_t same = 0;
		for (size_t k = 0; k < n && is_run(runs[i]); k++)
			same += is_run(runs[k]) && !strcmp(scenario(runs[k]), scenario(runs[i]));
		if (same > best)
			best = same, most = scenario(runs[i]);
	}
	for (size_t i = 0; i < n; i++) {
		if (is_run(runs[i]) && !strcmp(scenario(runs[i]), most)) {
			s->logs[kept] = s->logs[i];
			runs[kept++] = runs[i];
			continue;
		}
		const char *why = !runs[i]->log.have_header && !runs[i]->totals.records
					  ? "not a run's log: no run header and no records"
				  : !runs[i]->log.have_header ? "no run header"
				  : !runs[i]->totals.records ? "no records"
							     : "another scenario than the set's";
		kp_cmp_note(t, "%c run %zu (%s): %s; left out of the set, whose figures are of its other runs",
			    side ? 'B' : 'A', i + 1, kp_printable(sc, sizeof(sc), s->logs[i]), why);
		if (len < sizeof(out))
			len += (size_t)snprintf(out + len, sizeof(out) - len, "; run %zu: %s", i + 1, why);
		free(s->logs[i]);
		kp_run_free(runs[i]);
		free(runs[i]);
	}
	s->n = kept;
	if (kept >= 2)
		return 0;
	fprintf(stderr, "kprof: compare: %s: %zu of its %zu runs %s a run's log of its scenario (left out%s): a set "
		"needs two\n", kp_printable(sc, sizeof(sc), s->path), kept, n, kept == 1 ? "is" : "are", out);
	return 3;
}
