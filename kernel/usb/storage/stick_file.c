/*
 * stick_file.c - the trace file on the stick: byte offsets in the file
 * mapped through its extents (in file order) to blocks on the disk.
 *
 * Invariant: a write is checked whole before any of it is sent.  The
 * first walk over the extents (dry run) proves that off and len are
 * multiples of the block size and that every byte of [off, off + len)
 * lies inside the file (below file_bytes and inside an extent); only then
 * does the second walk write, one usb_stick_write() per extent touched
 * (which splits further at the maximum transfer size and checks the
 * blocks against the GPT's usable area).  Zero bytes is a no-op.  A
 * refused write returns
 * USB_BADARG with one console line, and nothing reaches the stick.
 * Caller: the trace output, one thread at a time.
 */
#include "kernel/console/console.h"
#include "kernel/lib/libk.h"
#include "kernel/usb/storage/stick.h"

/* Walk the extents over [off, off + len): with write, send each piece.
 * Returns the bytes covered, or a negative usb_status from a write. */
static int64_t stick_file_walk(struct stick_file *f, uint64_t off, const uint8_t *buf, uint64_t len, bool write)
{
	uint64_t pos = 0, covered = 0, end = off + len;
	for (uint32_t i = 0; i < f->nextents && pos < end; i++) {
		const struct stick_extent *e = &f->extents[i];
		if (e->blocks > UINT64_MAX / f->block_size)
			return 0; /* an extent larger than any disk covers nothing */
		uint64_t ext_bytes = e->blocks * f->block_size;
		if (ext_bytes > UINT64_MAX - pos)
			return 0;
		uint64_t lo = MAX(off, pos), hi = MIN(end, pos + ext_bytes);
		if (lo < hi) {
			if (write) {
				uint64_t lba = e->lba + (lo - pos) / f->block_size;
				int rc = usb_stick_write(f->stick, lba, buf + (lo - off),
							 (uint32_t)((hi - lo) / f->block_size));
				if (rc != USB_OK)
					return rc;
			}
			covered += hi - lo;
		}
		pos += ext_bytes;
	}
	return (int64_t)covered;
}

int stick_file_write(struct stick_file *f, uint64_t off, const void *buf, uint32_t len)
{
	const char *why = NULL;
	if (!f->stick || !buf || f->block_size == 0 || f->nextents > STICK_EXTENTS_MAX)
		why = "no stick or no file";
	else if (off % f->block_size || len % f->block_size)
		why = "not whole blocks";
	else if (off > f->file_bytes || len > f->file_bytes - off)
		why = "past the end of the file";
	else if (stick_file_walk(f, off, buf, len, false) != (int64_t)len)
		why = "outside the file's extents";
	if (!why && len == 0)
		return USB_OK; /* nothing to write */
	if (why) {
		kprintf("stick: write of %u bytes at offset %llu of the trace file refused: %s\n", len,
			(unsigned long long)off, why);
		return USB_BADARG;
	}
	int64_t rc = stick_file_walk(f, off, buf, len, true);
	return rc < 0 ? (int)rc : USB_OK;
}
