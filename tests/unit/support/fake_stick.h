/*
 * fake_stick.h - an in-memory USB stick behind kernel/usb/storage/stick.h,
 * for the host unit tests of the trace's stick sink
 * (kernel/trace/out/out_stick.c).
 *
 * The disk is a byte array of whole blocks; stick_file_write() maps file
 * offsets through the file's extents to it exactly as the contract in
 * stick.h says (offset and length multiples of the block size, nothing
 * written when any byte would fall outside the extents: USB_BADARG), and
 * logs every write.  Faults are injected by setting the fields below
 * before the sink opens the stick: a run of failing writes, a failing
 * sync, recovery rungs that fail (usb_stick_recover logs each rung).  One test thread at a time.
 */
#ifndef KPROF_TESTS_FAKE_STICK_H
#define KPROF_TESTS_FAKE_STICK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/usb/storage/stick.h"

#define FAKE_STICK_LOG 4096 /* writes logged */

struct fake_stick {
	uint8_t *disk;            /* blocks * block_size bytes              */
	uint64_t blocks;
	uint32_t block_size;
	struct usb_stick_target target; /* what usb_stick_open was given    */
	/* faults */
	int open_rc;              /* usb_stick_open returns it (0: opens)   */
	bool write_protected;
	unsigned fail_write;      /* the Nth stick_file_write fails (1-based; 0 never) */
	unsigned fail_times;      /* ... and so many from it (0: just that one) */
	int fail_rc;              /* ... with this status                   */
	int recover_rc[STICK_RECOVER_COUNT]; /* usb_stick_recover(rung) returns it */
	int sync_fails;           /* sync_rc for so many syncs (0: every one) */
	struct stick_sense fail_sense; /* ... and this sense                */
	int sync_rc;              /* usb_stick_sync returns it              */
	/* what happened */
	unsigned writes;          /* stick_file_write calls                 */
	unsigned bad_writes;      /* of them refused as outside the contract */
	unsigned syncs;
	unsigned recoveries;      /* usb_stick_recover calls                */
	uint8_t rungs[64];        /* ... the rung of each                   */
	uint64_t log_off[FAKE_STICK_LOG];
	uint32_t log_len[FAKE_STICK_LOG];
	struct stick_sense sense; /* last_sense                             */
};

extern struct fake_stick fake_stick;

/* A fresh disk of `blocks` blocks of block_size bytes, filled with fill. */
void fake_stick_reset(uint64_t blocks, uint32_t block_size, uint8_t fill);

/* Read the trace file back through its extents: file_bytes into out. */
void fake_stick_read_file(const struct stick_file *f, uint8_t *out);

#endif
