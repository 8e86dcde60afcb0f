/*
 * cmdline_doc.h - docs/cmdline.md from the key tables (tools/cmdline-doc/cmdline_doc.c).
 */
#ifndef KPROF_TOOLS_CMDLINE_DOC_H
#define KPROF_TOOLS_CMDLINE_DOC_H

#include <stdio.h>

/* Write the whole page. */
void cmdline_doc_write(FILE *out);

#endif /* KPROF_TOOLS_CMDLINE_DOC_H */
