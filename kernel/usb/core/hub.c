/*
 * hub.c - the hub class on the boot path: hub descriptor, port power,
 * port reset and status (USB 2.0 11.23-11.24, USB 3.2 10.15-10.16).
 *
 * Bringing up one downstream port is a fixed sequence, each wait
 * bounded, each timeout one console line naming the hub (its hop on the
 * path and slot) and the port:
 *   SET_FEATURE(PORT_POWER), wait bPwrOn2PwrGood x 2 ms,
 *   GET_PORT_STATUS every 10 ms until CONNECTION, wait 100 ms (debounce),
 *   clear the change bits, SET_FEATURE(PORT_RESET),
 *   GET_PORT_STATUS every 10 ms until RESET is clear, C_RESET set and the
 *   port ENABLEd, clear the change bits, wait 10 ms (reset recovery).
 * A SuperSpeed hub's port whose link (the status' link state field) sits
 * in SS.Inactive or Compliance Mode, or stays in Polling for
 * HUB_POLLING_MS, has a device that only a warm reset brings up, even
 * without CONNECTION: it gets SET_FEATURE(BH_PORT_RESET) instead (USB 3.2
 * 10.16.2.10; done when C_BH_PORT_RESET or C_PORT_RESET is set), and a
 * PORT_RESET that fails on such a hub is tried again as a BH_PORT_RESET,
 * as Linux's hub_port_reset does.
 * The speed comes from the status (USB 2 hubs: LOW/HIGH bits, else full;
 * USB 3 hubs: SuperSpeed), the route string from the hub's plus 4 bits of
 * port for this tier, and a low/full-speed device behind a high-speed hub
 * gets that hub's slot and port as its transaction translator (behind a
 * full-speed hub it inherits the hub's own TT).  Hubs stay single-TT
 * (alternate setting 0), so hci_hub_configure() is told multi_tt = false.
 * hub_ports_connected() powers every port at once and reads which have a
 * device, so that a search of the whole bus (storage/stick_scan.c) attaches
 * only those instead of waiting out the connect time on each empty port.
 * Called by storage/stick_path.c and storage/stick_scan.c (see hub.h).
 */
#include "kernel/usb/core/hub.h"

#include "kernel/console/console.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/bytes.h"
#include "kernel/lib/libk.h"
#include "kernel/usb/core/usb.h"

#define HUB_POLL_MS 10
#define HUB_ROUTE_TIERS 5 /* xHCI route string: 20 bits */

#define HUB_REQ_IN (USB_DIR_IN | USB_TYPE_CLASS)
#define HUB_REQ_OUT (USB_DIR_OUT | USB_TYPE_CLASS)

static int hub_port_feature(struct usb_hub *hub, uint8_t request, uint16_t feature, unsigned port)
{
	return usb_control(hub->dev, HUB_REQ_OUT | USB_RECIP_OTHER, request, feature, (uint16_t)port, NULL, 0, NULL);
}

static int hub_port_status(struct usb_hub *hub, unsigned port, void *dma, uint16_t *status, uint16_t *change)
{
	uint32_t got = 0;
	int rc = usb_control(hub->dev, HUB_REQ_IN | USB_RECIP_OTHER, USB_REQ_GET_STATUS, 0, (uint16_t)port, dma, 4,
			     &got);
	if (rc == USB_OK && got < 4)
		rc = USB_ERROR;
	if (rc != USB_OK) {
		kprintf("usb: hub %u (slot %u) port %u: GET_PORT_STATUS failed: %s\n", hub->hop, hub->dev->slot, port,
			usb_status_name(rc));
		return rc;
	}
	*status = get_le16(dma);
	*change = get_le16((const uint8_t *)dma + 2);
	return USB_OK;
}

