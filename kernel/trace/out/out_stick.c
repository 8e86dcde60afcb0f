/*
 * out_stick.c - the stick sink: the trace file on the USB stick the
 * kernel booted from (\kprof\trace.bin), written through
 * kernel/usb/storage/stick.h.
 * This is the only file of the trace that calls the USB stack.
 *
 * Open (trace start, before the workload): the stick is found by the
 * path bootinfo gives and checked to be the boot disk (usb_stick_open);
 * a stick that cannot be opened or is write-protected is reported in one
 * line, with its sense data, and not used.  A staging buffer is taken
 * from the page allocator, physically contiguous and below USB_DMA_LIMIT
 * because the controller reads it by DMA, 1 MiB if it can be had (else
 * less, down to 64 KiB).
 *
 * Frames go through the file form (out_file.c: whole frames, room kept
 * for the end frames, what does not fit counted per CPU) into the stage;
 * each time the stage is full it is written with one stick_file_write()
 * at the next block-aligned offset of the file.  So dump mode writes at
 * the end, stream mode as the logger thread sends its sub-buffers.
 * finish() writes the last partial block zero-padded, syncs the stick's
 * cache and prints what was saved, and how long after the workload
 * ended (out.c's clock); a stick that answers but refuses the sync
 * (USB_STICK_NOT_FLUSHED) acknowledged every write, so the trace is
 * "saved ..., not flushed" with the sense, a warning that changes
 * neither the sinks nor the exit status.  A failed write or a sync the
 * stick does not answer climbs the stick's recovery ladder
 * (usb_stick_recover: reset recovery, port reset and new address,
 * controller reset; the identity proved again) and is done
 * again after each rung that brings the stick back (writes are
 * idempotent); when every rung is spent the sink stops for good (one line
 * with the sense data) and unsent() gives out.c the whole frames the
 * stick does not hold, for serial to carry.  After each full stage the
 * stage restarts at the block where the frame it cut begins (those blocks
 * are written twice), so it always holds every such frame from its start.
 *
 * Invariants: stage_off is a multiple of the block size, staged <
 * stage_size between frames, first_frame <= frame_start <= staged, and
 * every frame before first_frame is wholly on the stick, every write is whole blocks inside the
 * file's capacity (file_bytes rounded down to blocks), and stick_file_write
 * checks the extents again.  Context: called by out.c from the one trace
 * sender (PASSIVE_LEVEL threads: trace_start, the logger, trace_finish);
 * a frame at DISPATCH_LEVEL or above (the bug check path) stops the sink
 * without touching the USB stack, which is polled, slow, and may have
 * been halted mid-transfer.  The kernel builds this file only with the
 * USB stack (kernel/usb/); out.c reaches it through out_stick_open alone.
 */
#include "kernel/trace/out/out_file.h"
#include "kernel/trace/out/out_sink.h"

#include <arch/mmu.h>

#include "kernel/console/console.h"
#include "kernel/ke/irql.h"
#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"
#include "kernel/lib/size.h"
#include "kernel/mm/pmm.h"
#include "kernel/usb/storage/stick.h"
#include "kernel/usb/storage/stick_keys.h"

#define STAGE_MAX (1u << 20)  /* bytes per write at most: 1 MiB          */
#define STAGE_MIN (64u << 10) /* ... and at least, if memory is short    */

static struct {
	struct trace_sink sink;
	struct out_file file;      /* which frames the file keeps            */
	struct stick_file sf;      /* the stick and the file's extents       */
	const char *name;          /* "\kprof\trace.bin", for messages        */
	char name_buf[BOOTINFO_STICK_NAME_MAX + 1];
	uint8_t *stage;            /* pmm pages: DMA source                  */
	uint64_t stage_pa;
	uint32_t stage_size;       /* bytes, a multiple of the block size    */
	uint32_t staged;           /* bytes in the stage now                 */
	uint64_t stage_off;        /* file offset of stage[0]                */
	uint32_t frame_start;      /* stage offset of the frame being staged */
	uint32_t first_frame;      /* ... of the first frame not wholly on
				    * the stick (serial carries from here)  */
	uint32_t end_start;        /* ... of the first end frame, or NO_END  */
	bool uncarried;            /* a frame filled a stage: not carried    */
	unsigned recoveries;       /* rungs that brought the stick back      */
	bool not_flushed;          /* SYNCHRONIZE CACHE refused by a stick
				    * that answers (USB_STICK_NOT_FLUSHED)  */
	struct stick_sense flush_sense; /* ... with this sense (0: a stall) */
} stick;

