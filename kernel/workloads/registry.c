/*
 * registry.c - the registry of workloads, built from their descriptors
 * (WORKLOAD_DEFINE, api/descriptor.h): no list here names them.
 *
 * The linker gathers a pointer to each descriptor in the section
 * kprof_workloads.  The names scenario= accepts are the kernel's own first,
 * at their wire numbers (enum kprof_scenario: the rules between keys and
 * older logs use them), then every other registered workload sorted by
 * name, so the list is the same whatever order the build links.
 *
 * Pure: the host's unit tests and docs generator link it (with no
 * descriptor, they see the kernel's own names only).
 */
#include "kernel/workloads/api/descriptor.h"

#include "include/kprof/scenario.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"

#include <stddef.h>

#define WORKLOAD_MAX 64 /* registered workloads the registry holds */

extern const struct workload *const __start_kprof_workloads[] __attribute__((weak));
extern const struct workload *const __stop_kprof_workloads[] __attribute__((weak));

static size_t registered(const struct workload *const **first)
{
	*first = __start_kprof_workloads;
	return *first ? (size_t)(__stop_kprof_workloads - *first) : 0;
}

static bool own_name(const char *name)
{
	for (uint32_t i = 0; i < SCENARIO_COUNT; i++)
		if (!strcmp(kprof_scenario_name(i), name))
			return true;
	return false;
}

static bool listed(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

const char *const *workload_names(void)
{
	static const char *names[SCENARIO_COUNT + WORKLOAD_MAX + 1];
	static bool made;
	const struct workload *const *w;
	size_t n = registered(&w), count = SCENARIO_COUNT;

	if (made)
		return names;
	for (uint32_t i = 0; i < SCENARIO_COUNT; i++)
		names[i] = kprof_scenario_name(i);
	for (size_t k = 0; k < n && count < SCENARIO_COUNT + WORKLOAD_MAX; k++) {
		const char *name = w[k]->name;
		if (!name || own_name(name) || listed(names + SCENARIO_COUNT, count - SCENARIO_COUNT, name))
			continue; /* a second descriptor of a name: workload_registry_check says so */
		size_t i = count;
		for (; i > SCENARIO_COUNT && strcmp(name, names[i - 1]) < 0; i--)
			names[i] = names[i - 1];
		names[i] = name;
		count++;
	}
	names[count] = NULL;
	made = true;
	return names;
}

const struct workload *workload_find(const char *name)
{
	const struct workload *const *w;
	size_t n = registered(&w);
	for (size_t k = 0; k < n; k++)
		if (w[k]->name && !strcmp(w[k]->name, name))
			return w[k];
	return NULL;
}

uint32_t workload_wire_number(const char *name)
{
	for (uint32_t i = 0; i < SCENARIO_COUNT; i++)
		if (!strcmp(kprof_scenario_name(i), name))
			return i;
	return KPROF_SCENARIO_NAMED;
}

static bool good_name(const char *name)
{
	size_t n = 0;
	for (; name[n]; n++)
		if (!((name[n] >= 'a' && name[n] <= 'z') || (name[n] >= '0' && name[n] <= '9') || name[n] == '_'))
			return false;
	return n > 0 && n <= WORKLOAD_NAME_MAX;
}

int workload_registry_check(void (*say)(const char *line))
{
	const struct workload *const *w;
	size_t n = registered(&w);
	char line[160];
	int problems = 0;

	if (n > SCENARIO_COUNT + WORKLOAD_MAX) {
		ksnprintf(line, sizeof(line), "workloads: %zu registered, more than the %u the registry holds", n,
			  SCENARIO_COUNT + WORKLOAD_MAX);
		say(line);
		problems++;
	}
	for (size_t k = 0; k < n; k++) {
		const char *name = w[k]->name ? w[k]->name : "";
		if (!good_name(name)) {
			ksnprintf(line, sizeof(line), "workloads: the name '%.40s' is refused; accepted: 1 to %u of "
				  "a-z, 0-9, _", name, WORKLOAD_NAME_MAX);
			say(line);
			problems++;
		}
		if (!w[k]->run) {
			ksnprintf(line, sizeof(line), "workloads: %.40s has no run function", name);
			say(line);
			problems++;
		}
		for (size_t j = 0; j < k; j++)
			if (w[j]->name && !strcmp(w[j]->name, name)) {
				ksnprintf(line, sizeof(line), "workloads: two workloads are named %.40s (rename one)",
					  name);
				say(line);
				problems++;
			}
	}
	return problems;
}
