/*
 * usb_config.c - a configuration descriptor and what follows it
 * (interfaces, endpoints, SuperSpeed endpoint companions: USB 2.0 9.6.3,
 * USB 3.2 9.6.7), walked with bounds checks.
 *
 * Invariants of the walk: every descriptor starts inside the buffer, its
 * bLength is at least 2 and ends inside the buffer (len, which
 * usb_read_config() already bounded by wTotalLength and by what the
 * device sent), and a descriptor is only read as a struct when bLength
 * covers that struct.  Descriptors of other types (class-specific,
 * interface association, ...) are stepped over.  Pure functions of the
 * buffer: any caller, any time.
 */
#include "kernel/usb/core/usb.h"

#include "kernel/console/console.h"
#include "kernel/lib/libk.h"

/* The configuration header, checked; USB_ERROR with a message if bad. */
static int config_header(const uint8_t *buf, uint32_t len, struct usb_config_descriptor *head)
{
	if (len < sizeof(*head)) {
		kprintf("usb: configuration descriptor too short (%u bytes)\n", len);
		return USB_ERROR;
	}
	memcpy(head, buf, sizeof(*head));
	if (head->bLength < sizeof(*head) || head->bLength > len || head->bDescriptorType != USB_DT_CONFIG) {
		kprintf("usb: malformed configuration descriptor (bLength %u, type %u)\n", head->bLength,
			head->bDescriptorType);
		return USB_ERROR;
	}
	return USB_OK;
}

int usb_config_value(const uint8_t *buf, uint32_t len, uint8_t *value)
{
	struct usb_config_descriptor head;
	int rc = config_header(buf, len, &head);
	if (rc == USB_OK)
		*value = head.bConfigurationValue;
	return rc;
}

static bool is_bot_interface(const struct usb_interface_descriptor *in)
{
	return in->bAlternateSetting == 0 && in->bInterfaceClass == USB_CLASS_MASS_STORAGE &&
	       in->bInterfaceSubClass == USB_MSC_SUBCLASS_SCSI && in->bInterfaceProtocol == USB_MSC_PROTOCOL_BBB;
}

static void take_endpoint(const struct usb_endpoint_descriptor *ed, struct usb_endpoint *ep)
{
	ep->address = ed->bEndpointAddress;
	ep->type = ed->bmAttributes & 3;
	ep->max_packet = ed->wMaxPacketSize & 0x7FF;
	ep->interval = ed->bInterval;
	ep->max_burst = 0;
}

int usb_config_find_storage(const uint8_t *buf, uint32_t len, struct usb_storage_interface *out)
{
	struct usb_config_descriptor head;
	int rc = config_header(buf, len, &head);
	if (rc != USB_OK)
		return rc;
	bool in_bot = false;            /* inside the interface we want    */
	struct usb_endpoint *last = NULL; /* endpoint a companion belongs to */
	struct usb_storage_interface found = { .config_value = head.bConfigurationValue };
	for (uint32_t off = head.bLength; off < len;) {
		uint8_t blen = buf[off];
		if (len - off < 2 || blen < 2 || blen > len - off) {
			kprintf("usb: malformed descriptor at offset %u of the configuration (bLength %u, %u bytes left)\n",
				off, blen, len - off);
			return USB_ERROR;
		}
		uint8_t type = buf[off + 1];
		if (type == USB_DT_INTERFACE && blen >= sizeof(struct usb_interface_descriptor)) {
			struct usb_interface_descriptor in;
			memcpy(&in, buf + off, sizeof(in));
			if (in_bot && found.bulk_in.address && found.bulk_out.address)
				break; /* the interface we want is complete */
			in_bot = is_bot_interface(&in);
			found.interface = in.bInterfaceNumber;
			found.bulk_in.address = found.bulk_out.address = 0;
			last = NULL;
		} else if (type == USB_DT_ENDPOINT && blen >= sizeof(struct usb_endpoint_descriptor)) {
			struct usb_endpoint_descriptor ed;
			memcpy(&ed, buf + off, sizeof(ed));
			last = NULL;
			if (in_bot && (ed.bmAttributes & 3) == USB_EP_BULK) {
				last = (ed.bEndpointAddress & USB_DIR_IN) ? &found.bulk_in : &found.bulk_out;
				take_endpoint(&ed, last);
			}
		} else if (type == USB_DT_SS_ENDPOINT_COMP && blen >= sizeof(struct usb_ss_ep_companion_descriptor)) {
			if (last)
				last->max_burst = buf[off + 2]; /* bMaxBurst */
			last = NULL;
		}
		off += blen;
	}
	if (!in_bot || !found.bulk_in.address || !found.bulk_out.address)
		return USB_NODEV;
	*out = found;
	return USB_OK;
}
