/*
 * usb_desc.h - the standard USB descriptors and requests the boot-path
 * enumeration uses (USB 2.0 chapter 9 and 11.23-11.24, USB 3.2 9.6 and
 * 10.15), with their layouts checked at compile time.
 *
 * Layouts are as on the wire (packed, little-endian); the kernel and the
 * unit-test hosts are little-endian, so multi-byte fields are read
 * directly after a memcpy out of the transfer buffer.  Every descriptor
 * taken from a device is bounds-checked against bLength and the transfer
 * (usb_config.c) before a field is read.  Header only: any caller.
 */
#ifndef KPROF_USB_DESC_H
#define KPROF_USB_DESC_H

#include <stdint.h>

/* bmRequestType (USB 2.0, 9.3.1): direction, type, recipient. */
#define USB_DIR_OUT 0x00
#define USB_DIR_IN 0x80
#define USB_TYPE_STANDARD 0x00
#define USB_TYPE_CLASS 0x20
#define USB_RECIP_DEVICE 0x00
#define USB_RECIP_INTERFACE 0x01
#define USB_RECIP_ENDPOINT 0x02
#define USB_RECIP_OTHER 0x03 /* a hub's port */

/* bRequest, standard (USB 2.0, table 9-4) and hub class (11.24.2). */
#define USB_REQ_GET_STATUS 0
#define USB_REQ_CLEAR_FEATURE 1
#define USB_REQ_SET_FEATURE 3
#define USB_REQ_GET_DESCRIPTOR 6
#define USB_REQ_SET_CONFIGURATION 9
#define USB_REQ_SET_HUB_DEPTH 12 /* USB 3.2, 10.16.2.9 */

/* Feature selectors. */
#define USB_FEATURE_ENDPOINT_HALT 0
#define USB_HUB_PORT_RESET 4
#define USB_HUB_PORT_POWER 8
#define USB_HUB_C_PORT_CONNECTION 16
#define USB_HUB_C_PORT_ENABLE 17
#define USB_HUB_C_PORT_SUSPEND 18
#define USB_HUB_C_PORT_OVER_CURRENT 19
#define USB_HUB_C_PORT_RESET 20
#define USB_HUB_C_PORT_LINK_STATE 25    /* USB 3 hubs */
#define USB_HUB_C_PORT_CONFIG_ERROR 26  /* USB 3 hubs */
#define USB_HUB_BH_PORT_RESET 28        /* USB 3 hubs: warm reset (10.16.2.10) */
#define USB_HUB_C_BH_PORT_RESET 29      /* USB 3 hubs */

/* Descriptor types. */
#define USB_DT_DEVICE 1
#define USB_DT_CONFIG 2
#define USB_DT_INTERFACE 4
#define USB_DT_ENDPOINT 5
#define USB_DT_SS_ENDPOINT_COMP 48
#define USB_DT_HUB 0x29    /* USB 2.0, 11.23.2.1 */
#define USB_DT_SS_HUB 0x2A /* USB 3.2, 10.15.2.1 */

/* Class codes. */
#define USB_CLASS_MASS_STORAGE 8
#define USB_CLASS_HUB 9
#define USB_MSC_SUBCLASS_SCSI 6    /* SCSI transparent command set */
#define USB_MSC_PROTOCOL_BBB 0x50  /* Bulk-Only Transport          */

/* Endpoint transfer types (bmAttributes & 3). */
#define USB_EP_BULK 2

struct usb_device_descriptor {
	uint8_t bLength;            /* 18                                  */
	uint8_t bDescriptorType;    /* USB_DT_DEVICE                       */
	uint16_t bcdUSB;            /* 0x0200, 0x0300, ...                 */
	uint8_t bDeviceClass;       /* 9 for a hub                         */
	uint8_t bDeviceSubClass;
	uint8_t bDeviceProtocol;    /* hubs: 1 single TT, 2 multiple TTs   */
	uint8_t bMaxPacketSize0;    /* USB 3: an exponent (9 = 512)        */
	uint16_t idVendor;
	uint16_t idProduct;
	uint16_t bcdDevice;
	uint8_t iManufacturer;
	uint8_t iProduct;
	uint8_t iSerialNumber;
	uint8_t bNumConfigurations;
} __attribute__((packed));

struct usb_config_descriptor {
	uint8_t bLength;             /* 9                                   */
	uint8_t bDescriptorType;     /* USB_DT_CONFIG                       */
	uint16_t wTotalLength;       /* this and all that follows it        */
	uint8_t bNumInterfaces;
	uint8_t bConfigurationValue; /* for SET_CONFIGURATION               */
	uint8_t iConfiguration;
	uint8_t bmAttributes;
	uint8_t bMaxPower;
} __attribute__((packed));

