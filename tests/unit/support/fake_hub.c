/*
 * fake_hub.c - a fake USB 2 or USB 3 hub for the unit tests (see
 * fake_hci.h): its descriptors, and the hub class requests with port
 * state that follows virtual time.
 *
 * A port's device shows CONNECTION only once the port is powered and
 * bPwrOn2PwrGood x 2 ms have passed; PORT_RESET takes 20 ms, after which
 * the port is ENABLEd with C_PORT_RESET set and the speed bits of the
 * device (USB 2 hubs).  A USB 3 hub's port can be made to hold its link
 * in SS.Inactive, Compliance or Polling, unconnected, until a
 * BH_PORT_RESET (20 ms, then C_BH_PORT_RESET), or to fall into
 * SS.Inactive after a PORT_RESET.  A hub answers only the hub descriptor type of its
 * kind (0x29 or 0x2A), port requests only once configured, and
 * SET_HUB_DEPTH only as a USB 3 hub with its real depth.  Port status
 * polls are logged only when the answer changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/fake_hci.h"
#include "kernel/usb/core/usb_desc.h"

#define FAKE_RESET_US 20000

static const char *fake_feature_name(unsigned f)
{
	switch (f) {
	case USB_HUB_PORT_RESET: return "PORT_RESET";
	case USB_HUB_BH_PORT_RESET: return "BH_PORT_RESET";
	case USB_HUB_PORT_POWER: return "PORT_POWER";
	case USB_HUB_C_PORT_CONNECTION: return "C_PORT_CONNECTION";
	case USB_HUB_C_PORT_ENABLE: return "C_PORT_ENABLE";
	case USB_HUB_C_PORT_SUSPEND: return "C_PORT_SUSPEND";
	case USB_HUB_C_PORT_OVER_CURRENT: return "C_PORT_OVER_CURRENT";
	case USB_HUB_C_PORT_RESET: return "C_PORT_RESET";
	case USB_HUB_C_PORT_LINK_STATE: return "C_PORT_LINK_STATE";
	case USB_HUB_C_PORT_CONFIG_ERROR: return "C_PORT_CONFIG_ERROR";
	case USB_HUB_C_BH_PORT_RESET: return "C_BH_PORT_RESET";
	default: return "?";
	}
}

static uint16_t fake_change_bit(unsigned f)
{
	switch (f) {
	case USB_HUB_C_PORT_CONNECTION: return USB_PORT_STAT_C_CONNECTION;
	case USB_HUB_C_PORT_ENABLE: return USB_PORT_STAT_C_ENABLE;
	case USB_HUB_C_PORT_SUSPEND: return USB_PORT_STAT_C_SUSPEND;
	case USB_HUB_C_PORT_OVER_CURRENT: return USB_PORT_STAT_C_OVERCURRENT;
	case USB_HUB_C_PORT_RESET: return USB_PORT_STAT_C_RESET;
	case USB_HUB_C_BH_PORT_RESET: return USB_SS_PORT_STAT_C_BH_RESET;
	case USB_HUB_C_PORT_LINK_STATE: return USB_SS_PORT_STAT_C_LINK_STATE;
	case USB_HUB_C_PORT_CONFIG_ERROR: return USB_SS_PORT_STAT_C_CONFIG_ERROR;
	default: return 0;
	}
}

struct fake_dev *fake_hub_new(const char *name, enum usb_speed speed, uint8_t nports)
{
	struct fake_dev *d = fake_dev_alloc(FAKE_HUB, name, speed);
	struct fake_hub *h = calloc(1, sizeof(*h));
	d->hub = h;
	h->nports = nports;
	h->usb3 = speed == USB_SPEED_SUPER;
	h->pwr_on_2_pwr_good = 50;
	h->tt_think = speed == USB_SPEED_HIGH ? 1 : 0;
	h->depth_set = -1;
	const uint8_t dd[18] = { 18, USB_DT_DEVICE, 0x00, h->usb3 ? 0x03 : 0x02, USB_CLASS_HUB, 0,
				 h->usb3 ? 3 : speed == USB_SPEED_HIGH ? 1 : 0, h->usb3 ? 9 : 64, 0x09, 0x04,
				 0x20, 0x00, 0x01, 0x00, 0, 0, 0, 1 };
	memcpy(d->dev_desc, dd, sizeof(dd));
	const uint8_t cfg[] = {
		9, USB_DT_CONFIG, 0, 0, 1, 1, 0, 0xE0, 0,
		9, USB_DT_INTERFACE, 0, 0, 1, USB_CLASS_HUB, 0, 0, 0,
		7, USB_DT_ENDPOINT, 0x81, 3, 2, 0, 12,
		6, USB_DT_SS_ENDPOINT_COMP, 0, 0, 2, 0,
	};
	d->cfg_len = (uint16_t)(h->usb3 ? sizeof(cfg) : sizeof(cfg) - 6);
	memcpy(d->cfg_desc, cfg, d->cfg_len);
	d->cfg_desc[2] = (uint8_t)d->cfg_len;
	return d;
}

void fake_hub_attach(struct fake_dev *hub, unsigned port, struct fake_dev *d)
{
	hub->hub->port_dev[port] = d;
}

/* Let virtual time act on the port. */
static void fake_hub_update(struct fake_hub *h, unsigned p, struct fake_dev *hubdev)
{
	uint16_t power = h->usb3 ? USB_SS_PORT_STAT_POWER : USB_PORT_STAT_POWER;
	struct fake_dev *d = h->port_dev[p];
	bool powered_long = (h->status[p] & power) && fake_now_us >= h->powered_at[p] + h->pwr_on_2_pwr_good * 2000ull;
	if (powered_long && d && h->stuck_link[p] && !(h->status[p] & USB_PORT_STAT_RESET)) {
		/* the link is there, the device is not connected */
		h->status[p] = (uint16_t)((h->status[p] & ~USB_SS_PORT_STAT_LINK_STATE) | h->stuck_link[p]);
	} else if (powered_long && d && !(h->status[p] & USB_PORT_STAT_CONNECTION)) {
		h->status[p] |= USB_PORT_STAT_CONNECTION;
		h->change[p] |= USB_PORT_STAT_C_CONNECTION;
	}
	if ((h->status[p] & USB_PORT_STAT_RESET) && !h->never_finish_reset && fake_now_us >= h->reset_done_at[p]) {
		h->status[p] &= (uint16_t)~(USB_PORT_STAT_RESET | (h->usb3 ? USB_SS_PORT_STAT_LINK_STATE : 0));
		if (h->warm_resetting[p]) { /* the link trains: U0, connected */
			h->warm_resetting[p] = false;
			h->stuck_link[p] = 0;
			h->status[p] |= USB_PORT_STAT_CONNECTION | USB_PORT_STAT_ENABLE;
			h->change[p] |= USB_SS_PORT_STAT_C_BH_RESET;
			return;
		}
		if (h->hot_reset_fails[p]) { /* into SS.Inactive, until a warm reset */
			h->stuck_link[p] = USB_SS_PORT_LS_SS_INACTIVE;
			h->status[p] = (uint16_t)((h->status[p] & ~(USB_PORT_STAT_ENABLE | USB_PORT_STAT_CONNECTION)) |
						  USB_SS_PORT_LS_SS_INACTIVE);
			h->change[p] |= USB_PORT_STAT_C_RESET;
			return;
		}
		h->status[p] |= USB_PORT_STAT_ENABLE;
		h->change[p] |= USB_PORT_STAT_C_RESET;
		if (!h->usb3 && d && d->speed == USB_SPEED_LOW)
			h->status[p] |= USB_PORT_STAT_LOW_SPEED;
		if (!h->usb3 && d && d->speed == USB_SPEED_HIGH)
			h->status[p] |= USB_PORT_STAT_HIGH_SPEED;
	}
	(void)hubdev;
}

