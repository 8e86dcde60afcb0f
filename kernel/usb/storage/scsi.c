/*
 * scsi.c - the SCSI commands the stick needs (SPC-4: INQUIRY, TEST UNIT
 * READY, MODE SENSE(6), REQUEST SENSE via scsi_sense.c; SBC-3: READ
 * CAPACITY(10)/(16), READ(10)/(16), WRITE(10)/(16), SYNCHRONIZE
 * CACHE(10), START STOP UNIT when a stick asks for it), each a CDB built
 * here and carried by bot.c.
 *
 * scsi_exec() is the one path to the transport: a CSW "failed" is
 * followed at once by REQUEST SENSE (the sense is only kept by the device
 * until the next command), and a transport failure that reset recovery
 * cleared is retried once (READ and WRITE are idempotent; so is
 * everything else sent here).  While the stick is being opened
 * (lun->patient: INQUIRY, TEST UNIT READY, READ CAPACITY, MODE SENSE,
 * the identity's READs), and for every TEST UNIT READY and SYNCHRONIZE
 * CACHE, it is as patient as Linux's sd: a UNIT ATTENTION is sent again
 * at once, up to SCSI_ATTENTION_TRIES times; a NOT READY that waiting may
 * end is asked again every SCSI_READY_DELAY_MS for up to
 * SCSI_NOT_READY_MS, with one line when the wait starts and one when it
 * ends; one that needs an initializing command (2/04/02) gets START UNIT
 * once first.  Mid-run a UNIT ATTENTION on a READ or WRITE is a failure
 * (the medium may have changed: the caller's recovery proves the disk
 * again).  Data in CDBs is big-endian.  Caller: stick.c, one command at
 * a time.
 */
#include "kernel/usb/storage/scsi.h"

#include "kernel/console/console.h"
#include "kernel/ke/time/time.h"
#include "kernel/lib/bytes.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"

/* One command: REQUEST SENSE after CHECK CONDITION, and one retry after
 * a transport failure that reset recovery cleared. */
static int scsi_exec_once(struct scsi_lun *lun, const uint8_t *cdb, uint8_t cdb_len, enum bot_dir dir, void *data,
			  uint32_t len, uint32_t *residue)
{
	uint32_t res = len;
	int rc = bot_command(lun->bot, cdb, cdb_len, dir, data, len, &res);
	if (rc < 0 && rc != USB_BADARG && !lun->bot->broken)
		rc = bot_command(lun->bot, cdb, cdb_len, dir, data, len, &res);
	if (rc == BOT_CSW_FAILED) {
		int s = scsi_request_sense(lun);
		rc = s == SCSI_GOOD ? SCSI_CHECK_CONDITION : s;
	}
	if (residue)
		*residue = res;
	return rc;
}

/* NOT READY that waiting may end (SPC-4 4.5.6; Linux's sd_spinup_disk):
 * becoming ready (04/01), cause not reportable (04/00), and the rest;
 * not medium not present (3A/xx), nor the two that need someone to act:
 * an initializing command required (04/02: scsi_exec sends START UNIT
 * once first) and manual intervention required (04/03). */
static bool scsi_may_become_ready(struct stick_sense s)
{
	return s.key == SCSI_SENSE_NOT_READY && s.asc != SCSI_ASC_MEDIUM_NOT_PRESENT &&
	       !(s.asc == 0x04 && (s.ascq == 0x02 || s.ascq == 0x03));
}

/* 2/04/02, an initializing command required: START UNIT with IMMED
 * (SBC-3 5.25), as Linux's sd sends it; the device then says NOT READY
 * 04/01 until it is up, which scsi_exec waits for.  true when it was
 * accepted; else the command's own sense is kept for its failure line. */
static bool scsi_start_unit(struct scsi_lun *lun, const char *name)
{
	const uint8_t cdb[6] = { SCSI_START_STOP_UNIT, 0x01 /* IMMED */, 0, 0, 0x01 /* START */, 0 };
	struct stick_sense s = lun->sense;
	kprintf("stick: %s: not ready, sense 2/04/02 (initializing command required): sending START UNIT\n", name);
	int rc = scsi_exec_once(lun, cdb, sizeof(cdb), BOT_DIR_NONE, NULL, 0, NULL);
	if (rc == SCSI_GOOD)
		return true;
	scsi_report(lun, "START STOP UNIT", rc);
	lun->sense = s;
	return false;
}