#define NO_END UINT32_MAX

static void say_failed(const char *what, int rc, const char *then)
{
	struct stick_sense s = usb_stick_last_sense(stick.sf.stick);

	kprintf("trace: USB stick: %s failed: %s (sense key %x, asc %02x, ascq %02x); %s\n", what,
		usb_status_name(rc), s.key, s.asc, s.ascq, then);
}

/* A command failed: climb the recovery ladder (stick.h), running op again
 * after each rung that brings the stick back; writes are idempotent, so
 * the whole failed stage is written again.  0, or the last error with
 * the sink stopped (said on the console). */
static int with_recovery(const char *what, int (*op)(uint32_t), uint32_t arg)
{
	int rc = op(arg);

	for (unsigned r = 0; rc && rc != USB_BADARG && r < STICK_RECOVER_COUNT; r++) {
		char then[96];
		ksnprintf(then, sizeof(then), "recovering (%s)", usb_stick_recovery_name((enum stick_recovery)r));
		say_failed(what, rc, then);
		if (usb_stick_recover(stick.sf.stick, (enum stick_recovery)r))
			continue; /* the next rung */
		stick.recoveries++;
		if (!(rc = op(arg)))
			kprintf("trace: USB stick: recovered by %s; %s done again\n",
				usb_stick_recovery_name((enum stick_recovery)r), what);
	}
	if (rc) {
		say_failed(what, rc, "nothing more is written to it");
		stick.sink.stopped = true;
	}
	return rc;
}

static int write_op(uint32_t len)
{
	return stick_file_write(&stick.sf, stick.stage_off, stick.stage, len);
}

/* A stick that answers but refuses to flush (CHECK CONDITION, a stall)
 * acknowledged every write: a warning, not a failure, and no recovery. */
static int sync_op(uint32_t unused)
{
	(void)unused;
	int rc = usb_stick_sync(stick.sf.stick);
	stick.not_flushed = rc == USB_STICK_NOT_FLUSHED;
	if (stick.not_flushed)
		stick.flush_sense = usb_stick_last_sense(stick.sf.stick);
	return stick.not_flushed ? 0 : rc;
}

/* Write the first len bytes of the stage (whole blocks) at stage_off. */
static int write_stage(uint32_t len)
{
	char what[128];

	ksnprintf(what, sizeof(what), "writing %u bytes at offset %llu of %s", len,
		  (unsigned long long)stick.stage_off, stick.name);
	return with_recovery(what, write_op, len);
}

/* After a full stage went out: keep from the block where the frame being
 * staged starts, so that the stage always holds every frame not yet
 * wholly on the stick from its first byte (what serial carries if the
 * stick fails for good).  The kept blocks are written again with the
 * next stage (the same bytes at the same place). */
static void keep_unfinished_frame(void)
{
	uint32_t keep = ALIGN_DOWN(stick.frame_start, stick.sf.block_size);

	stick.first_frame = stick.frame_start - keep;
	if (!keep) { /* the frame fills the stage: nothing can be kept back */
		stick.staged = 0;
		stick.stage_off += stick.stage_size;
		stick.first_frame = stick.frame_start = 0;
		stick.uncarried = true;
		return;
	}
	memmove(stick.stage, stick.stage + keep, stick.stage_size - keep);
	stick.stage_off += keep;
	stick.staged = stick.stage_size - keep;
	stick.frame_start -= keep;
	if (stick.end_start != NO_END)
		stick.end_start -= MIN(stick.end_start, keep);
}

/* out_file's write callback: bytes kept, staged; a full stage goes out. */
static int stage_bytes(void *ctx, const void *p, uint32_t len)
{
	const uint8_t *b = p;

	(void)ctx;
	while (len) {
		uint32_t n = MIN(len, stick.stage_size - stick.staged);
		memcpy(stick.stage + stick.staged, b, n);
		stick.staged += n;
		b += n;
		len -= n;
		if (stick.staged == stick.stage_size) {
			int rc = write_stage(stick.stage_size);
			if (rc)
				return rc;
			keep_unfinished_frame();
		}
	}
	return 0;
}

