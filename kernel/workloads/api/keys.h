/*
 * keys.h - what a workload's file of keys includes (WORKLOAD_KEYS, its
 * struct, its own rule and the text of the rule's message), when the
 * workload keeps its keys in a file of their own named *_keys.c.
 *
 * Part of the workload API (docs/workloads.md) and pure: besides the
 * kernel, `make docs WORKLOADS=DIR` compiles such files on the host with
 * the kernel's own tables, to write the build folder's cmdline.md with
 * their keys.
 */
#ifndef KPROF_KERNEL_WORKLOAD_KEYS_API_H
#define KPROF_KERNEL_WORKLOAD_KEYS_API_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/printf.h"
#include "kernel/workloads/api/descriptor.h"

#endif /* KPROF_KERNEL_WORKLOAD_KEYS_API_H */