struct usb_interface_descriptor {
	uint8_t bLength;             /* 9                                   */
	uint8_t bDescriptorType;     /* USB_DT_INTERFACE                    */
	uint8_t bInterfaceNumber;
	uint8_t bAlternateSetting;
	uint8_t bNumEndpoints;
	uint8_t bInterfaceClass;
	uint8_t bInterfaceSubClass;
	uint8_t bInterfaceProtocol;
	uint8_t iInterface;
} __attribute__((packed));

struct usb_endpoint_descriptor {
	uint8_t bLength;             /* 7                                   */
	uint8_t bDescriptorType;     /* USB_DT_ENDPOINT                     */
	uint8_t bEndpointAddress;    /* bit 7 IN, bits 3:0 number           */
	uint8_t bmAttributes;        /* bits 1:0 transfer type              */
	uint16_t wMaxPacketSize;     /* bits 10:0 size                      */
	uint8_t bInterval;
} __attribute__((packed));

struct usb_ss_ep_companion_descriptor {
	uint8_t bLength;             /* 6                                   */
	uint8_t bDescriptorType;     /* USB_DT_SS_ENDPOINT_COMP             */
	uint8_t bMaxBurst;           /* packets per burst - 1               */
	uint8_t bmAttributes;        /* bulk: streams                       */
	uint16_t wBytesPerInterval;
} __attribute__((packed));

/* USB 2.0 hub descriptor up to the first DeviceRemovable byte; the
 * variable-length bitmaps that follow are not needed. */
struct usb_hub_descriptor {
	uint8_t bDescLength;
	uint8_t bDescriptorType;     /* USB_DT_HUB                          */
	uint8_t bNbrPorts;
	uint16_t wHubCharacteristics; /* bits 6:5 TT think time            */
	uint8_t bPwrOn2PwrGood;      /* in 2 ms units                       */
	uint8_t bHubContrCurrent;
} __attribute__((packed));

struct usb_ss_hub_descriptor {
	uint8_t bDescLength;         /* 12                                  */
	uint8_t bDescriptorType;     /* USB_DT_SS_HUB                       */
	uint8_t bNbrPorts;
	uint16_t wHubCharacteristics;
	uint8_t bPwrOn2PwrGood;      /* in 2 ms units                       */
	uint8_t bHubContrCurrent;
	uint8_t bHubHdrDecLat;
	uint16_t wHubDelay;
	uint16_t DeviceRemovable;
} __attribute__((packed));

_Static_assert(sizeof(struct usb_device_descriptor) == 18, "device descriptor");
_Static_assert(sizeof(struct usb_config_descriptor) == 9, "configuration descriptor");
_Static_assert(sizeof(struct usb_interface_descriptor) == 9, "interface descriptor");
_Static_assert(sizeof(struct usb_endpoint_descriptor) == 7, "endpoint descriptor");
_Static_assert(sizeof(struct usb_ss_ep_companion_descriptor) == 6, "SS companion descriptor");
_Static_assert(sizeof(struct usb_hub_descriptor) == 7, "hub descriptor head");
_Static_assert(sizeof(struct usb_ss_hub_descriptor) == 12, "SuperSpeed hub descriptor");

/* wPortStatus / wPortChange bits (USB 2.0 11.24.2.7, USB 3.2 10.16.2.6). */
#define USB_PORT_STAT_CONNECTION 0x0001
#define USB_PORT_STAT_ENABLE 0x0002
#define USB_PORT_STAT_OVERCURRENT 0x0008
#define USB_PORT_STAT_RESET 0x0010
#define USB_PORT_STAT_POWER 0x0100     /* USB 2 hubs          */
#define USB_PORT_STAT_LOW_SPEED 0x0200 /* USB 2 hubs          */
#define USB_PORT_STAT_HIGH_SPEED 0x0400
#define USB_SS_PORT_STAT_POWER 0x0200  /* USB 3 hubs          */
#define USB_SS_PORT_STAT_LINK_STATE 0x01E0 /* USB 3 hubs: bits 8:5 */
#define USB_SS_PORT_LS_U0 0x0000
#define USB_SS_PORT_LS_SS_INACTIVE 0x00C0
#define USB_SS_PORT_LS_POLLING 0x00E0
#define USB_SS_PORT_LS_COMP_MOD 0x0140  /* Compliance Mode     */

#define USB_PORT_STAT_C_CONNECTION 0x0001
#define USB_PORT_STAT_C_ENABLE 0x0002
#define USB_PORT_STAT_C_SUSPEND 0x0004
#define USB_PORT_STAT_C_OVERCURRENT 0x0008
#define USB_PORT_STAT_C_RESET 0x0010
#define USB_SS_PORT_STAT_C_BH_RESET 0x0020
#define USB_SS_PORT_STAT_C_LINK_STATE 0x0040
#define USB_SS_PORT_STAT_C_CONFIG_ERROR 0x0080

#endif /* KPROF_USB_DESC_H */
