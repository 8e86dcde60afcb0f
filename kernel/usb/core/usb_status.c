/*
 * usb_status.c - usb_status_name(): the words messages use for enum
 * usb_status (hci.h).  Pure; callable anywhere.
 */
#include "kernel/usb/hci.h"

const char *usb_status_name(int status)
{
	switch (status) {
	case USB_OK: return "ok";
	case USB_STALL: return "stall";
	case USB_TIMEOUT: return "timeout";
	case USB_ERROR: return "error";
	case USB_NODEV: return "no device";
	case USB_NOMEM: return "out of memory";
	case USB_BADARG: return "bad request";
	default: return "unknown status";
	}
}