int scsi_exec(struct scsi_lun *lun, const uint8_t *cdb, uint8_t cdb_len, enum bot_dir dir, void *data, uint32_t len,
	      uint32_t *residue)
{
	const char *name = scsi_command_name(cdb[0]);
	unsigned attentions = 0, polls = 0;
	bool started = false;
	int rc;

	for (;;) {
		rc = scsi_exec_once(lun, cdb, cdb_len, dir, data, len, residue);
		if (rc != SCSI_CHECK_CONDITION || !lun->patient)
			break;
		struct stick_sense s = lun->sense;
		if (s.key == SCSI_SENSE_UNIT_ATTENTION && attentions < SCSI_ATTENTION_TRIES) {
			attentions++;
			kprintf("stick: %s: unit attention %x/%02x/%02x (%s): sent again\n", name, s.key, s.asc, s.ascq,
				scsi_sense_name(s));
			continue;
		}
		if (s.key == SCSI_SENSE_NOT_READY && s.asc == 0x04 && s.ascq == 0x02 && !started) {
			started = true;
			if (scsi_start_unit(lun, name))
				continue;
			break;
		}
		if (!scsi_may_become_ready(s) || polls >= SCSI_NOT_READY_MS / SCSI_READY_DELAY_MS)
			break;
		if (!polls)
			kprintf("stick: %s: not ready, sense %x/%02x/%02x (%s): asking again every %u ms for up to %u s\n",
				name, s.key, s.asc, s.ascq, scsi_sense_name(s), SCSI_READY_DELAY_MS,
				SCSI_NOT_READY_MS / 1000);
		polls++;
		ke_stall_execution_processor(SCSI_READY_DELAY_MS * 1000);
	}
	unsigned ms = polls * SCSI_READY_DELAY_MS;
	if (polls && rc == SCSI_GOOD)
		kprintf("stick: %s: ready after %u.%u s\n", name, ms / 1000, ms % 1000 / 100);
	else if (polls && rc == SCSI_CHECK_CONDITION && scsi_may_become_ready(lun->sense))
		kprintf("stick: %s: still not ready after %u s\n", name, ms / 1000);
	return rc;
}