/* Acknowledge every change bit that is set (wPortChange bit -> C_ feature). */
static int hub_clear_changes(struct usb_hub *hub, unsigned port, uint16_t change)
{
	static const uint16_t usb2[][2] = {
		{ USB_PORT_STAT_C_CONNECTION, USB_HUB_C_PORT_CONNECTION },
		{ USB_PORT_STAT_C_ENABLE, USB_HUB_C_PORT_ENABLE },
		{ USB_PORT_STAT_C_SUSPEND, USB_HUB_C_PORT_SUSPEND },
		{ USB_PORT_STAT_C_OVERCURRENT, USB_HUB_C_PORT_OVER_CURRENT },
		{ USB_PORT_STAT_C_RESET, USB_HUB_C_PORT_RESET },
	};
	static const uint16_t usb3[][2] = {
		{ USB_PORT_STAT_C_CONNECTION, USB_HUB_C_PORT_CONNECTION },
		{ USB_PORT_STAT_C_OVERCURRENT, USB_HUB_C_PORT_OVER_CURRENT },
		{ USB_PORT_STAT_C_RESET, USB_HUB_C_PORT_RESET },
		{ USB_SS_PORT_STAT_C_BH_RESET, USB_HUB_C_BH_PORT_RESET },
		{ USB_SS_PORT_STAT_C_LINK_STATE, USB_HUB_C_PORT_LINK_STATE },
		{ USB_SS_PORT_STAT_C_CONFIG_ERROR, USB_HUB_C_PORT_CONFIG_ERROR },
	};
	const uint16_t(*map)[2] = hub->superspeed ? usb3 : usb2;
	unsigned n = hub->superspeed ? ARRAY_SIZE(usb3) : ARRAY_SIZE(usb2);
	for (unsigned i = 0; i < n; i++) {
		if (!(change & map[i][0]))
			continue;
		int rc = hub_port_feature(hub, USB_REQ_CLEAR_FEATURE, map[i][1], port);
		if (rc != USB_OK) {
			kprintf("usb: hub %u (slot %u) port %u: CLEAR_FEATURE(%u) failed: %s\n", hub->hop,
				hub->dev->slot, port, map[i][1], usb_status_name(rc));
			return rc;
		}
	}
	return USB_OK;
}

int hub_open(struct usb_device *dev, unsigned hop, void *dma, struct usb_hub *hub)
{
	memset(hub, 0, sizeof(*hub));
	hub->dev = dev;
	hub->hop = hop;
	hub->superspeed = dev->speed >= USB_SPEED_SUPER;

	struct usb_device_descriptor dd;
	int rc = usb_read_device_descriptor(dev, dma, &dd);
	if (rc != USB_OK)
		return rc;
	if (dd.bDeviceClass != USB_CLASS_HUB) {
		kprintf("usb: hop %u of the boot path (slot %u) is not a hub (class %u)\n", hop, dev->slot,
			dd.bDeviceClass);
		return USB_NODEV;
	}
	uint32_t len = 0;
	uint8_t config = 0;
	if ((rc = usb_read_config(dev, dma, 512, &len)) != USB_OK ||
	    (rc = usb_config_value(dma, len, &config)) != USB_OK || (rc = usb_set_configuration(dev, config)) != USB_OK)
		return rc;

	uint8_t type = hub->superspeed ? USB_DT_SS_HUB : USB_DT_HUB;
	uint16_t want = hub->superspeed ? sizeof(struct usb_ss_hub_descriptor) : 71; /* 7 + 2 x 32 bitmap bytes */
	uint32_t got = 0;
	struct usb_hub_descriptor hd;
	rc = usb_control(dev, HUB_REQ_IN | USB_RECIP_DEVICE, USB_REQ_GET_DESCRIPTOR, (uint16_t)(type << 8), 0, dma, want,
			 &got);
	memcpy(&hd, dma, sizeof(hd)); /* the fields used are common to both layouts */
	if (rc == USB_OK && (got < sizeof(hd) || hd.bDescLength < sizeof(hd) || hd.bDescriptorType != type ||
			     hd.bNbrPorts == 0))
		rc = USB_ERROR;
	if (rc != USB_OK) {
		kprintf("usb: hub %u (slot %u): no usable hub descriptor 0x%02x (%s, %u bytes)\n", hop, dev->slot, type,
			usb_status_name(rc), got);
		return rc;
	}
	hub->nports = hd.bNbrPorts;
	hub->power_good_ms = (uint16_t)(hd.bPwrOn2PwrGood * 2);
	hub->tt_think_time = hub->superspeed ? 0 : (hd.wHubCharacteristics >> 5) & 3;

	rc = hci_hub_configure(dev, hub->nports, false, hub->tt_think_time);
	if (rc == USB_OK && hub->superspeed)
		rc = usb_control(dev, HUB_REQ_OUT | USB_RECIP_DEVICE, USB_REQ_SET_HUB_DEPTH, dev->depth, 0, NULL, 0,
				 NULL);
	if (rc != USB_OK) {
		kprintf("usb: hub %u (slot %u): configuring it as a hub failed: %s\n", hop, dev->slot,
			usb_status_name(rc));
		return rc;
	}
	kprintf("usb: hub %u (slot %u): %s, %u ports\n", hop, dev->slot, usb_speed_name(dev->speed),
		hub->nports);
	return USB_OK;
}

/* Poll until (status & mask) == want (and, with change_bit, until one of
 * those changes is set); USB_TIMEOUT after timeout_ms. */