static void stick_frame(struct trace_sink *s, const struct trace_out_frame *f)
{
	if (ke_get_current_irql() >= DISPATCH_LEVEL) {
		kprintf("trace: USB stick: a frame came at raised IRQL (the bug check path), where the USB stack is not "
			"used; nothing more is written to it\n");
		stick.frame_start = stick.staged; /* every frame before this one is staged whole */
		s->stopped = true;
		return;
	}
	stick.frame_start = stick.staged;
	if (stick.end_start == NO_END && (f->h->type == KPROF_FRAME_CPU_END || f->h->type == KPROF_FRAME_RUN_END))
		stick.end_start = stick.staged;
	if (out_file_frame(&stick.file, f))
		s->stopped = true; /* with_recovery said why */
}

/* Whole frames the stick took but does not hold: from the first frame not
 * wholly written to the frame that was being staged when it failed (or,
 * at the end, to the first end frame: out.c sends the end frames in
 * their serial form).  Data frames are the same bytes in both forms. */
static uint32_t stick_unsent(struct trace_sink *s, const uint8_t **p)
{
	uint32_t end = MIN(stick.frame_start, stick.staged);

	if (!s->stopped || !stick.stage)
		return 0;
	if (stick.end_start != NO_END)
		end = MIN(end, stick.end_start);
	*p = stick.stage + stick.first_frame;
	return end > stick.first_frame ? end - stick.first_frame : 0;
}

static uint64_t stick_held(struct trace_sink *s)
{
	(void)s;
	return stick.uncarried ? stick.stage_off : stick.stage_off + stick.first_frame;
}

static void stick_finish(struct trace_sink *s)
{
	const struct out_file *f = &stick.file;
	char size[32], cap[32], when[48] = "", then[224];

	stick.frame_start = stick.staged; /* every frame is staged now */
	if (!s->stopped && stick.staged) {
		uint32_t len = ALIGN_UP(stick.staged, stick.sf.block_size);
		memset(stick.stage + stick.staged, 0, len - stick.staged);
		write_stage(len); /* if it fails: stopped, and said why */
	}
	if (!s->stopped)
		with_recovery("SYNCHRONIZE CACHE", sync_op, 0);
	int64_t ms = trace_out_since_end_ms();
	if (ms >= 0) /* how long after the workload it was safe on the stick */
		ksnprintf(when, sizeof(when), " %lld.%02lld s after the workload", (long long)(ms / 1000),
			  (long long)(ms % 1000 / 10));
	/* "2.6 MB" (decimal, as storage is sold), or "131 KB" below 1 MB. */
	size_format(size, sizeof(size), f->used, SIZE_MB | SIZE_SMALL_K);
	size_format(cap, sizeof(cap), f->capacity, SIZE_MB | SIZE_SMALL_K);
	const struct stick_sense *fs = &stick.flush_sense;
	char how[64]; /* what the stick did to SYNCHRONIZE CACHE */
	if (fs->key)
		ksnprintf(how, sizeof(how), "refused SYNCHRONIZE CACHE (sense key %x, asc %02x, ascq %02x)", fs->key,
			  fs->asc, fs->ascq);
	else
		ksnprintf(how, sizeof(how), "stalled SYNCHRONIZE CACHE");
	if (!stick.not_flushed)
		ksnprintf(then, sizeof(then), "; power off and move the stick to your computer");
	else
		ksnprintf(then, sizeof(then), ", not flushed: the stick acknowledged every write but %s; wait a few "
			  "seconds before you power off, then move the stick to your computer", how);
	if (s->stopped)
		kprintf("trace: not saved to %s on the USB stick (see above)\n", stick.name);
	else if (f->full)
		kprintf("trace: %llu of %llu records, %s saved to %s on the USB stick%s, which is full: %llu records did "
			"not fit in its %s (a bigger file keeps them: docs/usb-stick.md)%s\n", (unsigned long long)f->records,
			(unsigned long long)(f->records + f->records_lost), size, stick.name, when,
			(unsigned long long)f->records_lost, cap, then);
	else
		kprintf("trace: %llu records, %s saved to %s on the USB stick%s%s\n", (unsigned long long)f->records, size,
			stick.name, when, then);
}

/* After out.c took what serial carries.  Not from the bug check path: the
 * allocator's lock may be held by a CPU that was stopped, and the run
 * ends there anyway. */
