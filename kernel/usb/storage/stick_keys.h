/*
 * stick_keys.h - the boot stick's keys (usb.stick_port=, usb.data_timeout_ms=,
 * usb.csw_timeout_ms=) and the struct they fill (stick_keys.c); read-only
 * after config_parse() through the const view usb_stick_config.
 */
#ifndef KPROF_KERNEL_USB_STICK_KEYS_H
#define KPROF_KERNEL_USB_STICK_KEYS_H

#include <stdint.h>

struct usb_stick_config {
	uint32_t port;            /* usb.stick_port=N: the stick's root port
				   * instead of the loader's (0: the
				   * loader's); stick_path.c */
	uint32_t data_timeout_ms; /* usb.data_timeout_ms=: a Bulk-Only data
				   * stage's time-out (bot.c) */
	uint32_t csw_timeout_ms;  /* usb.csw_timeout_ms=: the wait for a
				   * command's status (CSW; bot.c) */
};

extern const struct usb_stick_config *const usb_stick_config;

#endif /* KPROF_KERNEL_USB_STICK_KEYS_H */