static int fake_hub_port_request(struct fake_dev *d, const struct usb_setup *s, uint8_t *data, uint32_t *actual)
{
	struct fake_hub *h = d->hub;
	unsigned p = s->wIndex, f = s->wValue;
	if (p == 0 || p > h->nports) {
		fake_log_add("s%u port request for port %u", d->slot, p);
		return USB_STALL;
	}
	if (s->bmRequestType == 0xA3 && s->bRequest == USB_REQ_GET_STATUS) {
		fake_hub_update(h, p, d);
		data[0] = (uint8_t)h->status[p];
		data[1] = (uint8_t)(h->status[p] >> 8);
		data[2] = (uint8_t)h->change[p];
		data[3] = (uint8_t)(h->change[p] >> 8);
		*actual = 4;
		uint32_t now = (uint32_t)h->status[p] << 16 | h->change[p];
		if (now != h->last_report[p])
			fake_log_add("s%u PORT_STATUS %u %04x/%04x", d->slot, p, h->status[p], h->change[p]);
		h->last_report[p] = now;
		return USB_OK;
	}
	if (s->bmRequestType == 0x23 && s->bRequest == USB_REQ_SET_FEATURE) {
		fake_log_add("s%u SET_PORT_FEATURE %u %s", d->slot, p, fake_feature_name(f));
		if (f == USB_HUB_PORT_POWER) {
			h->status[p] |= h->usb3 ? USB_SS_PORT_STAT_POWER : USB_PORT_STAT_POWER;
			h->powered_at[p] = fake_now_us;
			return USB_OK;
		}
		if (f == USB_HUB_BH_PORT_RESET) {
			fake_hub_update(h, p, d);
			if (!h->usb3)
				fake_log_add("BAD BH_PORT_RESET to USB 2 hub %s", d->name);
			h->status[p] = (uint16_t)((h->status[p] | USB_PORT_STAT_RESET) & ~USB_PORT_STAT_ENABLE);
			h->reset_done_at[p] = fake_now_us + FAKE_RESET_US;
			h->warm_resetting[p] = true;
			return h->usb3 ? USB_OK : USB_STALL;
		}
		if (f == USB_HUB_PORT_RESET) {
			fake_hub_update(h, p, d);
			if (!(h->status[p] & USB_PORT_STAT_CONNECTION))
				fake_log_add("BAD PORT_RESET of %s port %u with nothing connected", d->name, p);
			h->status[p] = (uint16_t)((h->status[p] | USB_PORT_STAT_RESET) & ~USB_PORT_STAT_ENABLE);
			h->reset_done_at[p] = fake_now_us + FAKE_RESET_US;
			return USB_OK;
		}
		return USB_STALL;
	}
	if (s->bmRequestType == 0x23 && s->bRequest == USB_REQ_CLEAR_FEATURE) {
		fake_log_add("s%u CLEAR_PORT_FEATURE %u %s", d->slot, p, fake_feature_name(f));
		uint16_t bit = fake_change_bit(f);
		if (!bit)
			return USB_STALL;
		h->change[p] &= (uint16_t)~bit;
		return USB_OK;
	}
	fake_log_add("s%u hub port request %02x/%02x not handled", d->slot, s->bmRequestType, s->bRequest);
	return USB_STALL;
}

