/*
 * outfile.c - output files (outfile.h).
 */
#include "tools/kprof/util/outfile.h"

#include <errno.h>
#include <string.h>

FILE *kp_out_open(const char *path)
{
	if (!path)
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "kprof: cannot create %s: %s\n", path, strerror(errno));
	return f;
}

int kp_out_close(FILE *f, const char *path)
{
	int err = 0;

	errno = 0;
	if (fflush(f) || ferror(f))
		err = errno ? errno : EIO;
	if (f != stdout && fclose(f) && !err)
		err = errno ? errno : EIO;
	if (err) {
		fprintf(stderr, "kprof: cannot write %s: %s (the file is incomplete)\n", path ? path : "stdout",
			strerror(err));
		return 3;
	}
	return 0;
}