/* Copy a space-padded ASCII field, trimmed. */
static void scsi_ascii(char *dst, const uint8_t *src, unsigned n, unsigned avail)
{
	unsigned len = MIN(n, avail);
	for (unsigned i = 0; i < len; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7F ? (char)src[i] : '?';
	while (len && dst[len - 1] == ' ')
		len--;
	dst[len] = '\0';
}

int scsi_inquiry(struct scsi_lun *lun, struct scsi_inquiry_data *out)
{
	const uint8_t alloc = 36; /* standard INQUIRY data up to the product revision */
	uint8_t cdb[6] = { SCSI_INQUIRY, 0, 0, 0, alloc, 0 };
	uint32_t residue = 0;
	int rc = scsi_exec(lun, cdb, sizeof(cdb), BOT_DIR_IN, lun->scratch, alloc, &residue);
	uint32_t got = alloc - residue;
	if (rc == SCSI_GOOD && got < 5) {
		kprintf("stick: INQUIRY returned %u bytes\n", got);
		return USB_ERROR;
	}
	if (rc != SCSI_GOOD) {
		scsi_report(lun, "INQUIRY", rc);
		return rc;
	}
	const uint8_t *d = lun->scratch;
	out->peripheral_type = d[0] & 0x1F;
	out->removable = (d[1] & 0x80) != 0;
	scsi_ascii(out->vendor, d + 8, 8, got > 8 ? got - 8 : 0);
	scsi_ascii(out->product, d + 16, 16, got > 16 ? got - 16 : 0);
	return SCSI_GOOD;
}

int scsi_wait_ready(struct scsi_lun *lun)
{
	uint8_t cdb[6] = { SCSI_TEST_UNIT_READY, 0, 0, 0, 0, 0 };
	bool patient = lun->patient;
	lun->patient = true; /* at open and after reset recovery alike */
	int rc = scsi_exec(lun, cdb, sizeof(cdb), BOT_DIR_NONE, NULL, 0, NULL);
	lun->patient = patient;
	if (rc != SCSI_GOOD)
		scsi_report(lun, "TEST UNIT READY", rc);
	return rc;
}

int scsi_read_capacity(struct scsi_lun *lun, uint64_t *blocks, uint32_t *block_size)
{
	uint8_t cdb10[10] = { SCSI_READ_CAPACITY_10 };
	uint32_t residue = 0;
	const uint8_t *d = lun->scratch;
	int rc = scsi_exec(lun, cdb10, sizeof(cdb10), BOT_DIR_IN, lun->scratch, 8, &residue);
	if (rc == SCSI_GOOD && residue) {
		kprintf("stick: READ CAPACITY(10) returned %u of 8 bytes\n", 8 - residue);
		return USB_ERROR;
	}
	if (rc != SCSI_GOOD) {
		scsi_report(lun, "READ CAPACITY(10)", rc);
		return rc;
	}
	if (get_be32(d) != 0xFFFFFFFFu) {
		*blocks = (uint64_t)get_be32(d) + 1;
		*block_size = get_be32(d + 4);
		return SCSI_GOOD;
	}
	/* More than 2^32 - 1 blocks: READ CAPACITY(16) (SBC-3 5.16). */
	uint8_t cdb16[16] = { SCSI_SERVICE_ACTION_IN_16, SCSI_SAI_READ_CAPACITY_16 };
	put_be32(cdb16 + 10, 32);
	rc = scsi_exec(lun, cdb16, sizeof(cdb16), BOT_DIR_IN, lun->scratch, 32, &residue);
	if (rc == SCSI_GOOD && 32 - residue < 12) {
		kprintf("stick: READ CAPACITY(16) returned %u of 32 bytes\n", 32 - residue);
		return USB_ERROR;
	}
	if (rc != SCSI_GOOD) {
		scsi_report(lun, "READ CAPACITY(16)", rc);
		return rc;
	}
	*blocks = get_be64(d) + 1;
	*block_size = get_be32(d + 8);
	return SCSI_GOOD;
}

int scsi_mode_sense_wp(struct scsi_lun *lun, bool *wp)
{
	const uint8_t alloc = 192;
	uint8_t cdb[6] = { SCSI_MODE_SENSE_6, 0, 0x3F /* PC 0, all pages */, 0, alloc, 0 };
	uint32_t residue = 0;
	int rc = scsi_exec(lun, cdb, sizeof(cdb), BOT_DIR_IN, lun->scratch, alloc, &residue);
	if (rc == SCSI_GOOD && alloc - residue < 4) {
		kprintf("stick: MODE SENSE(6) returned %u bytes\n", alloc - residue);
		return USB_ERROR;
	}
	if (rc != SCSI_GOOD) {
		scsi_report(lun, "MODE SENSE(6)", rc);
		return rc;
	}
	*wp = (lun->scratch[2] & 0x80) != 0; /* device-specific parameter: WP */
	return SCSI_GOOD;
}

int scsi_read_write(struct scsi_lun *lun, bool write, uint64_t lba, uint32_t blocks, uint32_t block_size,
		    void *buf)
{
	uint64_t bytes = (uint64_t)blocks * block_size;
	if (blocks == 0 || bytes > UINT32_MAX)
		return USB_BADARG;
	bool use16 = blocks > 0xFFFF || lba + blocks > 0x100000000ULL;
	uint8_t cdb[16] = { 0 };
	if (use16) {
		cdb[0] = write ? SCSI_WRITE_16 : SCSI_READ_16;
		put_be64(cdb + 2, lba);
		put_be32(cdb + 10, blocks);
	} else {
		cdb[0] = write ? SCSI_WRITE_10 : SCSI_READ_10;
		put_be32(cdb + 2, (uint32_t)lba);
		put_be16(cdb + 7, (uint16_t)blocks);
	}
	char what[48];
	ksnprintf(what, sizeof(what), "%s(%u) at LBA %llu", write ? "WRITE" : "READ", use16 ? 16 : 10,
		  (unsigned long long)lba);
	uint32_t residue = 0;
	int rc = scsi_exec(lun, cdb, use16 ? 16 : 10, write ? BOT_DIR_OUT : BOT_DIR_IN, buf, (uint32_t)bytes, &residue);
	if (rc == SCSI_GOOD && residue) {
		kprintf("stick: %s: %u of %u bytes not transferred\n", what, residue, (uint32_t)bytes);
		return USB_ERROR;
	}
	if (rc != SCSI_GOOD)
		scsi_report(lun, what, rc);
	return rc;
}

int scsi_synchronize_cache(struct scsi_lun *lun)
{
	uint8_t cdb[10] = { SCSI_SYNCHRONIZE_CACHE_10 }; /* LBA 0, 0 blocks: all of it */
	bool patient = lun->patient;
	lun->patient = true; /* a UNIT ATTENTION or NOT READY here is no refusal yet */
	int rc = scsi_exec(lun, cdb, sizeof(cdb), BOT_DIR_NONE, NULL, 0, NULL);
	lun->patient = patient;
	if (rc == SCSI_CHECK_CONDITION && lun->sense.key == SCSI_SENSE_ILLEGAL_REQUEST &&
	    lun->sense.asc == SCSI_ASC_INVALID_OPCODE) {
		kprintf("stick: SYNCHRONIZE CACHE(10) not supported (sense 5/20/00): no cache to flush\n");
		return SCSI_GOOD;
	}
	if (rc != SCSI_GOOD)
		scsi_report(lun, "SYNCHRONIZE CACHE(10)", rc);
	return rc;
}
