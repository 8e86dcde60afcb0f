/*
 * scsi.h - the SCSI commands (SPC-4, SBC-3) the stick is driven with,
 * over Bulk-Only Transport, and the sense data that explains a failure.
 *
 * Every function returns SCSI_GOOD, SCSI_CHECK_CONDITION (the sense is
 * then in lun->sense, fetched with REQUEST SENSE) or a negative enum
 * usb_status from the transport; a failure also prints one console line
 * naming the command and the sense ("stick: WRITE(10) at LBA 4096
 * failed: sense 7/27/00 (write protected)").  Called by stick.c, one
 * command at a time.
 */
#ifndef KPROF_USB_SCSI_H
#define KPROF_USB_SCSI_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/usb/storage/bot.h"
#include "kernel/usb/storage/stick.h"

/* Operation codes. */
#define SCSI_TEST_UNIT_READY 0x00
#define SCSI_REQUEST_SENSE 0x03
#define SCSI_INQUIRY 0x12
#define SCSI_MODE_SENSE_6 0x1A
#define SCSI_START_STOP_UNIT 0x1B
#define SCSI_READ_CAPACITY_10 0x25
#define SCSI_READ_10 0x28
#define SCSI_WRITE_10 0x2A
#define SCSI_SYNCHRONIZE_CACHE_10 0x35
#define SCSI_READ_16 0x88
#define SCSI_WRITE_16 0x8A
#define SCSI_SERVICE_ACTION_IN_16 0x9E
#define SCSI_SAI_READ_CAPACITY_16 0x10

/* Sense keys (SPC-4 4.5.6). */
#define SCSI_SENSE_NO_SENSE 0x0
#define SCSI_SENSE_NOT_READY 0x2
#define SCSI_SENSE_ILLEGAL_REQUEST 0x5
#define SCSI_SENSE_UNIT_ATTENTION 0x6
#define SCSI_SENSE_DATA_PROTECT 0x7
#define SCSI_ASC_WRITE_PROTECTED 0x27
#define SCSI_ASC_INVALID_OPCODE 0x20

#define SCSI_GOOD 0
#define SCSI_CHECK_CONDITION 1

#define SCSI_ASC_MEDIUM_NOT_PRESENT 0x3A

/* Patience at open (scsi.c, scsi_exec).  UNIT ATTENTIONs in a row that
 * one command is sent again for: a device queues a few (power on, then
 * mode parameters changed, then medium changed); one that says nothing
 * else is broken.  NOT READY: asked again every SCSI_READY_DELAY_MS for
 * up to SCSI_NOT_READY_MS per command.  Linux's sd waits up to 100 s for
 * a disk to spin up; a stick has nothing to spin, but its controller
 * rebuilds its flash translation table after an unclean power-off, which
 * takes seconds on cheap sticks: 15 s covers that with room, and bounds
 * what a dead stick costs before the trace goes to serial. */
#define SCSI_ATTENTION_TRIES 8
#define SCSI_NOT_READY_MS 15000
#define SCSI_READY_DELAY_MS 100
#define SCSI_SCRATCH_BYTES 256   /* INQUIRY, capacity, mode, sense data */

struct scsi_lun {
	struct bot *bot;         /* the transport                        */
	uint8_t *scratch;        /* SCSI_SCRATCH_BYTES, DMA-able         */
	struct stick_sense sense; /* of the last CHECK CONDITION         */
	bool patient;            /* opening: UNIT ATTENTION and NOT READY
				  * retried (scsi_exec)                 */
};

struct scsi_inquiry_data {
	uint8_t peripheral_type; /* 0 = direct-access block device       */
	bool removable;
	char vendor[9];          /* T10 vendor id, NUL-terminated        */
	char product[17];
};

int scsi_inquiry(struct scsi_lun *lun, struct scsi_inquiry_data *out);
/* TEST UNIT READY until GOOD, patient as at open (UNIT ATTENTION and
 * NOT READY retried within the bounds above) whatever lun->patient. */
int scsi_wait_ready(struct scsi_lun *lun);
/* READ CAPACITY(10), and (16) when (10) says 0xFFFFFFFF: *blocks is the
 * number of blocks (last LBA + 1). */
int scsi_read_capacity(struct scsi_lun *lun, uint64_t *blocks, uint32_t *block_size);
/* MODE SENSE(6), all pages: WP bit of the device-specific parameter. */
int scsi_mode_sense_wp(struct scsi_lun *lun, bool *wp);
/* READ or WRITE of blocks at lba: (10) when it fits, else (16).  Any
 * residue is a failure (USB_ERROR, with a message). */
int scsi_read_write(struct scsi_lun *lun, bool write, uint64_t lba, uint32_t blocks, uint32_t block_size,
		    void *buf);
/* SYNCHRONIZE CACHE(10) of the whole medium, patient as TEST UNIT READY;
 * 5/20/00 (not supported) is SCSI_GOOD: no cache to flush. */
int scsi_synchronize_cache(struct scsi_lun *lun);

/* One command with REQUEST SENSE after CHECK CONDITION and one retry
 * after a transport failure that reset recovery cleared; with
 * lun->patient, UNIT ATTENTION and NOT READY retried (scsi.c). */
int scsi_exec(struct scsi_lun *lun, const uint8_t *cdb, uint8_t cdb_len, enum bot_dir dir, void *data, uint32_t len,
	      uint32_t *residue);

/* scsi_sense.c: REQUEST SENSE into lun->sense (fixed or descriptor
 * format), the name of a sense, and the failure line. */
int scsi_request_sense(struct scsi_lun *lun);
const char *scsi_sense_name(struct stick_sense s);
/* "READ CAPACITY(10)": the command's name by its operation code. */
const char *scsi_command_name(uint8_t opcode);
void scsi_report(const struct scsi_lun *lun, const char *command, int rc);

#endif /* KPROF_USB_SCSI_H */
