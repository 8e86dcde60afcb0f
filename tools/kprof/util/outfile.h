/*
 * outfile.h - the output of a command: a file named by -o, or stdout.
 * Opening and closing say what went wrong the same way for every command,
 * and a close that finds a write error (a full disk) is an error: exit
 * status 3, never a silently short file.
 */
#ifndef KPROF_TOOL_OUTFILE_H
#define KPROF_TOOL_OUTFILE_H

#include <stdio.h>

/* path opened for writing, or stdout when path is NULL; NULL (with a
 * message) when it cannot be created. */
FILE *kp_out_open(const char *path);
/* Flush and close it (stdout is only flushed): 0, or 3 with a message
 * naming path ("stdout" for NULL) when anything could not be written. */
int kp_out_close(FILE *f, const char *path);

#endif
