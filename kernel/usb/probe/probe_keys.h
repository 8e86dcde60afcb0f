/*
 * probe_keys.h - the USB layer's key (usb.probe=) and the struct it
 * fills (probe_keys.c); read-only after config_parse() through the const
 * view usb_probe_config.
 */
#ifndef KPROF_KERNEL_USB_PROBE_KEYS_H
#define KPROF_KERNEL_USB_PROBE_KEYS_H

#include <stdint.h>

struct usb_probe_config {
	uint32_t probe; /* usb.probe=on: list USB devices (kernel/usb/probe/probe.c) */
};

extern const struct usb_probe_config *const usb_probe_config;

#endif /* KPROF_KERNEL_USB_PROBE_KEYS_H */
