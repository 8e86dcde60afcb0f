/*
 * usbpath.c - the USB hops and the partition of a boot device path
 * (usbpath.h).  OVMF gives a stick behind a hub as
 *   PciRoot(0x0)/Pci(0x3,0x0)/USB(0x4,0x0)/USB(0x0,0x0)/HD(1,GPT,...)
 * each USB node's port 0-based (the 5th root port, then the hub's 1st);
 * bootinfo wants them 1-based, as hubs and xHCI number their ports.
 * EDK2 and AMI add the LUN of a multi-LUN device (a card reader, a stick
 * with a CD-ROM LUN) after the hops, as Unit(n) (Messaging 0x11, UEFI
 * 2.10 10.3.4.8) or Scsi(0,n) (Messaging 0x02); a disk without partition
 * table has no HD node, the path ends at the USB (or LUN) node.
 */
#include "boot/common/usbpath.h"

#include "kernel/lib/bytes.h"

#define DP_HARDWARE  0x01
#define DP_ACPI      0x02
#define DP_MESSAGING 0x03
#define DP_MEDIA     0x04
#define DP_END       0x7F
#define HW_PCI       0x01
#define MSG_SCSI     0x02 /* Pun (target) 2 bytes, Lun 2 bytes */
#define MSG_USB      0x05
#define MSG_UNIT     0x11 /* Lun 1 byte */
#define BOT_LUN_MAX  15
#define MEDIA_HD     0x01
#define HD_NODE_LEN  42 /* Header 4, number 4, start 8, size 8, sig 16, types 2 */

const char *usbpath_result_name(enum usbpath_result r)
{
	switch (r) {
	case USBPATH_USB: return "USB mass storage";
	case USBPATH_NOT_USB: return "not a USB device";
	case USBPATH_TOO_DEEP: return "more USB hubs than bootinfo holds";
	case USBPATH_NOT_PCI: return "a USB device not on a PCI host controller";
	case USBPATH_OTHER: return "a USB device reached through another protocol (kprof accepts after the USB nodes "
				   "one Unit(n) or Scsi(0,n) node, then HD(...) or nothing)";
	case USBPATH_BAD_LUN: return "a USB device whose LUN node kprof cannot use (accepted: Unit(n) or Scsi(0,n), "
				     "n at most 15)";
	case USBPATH_BAD: return "a malformed device path";
	}
	return "?";
}

enum usbpath_result usbpath_parse(const uint8_t *dp, size_t max, struct usbpath *out)
{
	size_t off = 0;
	int last_pci = 0; /* the node before the current one was PCI */
	int seen_usb = 0, seen_lun = 0;

	*out = (struct usbpath){ 0 };
	for (;;) {
		if (off + 4 > max)
			return USBPATH_BAD;
		uint8_t type = dp[off] & 0x7F, sub = dp[off + 1];
		size_t len = get_le16(dp + off + 2);

		if (len < 4 || off + len > max)
			return USBPATH_BAD;
		if (type == DP_END && sub == 0xFF) {
			if (!seen_usb)
				return USBPATH_NOT_USB;
			out->hd_offset = (uint32_t)off; /* the whole disk */
			return USBPATH_USB;
		}
		if (type == DP_MESSAGING && sub == MSG_USB) {
			if (len < 6)
				return USBPATH_BAD;
			if (seen_lun)
				return USBPATH_OTHER;
			if (!seen_usb) {
				if (!last_pci)
					return USBPATH_NOT_PCI;
				out->usb_offset = (uint32_t)off;
			}
			if (out->depth == BOOTINFO_STICK_PATH_MAX)
				return USBPATH_TOO_DEEP;
			out->ports[out->depth++] = (uint8_t)(dp[off + 4] + 1);
			seen_usb = 1;
		} else if (seen_usb && !seen_lun && type == DP_MESSAGING && (sub == MSG_UNIT || sub == MSG_SCSI)) {
			uint64_t lun;

			if (len < (sub == MSG_UNIT ? 5u : 8u))
				return USBPATH_BAD;
			lun = sub == MSG_UNIT ? dp[off + 4] : get_le16(dp + off + 6);
			if (lun > BOT_LUN_MAX || (sub == MSG_SCSI && get_le16(dp + off + 4)))
				return USBPATH_BAD_LUN; /* a SCSI target other than 0 */
			out->lun = (uint8_t)lun;
			seen_lun = 1;
		} else if (type == DP_MEDIA && sub == MEDIA_HD) {
			if (!seen_usb)
				return USBPATH_NOT_USB;
			if (len < HD_NODE_LEN)
				return USBPATH_BAD;
			out->hd_offset = (uint32_t)off;
			out->partition_number = get_le32(dp + off + 4);
			out->partition_start = get_le64(dp + off + 8);
			out->partition_size = get_le64(dp + off + 16);
			out->mbr_signature = get_le32(dp + off + 24);
			out->signature_type = dp[off + 41];
			return USBPATH_USB;
		} else if (seen_usb) {
			return USBPATH_OTHER;
		}
		last_pci = type == DP_HARDWARE && sub == HW_PCI;
		off += len;
	}
}
