/*
 * sides.c - what each side of `kprof compare` is (compare.h): a log file
 * (one run); a run's folder, as `make run` leaves it (its serial.log);
 * or a set's folder, as `make run REPEAT=N` leaves it (build/runs/NAME/
 * 1..N: folders that each hold a serial.log), its runs in the order of
 * their numbers.  Anything else is refused, naming what was looked for.
 */
#include "tools/kprof/compare/compare.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/kprof/util/alloc.h"

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
