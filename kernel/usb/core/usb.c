/*
 * usb.c - standard requests on a device's default control pipe (USB 2.0,
 * 9.4) and the transfer buffers they use.
 *
 * Each function is one request, synchronous through hci_control(); a
 * failure returns the enum usb_status of the transfer, and a request
 * whose answer is unusable (wrong descriptor type, too short) returns
 * USB_ERROR with one console line.  Callers: hub.c, and the storage layer
 * (storage/stick_path.c, bot.c, stick.c), one thread at a time (see usb.h).
 */
#include "kernel/usb/core/usb.h"

#include <arch/mmu.h>

#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/mm/pmm.h"

static uint32_t usb_dma_pages(uint32_t bytes)
{
	return (uint32_t)((bytes + PAGE_SIZE - 1) / PAGE_SIZE);
}

void *usb_dma_alloc(uint32_t bytes)
{
	uint64_t pa = pmm_alloc_pages_below(usb_dma_pages(bytes ? bytes : 1), USB_DMA_LIMIT);
	if (!pa)
		return NULL;
	void *va = phys_to_virt(pa);
	memset(va, 0, usb_dma_pages(bytes ? bytes : 1) * PAGE_SIZE);
	return va;
}

void usb_dma_free(void *p, uint32_t bytes)
{
	if (p)
		pmm_free_pages(virt_to_phys(p), usb_dma_pages(bytes ? bytes : 1));
}

int usb_control(struct usb_device *dev, uint8_t bmRequestType, uint8_t bRequest, uint16_t wValue,
		uint16_t wIndex, void *data, uint16_t wLength, uint32_t *actual)
{
	struct usb_setup setup = {
		.bmRequestType = bmRequestType,
		.bRequest = bRequest,
		.wValue = wValue,
		.wIndex = wIndex,
		.wLength = wLength,
	};
	uint32_t moved = 0;
	int rc = hci_control(dev, &setup, wLength ? data : NULL, &moved);
	if (actual)
		*actual = moved;
	return rc;
}

int usb_get_descriptor(struct usb_device *dev, uint8_t type, uint8_t index, void *dma, uint16_t len,
		       uint32_t *actual)
{
	return usb_control(dev, USB_DIR_IN | USB_TYPE_STANDARD | USB_RECIP_DEVICE, USB_REQ_GET_DESCRIPTOR,
			   (uint16_t)(type << 8 | index), 0, dma, len, actual);
}

int usb_read_device_descriptor(struct usb_device *dev, void *dma, struct usb_device_descriptor *out)
{
	_Static_assert(sizeof(dev->descriptor) == sizeof(*out), "usb_device.descriptor holds a device descriptor");
	if (dev->descriptor[0]) { /* read by usb_enumerate since the device was addressed */
		memcpy(out, dev->descriptor, sizeof(*out));
		return USB_OK;
	}
	uint32_t got = 0;
	int rc = usb_get_descriptor(dev, USB_DT_DEVICE, 0, dma, sizeof(*out), &got);
	if (rc != USB_OK) {
		kprintf("usb: slot %u: GET_DESCRIPTOR(device) failed: %s\n", dev->slot, usb_status_name(rc));
		return rc;
	}
	memcpy(out, dma, sizeof(*out));
	if (got < sizeof(*out) || out->bLength < sizeof(*out) || out->bDescriptorType != USB_DT_DEVICE) {
		kprintf("usb: slot %u: bad device descriptor (%u bytes, bLength %u, type %u)\n", dev->slot, got,
			out->bLength, out->bDescriptorType);
		return USB_ERROR;
	}
	return USB_OK;
}

int usb_read_config(struct usb_device *dev, void *dma, uint16_t cap, uint32_t *len)
{
	struct usb_config_descriptor head;
	uint32_t got = 0;
	int rc = usb_get_descriptor(dev, USB_DT_CONFIG, 0, dma, sizeof(head), &got);
	if (rc == USB_OK) {
		memcpy(&head, dma, sizeof(head));
		if (got < sizeof(head) || head.bDescriptorType != USB_DT_CONFIG || head.wTotalLength < sizeof(head)) {
			kprintf("usb: slot %u: bad configuration descriptor header (%u bytes, type %u, wTotalLength %u)\n",
				dev->slot, got, head.bDescriptorType, head.wTotalLength);
			return USB_ERROR;
		}
		uint16_t want = MIN(head.wTotalLength, cap);
		rc = usb_get_descriptor(dev, USB_DT_CONFIG, 0, dma, want, &got);
		if (rc == USB_OK && got < want) {
			kprintf("usb: slot %u: configuration descriptor cut short: %u of %u bytes\n", dev->slot, got,
				want);
			return USB_ERROR;
		}
		*len = want;
	}
	if (rc != USB_OK)
		kprintf("usb: slot %u: GET_DESCRIPTOR(configuration) failed: %s\n", dev->slot, usb_status_name(rc));
	return rc;
}

int usb_set_configuration(struct usb_device *dev, uint8_t value)
{
	int rc = usb_control(dev, USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE, USB_REQ_SET_CONFIGURATION,
			     value, 0, NULL, 0, NULL);
	if (rc != USB_OK)
		kprintf("usb: slot %u: SET_CONFIGURATION(%u) failed: %s\n", dev->slot, value, usb_status_name(rc));
	return rc;
}

int usb_clear_halt(struct usb_device *dev, uint8_t ep_address)
{
	int rc = hci_clear_halt(dev, ep_address);
	if (rc == USB_OK)
		rc = usb_control(dev, USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE,
				 USB_FEATURE_ENDPOINT_HALT, ep_address, NULL, 0, NULL);
	if (rc != USB_OK)
		kprintf("usb: slot %u: clearing the halt of endpoint 0x%02x failed: %s\n", dev->slot, ep_address,
			usb_status_name(rc));
	return rc;
}

const char *usb_speed_name(unsigned speed)
{
	switch (speed) {
	case USB_SPEED_LOW:
		return "low-speed";
	case USB_SPEED_FULL:
		return "full-speed";
	case USB_SPEED_HIGH:
		return "high-speed";
	case USB_SPEED_SUPER:
		return "SuperSpeed";
	default:
		return "unknown-speed";
	}
}