static int hub_wait(struct usb_hub *hub, unsigned port, void *dma, uint16_t mask, uint16_t want,
		    uint16_t change_bit, unsigned timeout_ms, uint16_t *status, uint16_t *change)
{
	for (unsigned waited = 0;; waited += HUB_POLL_MS) {
		int rc = hub_port_status(hub, port, dma, status, change);
		if (rc != USB_OK)
			return rc;
		if ((*status & mask) == want && (!change_bit || (*change & change_bit)))
			return USB_OK;
		if (waited >= timeout_ms)
			return USB_TIMEOUT;
		ke_stall_execution_processor(HUB_POLL_MS * 1000);
	}
}

/* A SuperSpeed hub port only a warm reset brings back (Linux's
 * hub_port_warm_reset_required): NULL, or what its link state says. */
static const char *hub_warm_reason(const struct usb_hub *hub, uint16_t status)
{
	if (!hub->superspeed)
		return NULL;
	switch (status & USB_SS_PORT_STAT_LINK_STATE) {
	case USB_SS_PORT_LS_SS_INACTIVE:
		return "link in SS.Inactive";
	case USB_SS_PORT_LS_COMP_MOD:
		return "link in Compliance Mode";
	default:
		return NULL;
	}
}

static bool hub_link_polling(const struct usb_hub *hub, uint16_t status)
{
	return hub->superspeed && (status & USB_SS_PORT_STAT_LINK_STATE) == USB_SS_PORT_LS_POLLING;
}

/* Poll until a device is connected, or (SuperSpeed hub) its link needs a
 * warm reset (*warm: why) or has sat in Polling for HUB_POLLING_MS;
 * USB_TIMEOUT after HUB_CONNECT_TIMEOUT_MS with neither. */
static int hub_wait_connect(struct usb_hub *hub, unsigned port, void *dma, uint16_t *status, uint16_t *change,
			    const char **warm)
{
	unsigned polling_ms = 0;
	*warm = NULL;
	for (unsigned waited = 0;; waited += HUB_POLL_MS) {
		int rc = hub_port_status(hub, port, dma, status, change);
		if (rc != USB_OK)
			return rc;
		if ((*warm = hub_warm_reason(hub, *status)) != NULL)
			return USB_OK;
		if (hub_link_polling(hub, *status)) {
			if (polling_ms >= HUB_POLLING_MS) {
				*warm = "link stuck in Polling";
				return USB_OK;
			}
			polling_ms += HUB_POLL_MS;
		} else {
			polling_ms = 0;
			if (*status & USB_PORT_STAT_CONNECTION)
				return USB_OK;
			if (waited >= HUB_CONNECT_TIMEOUT_MS)
				return USB_TIMEOUT;
		}
		ke_stall_execution_processor(HUB_POLL_MS * 1000);
	}
}

/* One PORT_RESET or BH_PORT_RESET, until the port is enabled with a
 * device; the change bits are cleared before and after. */
static int hub_reset_once(struct usb_hub *hub, unsigned port, void *dma, bool warm, uint16_t *status,
			  uint16_t *change)
{
	const char *name = warm ? "BH_PORT_RESET" : "PORT_RESET";
	int rc = hub_clear_changes(hub, port, *change);
	if (rc != USB_OK)
		return rc;
	rc = hub_port_feature(hub, USB_REQ_SET_FEATURE, warm ? USB_HUB_BH_PORT_RESET : USB_HUB_PORT_RESET, port);
	if (rc != USB_OK) {
		kprintf("usb: hub %u (slot %u) port %u: SET_FEATURE(%s) failed: %s\n", hub->hop, hub->dev->slot, port,
			name, usb_status_name(rc));
		return rc;
	}
	rc = hub_wait(hub, port, dma, USB_PORT_STAT_RESET | USB_PORT_STAT_ENABLE | USB_PORT_STAT_CONNECTION,
		      USB_PORT_STAT_ENABLE | USB_PORT_STAT_CONNECTION,
		      warm ? USB_SS_PORT_STAT_C_BH_RESET | USB_PORT_STAT_C_RESET : USB_PORT_STAT_C_RESET,
		      HUB_RESET_TIMEOUT_MS, status, change);
	if (rc == USB_TIMEOUT)
		kprintf("usb: hub %u (slot %u) port %u: %s did not complete in %u ms (status 0x%04x, change 0x%04x)\n",
			hub->hop, hub->dev->slot, port, warm ? "warm reset" : "reset", HUB_RESET_TIMEOUT_MS, *status,
			*change);
	if (rc != USB_OK)
		return rc;
	return hub_clear_changes(hub, port, *change);
}

