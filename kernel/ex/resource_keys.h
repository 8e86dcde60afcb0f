/*
 * resource_keys.h - the ERESOURCE key (resource.timeout_ms=) and the
 * struct it fills (resource_keys.c); read-only after config_parse()
 * through the const view resource_config.  The kernel applies it at boot
 * with ex_resource_set_timeout() (resource.h), which a workload may call
 * again (scenario=mix does).
 */
#ifndef KPROF_KERNEL_EX_RESOURCE_KEYS_H
#define KPROF_KERNEL_EX_RESOURCE_KEYS_H

#include <stdint.h>

struct resource_config {
	uint32_t timeout_ms; /* ERESOURCE waits: the excessive-wait interval */
};

extern const struct resource_config *const resource_config;

#endif /* KPROF_KERNEL_EX_RESOURCE_KEYS_H */