int fake_hub_control(struct fake_dev *d, const struct usb_setup *s, uint8_t *data, uint32_t *actual)
{
	struct fake_hub *h = d->hub;
	if (!d->config) {
		fake_log_add("BAD hub class request to unconfigured %s", d->name);
		return USB_STALL;
	}
	if (s->bmRequestType == 0xA0 && s->bRequest == USB_REQ_GET_DESCRIPTOR) {
		uint8_t type = s->wValue >> 8, want = h->usb3 ? USB_DT_SS_HUB : USB_DT_HUB;
		fake_log_add("s%u GET_HUB_DESCRIPTOR 0x%02x %u", d->slot, type, s->wLength);
		if (type != want)
			return USB_STALL;
		uint8_t desc[12] = { 0, want, h->nports, (uint8_t)(h->tt_think << 5 | 0x01), 0, h->pwr_on_2_pwr_good,
				     0, 0, 0, 0, 0, 0 };
		uint32_t len;
		if (h->usb3) {
			len = 12;
		} else {
			unsigned bitmap = (h->nports + 1 + 7) / 8;
			len = 7 + 2 * bitmap;
			memset(desc + 7 + bitmap, 0xFF, bitmap); /* PortPwrCtrlMask */
		}
		desc[0] = (uint8_t)len;
		*actual = s->wLength < len ? s->wLength : len;
		memcpy(data, desc, *actual);
		return USB_OK;
	}
	if (s->bmRequestType == 0x20 && s->bRequest == USB_REQ_SET_HUB_DEPTH) {
		fake_log_add("s%u SET_HUB_DEPTH %u", d->slot, s->wValue);
		if (!h->usb3 || s->wValue != d->host->depth)
			fake_log_add("BAD SET_HUB_DEPTH %u to %s", s->wValue, d->name);
		h->depth_set = s->wValue;
		return h->usb3 ? USB_OK : USB_STALL;
	}
	if ((s->bmRequestType & 0x1F) == USB_RECIP_OTHER)
		return fake_hub_port_request(d, s, data, actual);
	fake_log_add("s%u hub request %02x/%02x not handled", d->slot, s->bmRequestType, s->bRequest);
	return USB_STALL;
}
