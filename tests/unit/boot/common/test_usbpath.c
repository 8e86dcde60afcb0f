/*
 * test_usbpath.c - the USB hops and partition of a boot device path
 * (boot/common/usbpath.c), on paths built node by node as OVMF gives them
 * (docs/usb-stick.md): a stick on a root port, behind a hub, a virtio
 * disk, the LUN nodes EDK2 and AMI add for multi-LUN devices (Unit(n),
 * Scsi(0,n)), a superfloppy without HD node, an MBR partition, and the
 * paths the loader must refuse by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "boot/common/usbpath.h"

static uint8_t dp[512];
static size_t len;

static void node(uint8_t type, uint8_t sub, const uint8_t *data, size_t n)
{
	dp[len] = type, dp[len + 1] = sub;
	dp[len + 2] = (uint8_t)(n + 4), dp[len + 3] = (uint8_t)((n + 4) >> 8);
	if (n)
		memcpy(dp + len + 4, data, n);
	len += n + 4;
}

static void pciroot(void) { node(0x02, 0x01, (const uint8_t[8]){ 0xD0, 0x41, 0x03, 0x0A }, 8); }
static void pci(uint8_t dev, uint8_t fn) { node(0x01, 0x01, (const uint8_t[2]){ fn, dev }, 2); }
static void usb(uint8_t port) { node(0x03, 0x05, (const uint8_t[2]){ port, 0 }, 2); }
static void end(void) { node(0x7F, 0xFF, NULL, 0); }
static void unit(uint8_t lun) { node(0x03, 0x11, (const uint8_t[1]){ lun }, 1); }
static void scsi(uint8_t pun, uint8_t lun) { node(0x03, 0x02, (const uint8_t[4]){ pun, 0, lun, 0 }, 4); }

/* HD(1,MBR,0x1A2B3C4D,0x800,0x1FF800) */
static void hd_mbr(void)
{
	uint8_t d[38] = { 1, 0, 0, 0 };

	d[4 + 1] = 0x08;                                  /* PartitionStart 0x800    */
	d[12 + 1] = 0xF8, d[12 + 2] = 0x1F;               /* PartitionSize 0x1FF800  */
	d[20] = 0x4D, d[21] = 0x3C, d[22] = 0x2B, d[23] = 0x1A; /* the disk signature */
	d[36] = 1, d[37] = 1;                             /* MBR, 32-bit signature   */
	node(0x04, 0x01, d, sizeof(d));
}

/* HD(1,GPT,<guid>,0x800,0x1F000) */
static void hd(void)
{
	uint8_t d[38] = { 1, 0, 0, 0 };

	d[4 + 1] = 0x08;                     /* PartitionStart 0x800   */
	d[12 + 1] = 0xF0, d[12 + 2] = 0x01;  /* PartitionSize 0x1F000  */
	memset(d + 20, 0xAB, 16);            /* partition GUID         */
	d[36] = 2, d[37] = 2;                /* GPT, GUID signature    */
	node(0x04, 0x01, d, sizeof(d));
}

static void test_root_port(void **state)
{
	struct usbpath p;

	(void)state;
	len = 0;
	pciroot(), pci(3, 0), usb(4), hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_USB);
	assert_int_equal(p.depth, 1);
	assert_int_equal(p.ports[0], 5);
	assert_int_equal(p.usb_offset, 12 + 6);
	assert_int_equal(p.hd_offset, 12 + 6 + 6);
	assert_int_equal(p.partition_number, 1);
	assert_int_equal(p.partition_start, 0x800);
	assert_int_equal(p.partition_size, 0x1F000);
	assert_int_equal(p.signature_type, 2);
	assert_int_equal(p.lun, 0);
}

/* .../USB(0x0,0x0)/Unit(0x1)/HD(1,MBR,...) and .../USB(0x0,0x0)/Scsi(0x0,0x2)/HD(...):
 * the LUN travels, the partition is read as without it. */
static void test_lun_nodes(void **state)
{
	struct usbpath p;

	(void)state;
	len = 0;
	pciroot(), pci(3, 0), usb(0), unit(1), hd_mbr(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_USB);
	assert_int_equal(p.depth, 1);
	assert_int_equal(p.ports[0], 1);
	assert_int_equal(p.lun, 1);
	assert_int_equal(p.hd_offset, 12 + 6 + 6 + 5);
	assert_int_equal(p.signature_type, 1);
	assert_int_equal(p.mbr_signature, 0x1A2B3C4D);
	assert_int_equal(p.partition_start, 0x800);
	assert_int_equal(p.partition_size, 0x1FF800);
	len = 0;
	pciroot(), pci(3, 0), usb(4), usb(2), scsi(0, 2), hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_USB);
	assert_int_equal(p.depth, 2);
	assert_int_equal(p.ports[1], 3);
	assert_int_equal(p.lun, 2);
	assert_int_equal(p.hd_offset, 12 + 6 + 6 + 6 + 8);
	assert_int_equal(p.signature_type, 2);
}

