/*
 * usb.h - the USB core the stick's path needs: standard requests on the
 * default control pipe and configuration parsing (usb.c, usb_config.c).
 *
 * The core layer (kernel/usb/core/), between the host controller and
 * storage: devices and hubs as USB 2.0 chapters 9 and 11 see them.
 *  - It offers this header, hub.h (hubs on the boot path), usb_enum.h
 *    (a port's device brought up, with retries), usb_desc.h (descriptor
 *    layouts and request codes) and the words for enum usb_status
 *    (usb_status_name(), declared in hci.h: usb_status.c).
 *  - Below it, it calls the host controller through kernel/usb/hci.h
 *    only (never xhci/'s own headers), kernel/mm, kernel/ke/time/time.h, the
 *    console and <arch/mmu.h>; it includes nothing from storage/ or
 *    probe/ (tools/check-layering.sh checks it).
 *
 * Everything is polled through hci.h and runs in one thread at a time
 * (usb_stick_open's caller, then the trace writer); nothing here takes a
 * lock or may be called from an interrupt.  Data buffers handed to the
 * controller come from usb_dma_alloc() (physically contiguous, in the
 * direct map), as hci.h requires.
 */
#ifndef KPROF_USB_USB_H
#define KPROF_USB_USB_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/usb/core/usb_desc.h"
#include "kernel/usb/hci.h"

/* Zeroed pages for transfer buffers: at least `bytes`, physically
 * contiguous, in the direct map; NULL when out of memory. */
void *usb_dma_alloc(uint32_t bytes);
void usb_dma_free(void *p, uint32_t bytes);

/* One control request on ep0; *actual (may be NULL) gets the data bytes
 * moved.  data must be a usb_dma_alloc() buffer when wLength > 0. */
int usb_control(struct usb_device *dev, uint8_t bmRequestType, uint8_t bRequest, uint16_t wValue,
		uint16_t wIndex, void *data, uint16_t wLength, uint32_t *actual);

/* GET_DESCRIPTOR (type, index) of up to len bytes into dma. */
int usb_get_descriptor(struct usb_device *dev, uint8_t type, uint8_t index, void *dma, uint16_t len,
		       uint32_t *actual);

/* The 18-byte device descriptor, checked (bLength, type); the copy
 * usb_enumerate() read when it addressed the device, if it did (the
 * descriptor does not change while the device keeps its address). */
int usb_read_device_descriptor(struct usb_device *dev, void *dma, struct usb_device_descriptor *out);

/* Configuration 0 with everything that follows it: the 9-byte header
 * first, then wTotalLength bytes (at most cap) into dma; *len gets the
 * bytes to parse.  USB_ERROR if the device sends less than it announced. */
int usb_read_config(struct usb_device *dev, void *dma, uint16_t cap, uint32_t *len);

int usb_set_configuration(struct usb_device *dev, uint8_t value);

/* A halted bulk endpoint made usable again on both sides: the
 * controller's endpoint (hci_clear_halt) and the device's
 * CLEAR_FEATURE(ENDPOINT_HALT), which also resets its data toggle. */
int usb_clear_halt(struct usb_device *dev, uint8_t ep_address);

/* "low-speed", "full-speed", "high-speed", "SuperSpeed". */
const char *usb_speed_name(unsigned speed);

/* What usb_config_find_storage() found: the Bulk-Only SCSI interface. */
struct usb_storage_interface {
	uint8_t config_value;         /* bConfigurationValue to set        */
	uint8_t interface;            /* bInterfaceNumber (wIndex of BOT
				       * class requests)                    */
	struct usb_endpoint bulk_in;  /* address has bit 7 set              */
	struct usb_endpoint bulk_out;
};

/* Walk a configuration (len bytes at buf, from usb_read_config) checking
 * every bLength against the buffer; USB_OK when an interface of class 8,
 * subclass 6, protocol 0x50 (alternate setting 0) with a bulk IN and a
 * bulk OUT endpoint is there, USB_NODEV if none, USB_ERROR (with a
 * message) if a descriptor is malformed. */
int usb_config_find_storage(const uint8_t *buf, uint32_t len, struct usb_storage_interface *out);

/* The configuration's bConfigurationValue after the same checks. */
int usb_config_value(const uint8_t *buf, uint32_t len, uint8_t *value);

#endif /* KPROF_USB_USB_H */
