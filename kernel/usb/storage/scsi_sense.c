/*
 * scsi_sense.c - REQUEST SENSE (SPC-4 6.39) after a CHECK CONDITION, the
 * sense data's key/ASC/ASCQ in fixed (0x70/0x71) or descriptor
 * (0x72/0x73) format (SPC-4 4.5), and the one console line every failed
 * command prints; the commands' names.
 *
 * lun->sense always holds the sense of the last command that ended in
 * CHECK CONDITION; a REQUEST SENSE that itself fails leaves key 0 and
 * says so.  Caller: scsi.c, one command at a time.
 */
#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/usb/storage/scsi.h"

#define SENSE_ALLOC 18 /* fixed format up to ASCQ and FRU */

int scsi_request_sense(struct scsi_lun *lun)
{
	uint8_t cdb[6] = { SCSI_REQUEST_SENSE, 0, 0, 0, SENSE_ALLOC, 0 };
	uint8_t *d = lun->scratch;
	uint32_t residue = 0;
	memset(d, 0, SENSE_ALLOC);
	lun->sense = (struct stick_sense){ 0, 0, 0 };
	int rc = bot_command(lun->bot, cdb, sizeof(cdb), BOT_DIR_IN, d, SENSE_ALLOC, &residue);
	if (rc != SCSI_GOOD) {
		kprintf("stick: REQUEST SENSE failed: %s\n",
			rc == BOT_CSW_FAILED ? "CHECK CONDITION" : usb_status_name(rc));
		return rc < 0 ? rc : USB_ERROR;
	}
	uint32_t got = SENSE_ALLOC - residue;
	uint8_t code = d[0] & 0x7F;
	if ((code == 0x70 || code == 0x71) && got >= 14)
		lun->sense = (struct stick_sense){ d[2] & 0x0F, d[12], d[13] };
	else if ((code == 0x72 || code == 0x73) && got >= 4)
		lun->sense = (struct stick_sense){ d[1] & 0x0F, d[2], d[3] };
	else
		kprintf("stick: REQUEST SENSE returned %u bytes of response code 0x%02x\n", got, code);
	return SCSI_GOOD;
}

static const char *sense_key_name(uint8_t key)
{
	static const char *const names[16] = {
		"no sense", "recovered error", "not ready", "medium error", "hardware error", "illegal request",
		"unit attention", "data protect", "blank check", "vendor specific", "copy aborted", "aborted command",
		"reserved", "volume overflow", "miscompare", "completed",
	};
	return names[key & 0x0F];
}

const char *scsi_sense_name(struct stick_sense s)
{
	static const struct {
		uint8_t asc, ascq;
		const char *name;
	} known[] = {
		{ 0x04, 0x01, "becoming ready" },
		{ 0x04, 0x02, "initializing command required" },
		{ 0x0C, 0x00, "write error" },
		{ 0x11, 0x00, "unrecovered read error" },
		{ 0x20, 0x00, "invalid command operation code" },
		{ 0x21, 0x00, "LBA out of range" },
		{ 0x24, 0x00, "invalid field in CDB" },
		{ 0x25, 0x00, "logical unit not supported" },
		{ 0x27, 0x00, "write protected" },
		{ 0x28, 0x00, "not ready to ready change, medium may have changed" },
		{ 0x29, 0x00, "power on, reset, or bus device reset" },
		{ 0x3A, 0x00, "medium not present" },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(known); i++)
		if (known[i].asc == s.asc && known[i].ascq == s.ascq)
			return known[i].name;
	return sense_key_name(s.key);
}

const char *scsi_command_name(uint8_t opcode)
{
	switch (opcode) {
	case SCSI_TEST_UNIT_READY: return "TEST UNIT READY";
	case SCSI_REQUEST_SENSE: return "REQUEST SENSE";
	case SCSI_INQUIRY: return "INQUIRY";
	case SCSI_MODE_SENSE_6: return "MODE SENSE(6)";
	case SCSI_START_STOP_UNIT: return "START STOP UNIT";
	case SCSI_READ_CAPACITY_10: return "READ CAPACITY(10)";
	case SCSI_READ_10: return "READ(10)";
	case SCSI_WRITE_10: return "WRITE(10)";
	case SCSI_SYNCHRONIZE_CACHE_10: return "SYNCHRONIZE CACHE(10)";
	case SCSI_READ_16: return "READ(16)";
	case SCSI_WRITE_16: return "WRITE(16)";
	case SCSI_SERVICE_ACTION_IN_16: return "READ CAPACITY(16)";
	default: return "a SCSI command";
	}
}

void scsi_report(const struct scsi_lun *lun, const char *command, int rc)
{
	struct stick_sense s = lun->sense;
	if (rc == SCSI_CHECK_CONDITION)
		kprintf("stick: %s failed: sense %x/%02x/%02x (%s)\n", command, s.key, s.asc, s.ascq,
			scsi_sense_name(s));
	else
		kprintf("stick: %s failed: %s\n", command, usb_status_name(rc));
}