/* A superfloppy: no HD node, the path ends at the USB (or LUN) node and
 * the disk's own path is the whole path. */
static void test_no_partition(void **state)
{
	struct usbpath p;

	(void)state;
	len = 0;
	pciroot(), pci(3, 0), usb(0), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_USB);
	assert_int_equal(p.hd_offset, 12 + 6 + 6);
	assert_int_equal(p.partition_number, 0);
	assert_int_equal(p.signature_type, 0);
	len = 0;
	pciroot(), pci(3, 0), usb(0), unit(3), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_USB);
	assert_int_equal(p.lun, 3);
	assert_int_equal(p.hd_offset, 12 + 6 + 6 + 5);
	assert_int_equal(p.signature_type, 0);
}

/* PciRoot(0x0)/Pci(0x3,0x0)/USB(0x4,0x0)/USB(0x0,0x0)/HD(...) */
static void test_behind_hub(void **state)
{
	struct usbpath p;

	(void)state;
	len = 0;
	pciroot(), pci(3, 0), usb(4), usb(0), hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_USB);
	assert_int_equal(p.depth, 2);
	assert_int_equal(p.ports[0], 5);
	assert_int_equal(p.ports[1], 1);
	assert_int_equal(p.hd_offset, 12 + 6 + 6 + 6);
}

static void test_refused(void **state)
{
	struct usbpath p;

	(void)state;
	len = 0; /* virtio-blk: PCI then the partition */
	pciroot(), pci(4, 0), hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_NOT_USB);
	len = 0; /* a root port and six hubs */
	pciroot(), pci(3, 0);
	for (int i = 0; i < BOOTINFO_STICK_PATH_MAX + 1; i++)
		usb(1);
	hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_TOO_DEEP);
	len = 0; /* a SATA node after the USB device (a bridge kprof does not drive) */
	pciroot(), pci(3, 0), usb(0), node(0x03, 0x12, (const uint8_t[6]){ 0 }, 6), hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_OTHER);
	len = 0; /* two LUN nodes */
	pciroot(), pci(3, 0), usb(0), unit(1), unit(1), hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_OTHER);
	len = 0; /* a USB hop after the LUN node */
	pciroot(), pci(3, 0), usb(0), unit(1), usb(0), hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_OTHER);
	len = 0; /* a SCSI target other than 0: not Bulk-Only's */
	pciroot(), pci(3, 0), usb(0), scsi(1, 0), hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_BAD_LUN);
	len = 0; /* LUN 16: Bulk-Only has 0 to 15 */
	pciroot(), pci(3, 0), usb(0), unit(16), hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_BAD_LUN);
	len = 0; /* a LUN node without USB hops: another disk */
	pciroot(), pci(3, 0), unit(0), hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_NOT_USB);
	len = 0; /* a Unit node too short to hold its LUN */
	pciroot(), pci(3, 0), usb(0), node(0x03, 0x11, NULL, 0), hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_BAD);
	assert_non_null(strstr(usbpath_result_name(USBPATH_OTHER), "Unit(n) or Scsi(0,n)"));
	assert_non_null(strstr(usbpath_result_name(USBPATH_BAD_LUN), "at most 15"));
	len = 0; /* USB straight under the root bridge */
	pciroot(), usb(0), hd(), end();
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_NOT_PCI);
}

static void test_malformed(void **state)
{
	struct usbpath p;

	(void)state;
	len = 0;
	pciroot(), pci(3, 0), usb(4), hd(), end();
	assert_int_equal(usbpath_parse(dp, len - 20, &p), USBPATH_BAD); /* HD node cut short    */
	dp[12 + 2] = 2;                                                /* a node of length 2   */
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_BAD);
	dp[12 + 2] = 6;
	dp[12 + 6 + 2] = 0xFF;                                         /* runs past the end    */
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_BAD);
	dp[12 + 6 + 2] = 6;
	assert_int_equal(usbpath_parse(dp, len, &p), USBPATH_USB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_port),
		cmocka_unit_test(test_behind_hub),
		cmocka_unit_test(test_lun_nodes),
		cmocka_unit_test(test_no_partition),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