static enum usb_speed hub_port_speed(const struct usb_hub *hub, uint16_t status)
{
	if (hub->superspeed)
		return USB_SPEED_SUPER;
	if (status & USB_PORT_STAT_LOW_SPEED)
		return USB_SPEED_LOW;
	return (status & USB_PORT_STAT_HIGH_SPEED) ? USB_SPEED_HIGH : USB_SPEED_FULL;
}

/* The child's place on the bus: route string, depth, transaction translator. */
static void hub_child_address(const struct usb_hub *hub, unsigned port, enum usb_speed speed,
			      struct usb_device *child)
{
	const struct usb_device *h = hub->dev;
	child->hci = h->hci;
	child->speed = speed;
	child->root_port = h->root_port;
	child->depth = (uint8_t)(h->depth + 1);
	child->route = h->route | (uint32_t)port << (4 * h->depth);
	child->tt_slot = child->tt_port = 0;
	if (speed == USB_SPEED_LOW || speed == USB_SPEED_FULL) {
		if (h->speed == USB_SPEED_HIGH) {
			child->tt_slot = h->slot;
			child->tt_port = (uint8_t)port;
		} else {
			child->tt_slot = h->tt_slot;
			child->tt_port = h->tt_port;
		}
	}
}

int hub_ports_connected(struct usb_hub *hub, void *dma, uint16_t *connected)
{
	unsigned n = MIN(hub->nports, 15u);
	*connected = 0;
	for (unsigned port = 1; port <= n; port++) {
		int rc = hub_port_feature(hub, USB_REQ_SET_FEATURE, USB_HUB_PORT_POWER, port);
		if (rc != USB_OK)
			return rc;
	}
	/* Power good, then the time a device takes to pull up (debounce). */
	ke_stall_execution_processor(((uint64_t)hub->power_good_ms + HUB_DEBOUNCE_MS) * 1000);
	for (unsigned port = 1; port <= n; port++) {
		uint16_t status = 0, change = 0;
		int rc = hub_port_status(hub, port, dma, &status, &change);
		if (rc != USB_OK)
			return rc;
		if ((status & USB_PORT_STAT_CONNECTION) || hub_warm_reason(hub, status) || hub_link_polling(hub, status))
			*connected |= (uint16_t)(1u << port);
	}
	return USB_OK;
}

int hub_port_attach(struct usb_hub *hub, unsigned port, void *dma, struct usb_device *child)
{
	unsigned hop = hub->hop, slot = hub->dev->slot;
	if (port == 0 || port > hub->nports || port > 15 || hub->dev->depth >= HUB_ROUTE_TIERS) {
		kprintf("usb: hub %u (slot %u) port %u: not a port of this hub (%u ports, tier %u)\n", hop, slot, port,
			hub->nports, hub->dev->depth + 1);
		return USB_BADARG;
	}
	int rc = hub_port_feature(hub, USB_REQ_SET_FEATURE, USB_HUB_PORT_POWER, port);
	if (rc != USB_OK) {
		kprintf("usb: hub %u (slot %u) port %u: SET_FEATURE(PORT_POWER) failed: %s\n", hop, slot, port,
			usb_status_name(rc));
		return rc;
	}
	ke_stall_execution_processor((uint64_t)hub->power_good_ms * 1000);

	uint16_t status = 0, change = 0;
	const char *warm = NULL;
	rc = hub_wait_connect(hub, port, dma, &status, &change, &warm);
	if (rc == USB_TIMEOUT) {
		kprintf("usb: hub %u (slot %u) port %u: nothing connected after %u ms (status 0x%04x)\n", hop, slot,
			port, HUB_CONNECT_TIMEOUT_MS, status);
		return USB_NODEV;
	}
	if (rc != USB_OK)
		return rc;
	if (warm)
		kprintf("usb: hub %u (slot %u) port %u: %s: warm reset (BH_PORT_RESET)\n", hop, slot, port, warm);
	else
		ke_stall_execution_processor(HUB_DEBOUNCE_MS * 1000);
	rc = hub_reset_once(hub, port, dma, warm != NULL, &status, &change);
	if (rc == USB_TIMEOUT && hub->superspeed && !warm) {
		kprintf("usb: hub %u (slot %u) port %u: hot reset failed, trying a warm reset (BH_PORT_RESET)\n", hop,
			slot, port);
		rc = hub_reset_once(hub, port, dma, true, &status, &change);
	}
	if (rc != USB_OK)
		return rc;
	ke_stall_execution_processor(HUB_RESET_RECOVERY_MS * 1000);

	hub_child_address(hub, port, hub_port_speed(hub, status), child);
	kprintf("usb: hub %u (slot %u) port %u: %s device, route 0x%05x\n", hop, slot, port,
		usb_speed_name(child->speed), child->route);
	return USB_OK;
}
