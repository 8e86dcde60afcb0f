/*
 * probe_storage.c - usb.probe=on's look at a mass-storage device: SCSI
 * commands over Bulk-Only Transport (a CBW on bulk OUT, the data and the
 * CSW on bulk IN) to show hci_configure() and hci_bulk() at work:
 * INQUIRY, READ CAPACITY (10), then 1 MiB READ (10)s into a buffer that
 * starts 512 bytes past a 64 KiB boundary (17 chained TRBs each, enough
 * of them to lap the transfer ring), checked against LBA 1 read alone,
 * and timed.  Read only: nothing is ever written to the device.
 *
 * Not the USB stack's BOT driver (kernel/usb/storage/bot.c): no reset recovery,
 * a failed command is reported and the look ends.  Layouts from the Mass
 * Storage Bulk-Only Transport 1.0 and SCSI, private to this file.  Runs
 * on the boot CPU from usb_probe_run().
 */
#include "kernel/usb/probe/probe.h"

#include <arch/cpu.h>
#include <arch/mmu.h>

#include "boot/common/gpt.h"
#include "kernel/console/console.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/bytes.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/size.h"
#include "kernel/mm/pmm.h"
#include "kernel/usb/hci.h"

struct __attribute__((packed)) usb_cbw {
	uint32_t dCBWSignature, dCBWTag, dCBWDataTransferLength;
	uint8_t bmCBWFlags, bCBWLUN, bCBWCBLength, CBWCB[16];
};
_Static_assert(sizeof(struct usb_cbw) == 31, "CBW");

struct __attribute__((packed)) usb_csw {
	uint32_t dCSWSignature, dCSWTag, dCSWDataResidue;
	uint8_t bCSWStatus;
};
_Static_assert(sizeof(struct usb_csw) == 13, "CSW");

#define CBW_SIGNATURE 0x43425355u
#define CSW_SIGNATURE 0x53425355u
#define BOT_TIMEOUT_MS 5000
#define READ_BYTES   (1u << 20) /* one READ (10) of the timed run     */
#define READ_COUNT   16         /* 16 x 17 TRBs: more than one ring lap */
#define READ_OFFSET  512        /* past a 64 KiB boundary              */

struct bot {
	struct usb_device *dev;
	uint8_t in, out;
	struct usb_cbw *cbw;  /* in scratch                             */
	struct usb_csw *csw;
	uint32_t tag;
	const char *label;
};

/* One command: the CSW status (0 good), or a negative usb_status. */
static int bot_command(struct bot *b, const uint8_t *cdb, uint8_t cdb_len, void *data, uint32_t len,
		       uint32_t *got)
{
	uint32_t n = 0;
	int rc;

	memset(b->cbw, 0, sizeof(*b->cbw));
	b->cbw->dCBWSignature = CBW_SIGNATURE;
	b->cbw->dCBWTag = ++b->tag;
	b->cbw->dCBWDataTransferLength = len;
	b->cbw->bmCBWFlags = 0x80; /* every command here reads */
	b->cbw->bCBWCBLength = cdb_len;
	memcpy(b->cbw->CBWCB, cdb, cdb_len);
	*got = 0;
	if ((rc = hci_bulk(b->dev, b->out, b->cbw, sizeof(*b->cbw), &n, BOT_TIMEOUT_MS)))
		return rc;
	if (len && (rc = hci_bulk(b->dev, b->in, data, len, got, BOT_TIMEOUT_MS)))
		return rc;
	if ((rc = hci_bulk(b->dev, b->in, b->csw, sizeof(*b->csw), &n, BOT_TIMEOUT_MS)))
		return rc;
	if (n != sizeof(*b->csw) || b->csw->dCSWSignature != CSW_SIGNATURE || b->csw->dCSWTag != b->tag) {
		kprintf("usb.probe: %s: SCSI 0x%02x: bad CSW (%u bytes, signature 0x%08x, tag 0x%08x for 0x%08x)\n",
			b->label, cdb[0], n, b->csw->dCSWSignature, b->csw->dCSWTag, b->tag);
		return USB_ERROR;
	}
	return b->csw->bCSWStatus;
}

static int read10(struct bot *b, uint32_t lba, uint16_t blocks, uint32_t block_size, void *buf, uint32_t *got)
{
	uint8_t cdb[10] = { 0x28, 0, (uint8_t)(lba >> 24), (uint8_t)(lba >> 16), (uint8_t)(lba >> 8), (uint8_t)lba,
			    0, (uint8_t)(blocks >> 8), (uint8_t)blocks, 0 };
	return bot_command(b, cdb, sizeof(cdb), buf, (uint32_t)blocks * block_size, got);
}

static void report(struct bot *b, const char *what, int rc)
{
	if (rc < 0)
		kprintf("usb.probe: %s: %s failed: %s\n", b->label, what, usb_status_name(rc));
	else
		kprintf("usb.probe: %s: %s failed: CSW status %d\n", b->label, what, rc);
}