static void stick_release(struct trace_sink *s)
{
	(void)s;
	if (stick.stage && ke_get_current_irql() < DISPATCH_LEVEL)
		pmm_free_pages(stick.stage_pa, stick.stage_size / PAGE_SIZE);
	stick.stage = NULL;
}

/* The staging buffer: 1 MiB, or the largest power of two down to 64 KiB
 * the allocator can give contiguously; never more than the file. */
static bool alloc_stage(uint64_t capacity)
{
	for (uint32_t size = STAGE_MAX; size >= STAGE_MIN; size /= 2) {
		if (size > capacity && size > STAGE_MIN)
			continue;
		uint64_t pa = pmm_alloc_pages_below(size / PAGE_SIZE, USB_DMA_LIMIT);
		if (pa) {
			stick.stage_pa = pa;
			stick.stage = phys_to_virt(pa);
			stick.stage_size = size;
			return true;
		}
	}
	return false;
}

struct trace_sink *out_stick_open(const struct bootinfo_stick *bs, uint32_t ncpu)
{
	struct usb_stick_target t = {
		.pci_segment = bs->pci_segment, .pci_bus = bs->pci_bus, .pci_dev = bs->pci_dev, .pci_fn = bs->pci_fn,
		.depth = (uint8_t)MIN(bs->depth, STICK_PATH_MAX), .block_size = bs->block_size, .blocks = bs->disk_blocks,
		.lun = bs->lun, .root_port_override = (uint8_t)usb_stick_config->port,
	};
	struct usb_stick *st = NULL;

	memset(&stick, 0, sizeof(stick));
	memcpy(stick.name_buf, bs->file_name, BOOTINFO_STICK_NAME_MAX);
	stick.name = stick.name_buf[0] ? stick.name_buf : "\\kprof\\trace.bin";
	memcpy(t.ports, bs->ports, t.depth);
	diskid_from_stick(bs, &t.id);
	int rc = usb_stick_open(&t, &st);
	if (rc) {
		kprintf("trace: USB stick: the stick the kernel booted from (xHCI at PCI %04x:%02x:%02x.%u, %u port%s deep) "
			"could not be opened: %s\n", t.pci_segment, t.pci_bus, t.pci_dev, t.pci_fn, t.depth,
			t.depth == 1 ? "" : "s", usb_status_name(rc));
		return NULL;
	}
	stick.sf = (struct stick_file){ .stick = st, .block_size = bs->block_size, .file_bytes = bs->file_bytes,
					.nextents = MIN(bs->nextents, (uint32_t)STICK_EXTENTS_MAX) };
	for (uint32_t i = 0; i < stick.sf.nextents; i++)
		stick.sf.extents[i] = (struct stick_extent){ .lba = bs->extents[i].lba, .blocks = bs->extents[i].blocks };
	if (usb_stick_write_protected(st)) {
		struct stick_sense s = usb_stick_last_sense(st);
		if (s.key) /* a WRITE was refused: DATA PROTECT, say what it said */
			kprintf("trace: USB stick: it is write-protected (sense key %x, asc %02x, ascq %02x): %s is not "
				"written\n", s.key, s.asc, s.ascq, stick.name);
		else /* no write tried yet: MODE SENSE's WP bit said so */
			kprintf("trace: USB stick: it is write-protected (MODE SENSE: write-protect bit set; a lock switch "
				"on the stick?): %s is not written\n", stick.name);
		return NULL;
	}
	uint64_t capacity = bs->file_bytes / bs->block_size * bs->block_size;
	if (!alloc_stage(capacity)) {
		kprintf("trace: USB stick: no %u KiB of contiguous memory to stage its writes\n", STAGE_MIN / 1024);
		return NULL;
	}
	out_file_init(&stick.file, capacity, ncpu, stage_bytes, NULL);
	stick.end_start = NO_END;
	stick.sink = (struct trace_sink){ .name = "USB stick", .frame = stick_frame, .finish = stick_finish,
					  .unsent = stick_unsent, .held = stick_held, .release = stick_release };
	kprintf("trace: writing to %s on the USB stick (%llu KiB, in writes of %u KiB)\n", stick.name,
		(unsigned long long)(capacity / 1024), stick.stage_size / 1024);
	return &stick.sink;
}