/* The timed reads and their check; big: READ_BYTES + READ_OFFSET. */
static void read_check(struct bot *b, uint32_t block_size, uint64_t blocks, uint8_t *small, uint8_t *big)
{
	uint16_t per = (uint16_t)(READ_BYTES / block_size);
	uint32_t got = 0;
	int rc;

	if (blocks < (uint64_t)per * READ_COUNT || block_size > 4096) {
		kprintf("usb.probe: %s: too small for the read check\n", b->label);
		return;
	}
	/* LBA 0.. in one chained transfer, then LBA 1 alone: same bytes? */
	if ((rc = read10(b, 0, per, block_size, big, &got)) || got != READ_BYTES)
		return report(b, "READ (10) of LBA 0", rc);
	if ((rc = read10(b, 1, 1, block_size, small, &got)) || got != block_size)
		return report(b, "READ (10) of LBA 1", rc);
	bool same = memcmp(big + block_size, small, block_size) == 0;
	struct gpt_header_info gpt_info;
	enum gpt_status gpt = gpt_header_check(small, block_size, &gpt_info); /* the loader's own check */

	uint64_t start = arch_rdtsc();
	for (unsigned i = 0; i < READ_COUNT; i++) {
		if ((rc = read10(b, i * per, per, block_size, big, &got)) || got != READ_BYTES)
			return report(b, "timed READ (10)", rc);
	}
	uint64_t us = MAX(ke_tsc_to_us(arch_rdtsc() - start), 1ull);
	uint64_t kib = (uint64_t)READ_COUNT * READ_BYTES / 1024;
	char rate[32];
	size_format(rate, sizeof(rate), kib * 1024 * 1000000 / us, SIZE_MB); /* bytes a second */
	kprintf("usb.probe: %s: READ (10) %u x %u KiB, buffer 64 KiB boundary + %u: %llu KiB in %llu ms "
		"(%s/s); LBA 1 read alone %s; %s at LBA 1%s%s%s\n", b->label, READ_COUNT, READ_BYTES / 1024,
		READ_OFFSET, (unsigned long long)kib, (unsigned long long)(us / 1000), rate, same ? "matches" : "DIFFERS",
		gpt == GPT_OK ? "GPT header \"EFI PART\"" : "no valid GPT header", gpt == GPT_OK ? "" : " (",
		gpt == GPT_OK ? "" : gpt_status_name(gpt), gpt == GPT_OK ? "" : ")");
}

void usb_probe_storage(struct usb_device *d, uint8_t in_ep, uint8_t out_ep, uint16_t mps, uint8_t *scratch,
		       const char *label)
{
	struct bot b = { .dev = d, .in = in_ep, .out = out_ep, .cbw = (struct usb_cbw *)scratch,
			 .csw = (struct usb_csw *)(scratch + 64), .tag = 0x6b707200, .label = label };
	uint8_t *data = scratch + 128;
	static const uint8_t inquiry[6] = { 0x12, 0, 0, 0, 36, 0 };
	static const uint8_t capacity[10] = { 0x25 };
	char vendor[9], product[17], rev[5];
	uint32_t got = 0;
	int rc;

	memset(data, 0, 64);
	if ((rc = bot_command(&b, inquiry, sizeof(inquiry), data, 36, &got)))
		return report(&b, "INQUIRY", rc);
	memcpy(vendor, data + 8, 8);
	memcpy(product, data + 16, 16);
	memcpy(rev, data + 32, 4);
	vendor[8] = product[16] = rev[4] = 0;
	kprintf("usb.probe: %s: mass storage (bulk OUT 0x%02x, IN 0x%02x, %u bytes): INQUIRY \"%s\" \"%s\" \"%s\", "
		"%u bytes, CSW status 0 residue %u\n", label, out_ep, in_ep, mps, vendor, product, rev, got,
		b.csw->dCSWDataResidue);

	if ((rc = bot_command(&b, capacity, sizeof(capacity), data, 8, &got)) || got != 8)
		return report(&b, "READ CAPACITY (10)", rc);
	uint32_t last = get_be32(data);     /* RETURNED LOGICAL BLOCK ADDRESS */
	uint32_t bs = get_be32(data + 4);   /* BLOCK LENGTH IN BYTES */
	uint64_t blocks = (uint64_t)last + 1;
	kprintf("usb.probe: %s: READ CAPACITY (10): %llu blocks of %u bytes (%llu MiB)\n", label,
		(unsigned long long)blocks, bs, (unsigned long long)(blocks * bs >> 20));
	if (bs < 512 || (bs & (bs - 1)))
		return;

	/* 1 MiB + 512 bytes, physically contiguous, starting on a 64 KiB
	 * boundary, so the buffer at +512 crosses 16 of them. */
	size_t pages = (READ_BYTES + 0x10000) / PAGE_SIZE + 1; /* + a page for LBA 1 alone */
	uint64_t phys = pmm_alloc_pages_below(pages, USB_DMA_LIMIT);
	if (!phys) {
		kprintf("usb.probe: %s: no memory for the read check\n", label);
		return;
	}
	uint64_t aligned = ALIGN_UP(phys, 0x10000ull);
	read_check(&b, bs, blocks, phys_to_virt(phys + (pages - 1) * PAGE_SIZE),
		   (uint8_t *)phys_to_virt(aligned) + READ_OFFSET);
	pmm_free_pages(phys, pages);
}
