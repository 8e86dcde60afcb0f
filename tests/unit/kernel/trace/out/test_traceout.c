/*
 * test_traceout.c - the trace output layer (kernel/trace/out/out*.c) with the
 * serial port as a buffer and the USB stick as an in-memory disk
 * (fake_stick.c): trace.out= at probe time, the same frames in the same
 * order to both sinks, staging into 1 MiB block-aligned writes through the
 * file's extents, the last block zero-padded and synced, stream and dump,
 * and every failure (open, write-protected, a write error mid-run, a sync
 * error, a frame at raised IRQL): the stick stops with one line naming the
 * sense data and serial carries the trace.  Both outputs are decoded by
 * the host tool (build/kprof decode) and must hold the same records.
 * The file-full rule is in test_traceout_file.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "support/fake_stick.h"
#include "include/kprof/wire.h"
#include "include/kprof/wire_file.h"
#include "kernel/trace/config/trace_keys.h"
#include "kernel/ke/irql.h"
#include "kernel/ke/time/time.h"
#include "kernel/trace/out/out.h"
#include "shadow.h"
#include "support/traceout_gen.h"

#define MiB (1u << 20)

/* The file holds the serial stream's frames in order (end frames with the
 * file's tail appended); returns how many bytes of frames it holds. */
static size_t check_same_frames(const uint8_t *file, size_t file_len)
{
	size_t fa = 0, sa = 0;
	const uint8_t *ff, *sf;
	uint32_t fl, sl;
	unsigned frames = 0;

	while (gen_next_frame(file, file_len, &fa, &ff, &fl)) {
		assert_true(gen_next_frame(serial_bytes, serial_len, &sa, &sf, &sl));
		struct kprof_frame_header fh, sh;
		memcpy(&fh, ff, sizeof(fh));
		memcpy(&sh, sf, sizeof(sh));
		assert_int_equal(fh.type, sh.type);
		assert_int_equal(fh.cpu, sh.cpu);
		assert_int_equal(fh.seq, sh.seq);
		if (fh.type == KPROF_FRAME_CPU_END || fh.type == KPROF_FRAME_RUN_END) {
			struct kprof_file_tail t;
			assert_int_equal(fl, sl + sizeof(t));
			assert_memory_equal(ff + sizeof(fh), sf + sizeof(sh), sl - sizeof(sh));
			memcpy(&t, ff + fl - sizeof(t), sizeof(t));
			assert_int_equal(t.magic, KPROF_FILE_TAIL_MAGIC);
		} else {
			assert_int_equal(fl, sl);
			assert_memory_equal(ff, sf, fl);
		}
		frames++;
		if (fh.type == KPROF_FRAME_RUN_END)
			break;
	}
	assert_true(frames > 3);
	return fa;
}

/* ---------------------------------------------------------------- probe */

static void test_default_follows_bootinfo(void **state)
{
	struct stick_file sf;
	struct bootinfo_stick bs = { .status = BOOTINFO_STICK_NONE };

	gen_test_reset(TRACE_OUT_AUTO);
	assert_int_equal(trace_out_configure(&bs, 2, gen_trace_out), TRACE_OUT_SERIAL);
	assert_string_equal(shadow_console, ""); /* not booted from USB: nothing to say */

	gen_test_reset(TRACE_OUT_AUTO);
	bs.status = BOOTINFO_STICK_NO_FILE;
	assert_int_equal(trace_out_configure(&bs, 2, gen_trace_out), TRACE_OUT_SERIAL);
	assert_non_null(strstr(shadow_console, "trace: not written to the USB stick, serial only: the stick has no "
					       "\\kprof\\trace.bin"));
	assert_int_equal(probe_refusals, 0);

	gen_test_reset(TRACE_OUT_AUTO);
	bs = gen_stick(4 * MiB, 512, 1, &sf);
	assert_int_equal(trace_out_configure(&bs, 2, gen_trace_out), TRACE_OUT_USB); /* from a stick: the stick alone */
	assert_int_equal(probe_refusals, 0);
}

static void test_explicit_usb_refused_without_stick(void **state)
{
	struct stick_file sf;
	struct bootinfo_stick bs = { .status = BOOTINFO_STICK_FRAGMENTED };

	gen_test_reset(TRACE_OUT_USB);
	assert_int_equal(trace_out_configure(&bs, 2, gen_trace_out), TRACE_OUT_SERIAL); /* as if the default */
	assert_int_equal(probe_refusals, 1);
	assert_non_null(strstr(probe_refusal, "cmdline: trace.out=usb: \\kprof\\trace.bin is in more pieces"));
	assert_non_null(strstr(probe_refusal, "accepted here: trace.out=serial"));

	gen_test_reset(TRACE_OUT_BOTH);
	bs = gen_stick(4 * MiB, 1000, 1, &sf);
	trace_out_configure(&bs, 2, gen_trace_out);
	assert_int_equal(probe_refusals, 1);
	assert_non_null(strstr(probe_refusal, "trace.out=both: the loader gave a block size of 1000 bytes; accepted: a "
					      "power of two from 512 to 65536"));

	gen_test_reset(TRACE_OUT_USB);
	bs = gen_stick(32 * 1024, 512, 1, &sf);
	trace_out_configure(&bs, 4, gen_trace_out);
	assert_int_equal(probe_refusals, 1);
	assert_non_null(strstr(probe_refusal, "the trace file holds 32768 bytes; a trace of 4 CPUs needs at least"));

	gen_test_reset(TRACE_OUT_USB);
	bs = gen_stick(4 * MiB, 512, 2, &sf);
	bs.extents[1].blocks -= 1;
	trace_out_configure(&bs, 4, gen_trace_out);
	assert_int_equal(probe_refusals, 1);
	assert_non_null(strstr(probe_refusal, "extents cover 4193792 bytes, less than its size of 4194304"));
}

/* ---------------------------------------------------------------- both */

static void test_both_stream_same_frames_whole_writes(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(8 * MiB, 512, 3, &sf);

	gen_test_reset(TRACE_OUT_BOTH);
	uint64_t free_before = fake_ram_free_pages();
	trace_out_configure(&bs, 2, gen_trace_out);
	trace_out_start(2);
	assert_non_null(strstr(shadow_console, "trace: writing to \\kprof\\trace.bin on the USB stick (8192 KiB, in "
					       "writes of 1024 KiB)"));
	assert_int_equal(fake_stick.target.pci_dev, 4);
	assert_int_equal(fake_stick.target.depth, 2);
	assert_int_equal(fake_stick.target.ports[0], 3);
	assert_int_equal(fake_stick.target.id.disk_guid[0], 0xde);
	/* the rest of the identity and the LUN travel from bootinfo too */
	assert_int_equal(fake_stick.target.lun, 2);
	assert_int_equal(fake_stick.target.id.table, DISKID_TABLE_MBR);
	assert_int_equal(fake_stick.target.id.mbr_signature, 0x1a2b3c4d);
	assert_int_equal(fake_stick.target.id.part_lba, 2048);
	assert_int_equal(fake_stick.target.id.part_blocks, 1 << 20);
	assert_int_equal(fake_stick.target.id.volume_serial, 0x12345678);

	gen_run(&g, 2, 3 * MiB + 12345, 100);
	/* Stream mode: the stage went out whole as it filled, before the end;
	 * each write again from the block where the frame cut by the last
	 * one starts (the stage keeps every frame not wholly written). */
	assert_int_equal(fake_stick.writes, 3);
	for (unsigned i = 0; i < 3; i++) {
		uint64_t prev_end = i ? fake_stick.log_off[i - 1] + MiB : 0;
		assert_int_equal(fake_stick.log_len[i], MiB);
		assert_true(fake_stick.log_off[i] <= prev_end);
		assert_true(fake_stick.log_off[i] + gen_chunk_bytes(20, 100) + 512 > prev_end);
	}
	assert_int_equal(fake_stick.syncs, 0);
	gen_finish(&g);

	assert_int_equal(fake_stick.writes, 4);
	assert_true(fake_stick.log_off[3] <= fake_stick.log_off[2] + MiB);
	assert_int_equal(fake_stick.log_len[3] % 512, 0);
	assert_true(fake_stick.log_len[3] < MiB);
	assert_int_equal(fake_stick.bad_writes, 0);
	assert_int_equal(fake_stick.syncs, 1);
	assert_int_equal(fake_ram_free_pages(), free_before); /* the stage was given back */

	uint8_t *file = gen_read_file(&sf);
	size_t used = check_same_frames(file, sf.file_bytes);
	size_t end = fake_stick.log_off[3] + fake_stick.log_len[3];
	for (size_t i = used; i < end; i++) /* the last block's zero padding */
		assert_int_equal(file[i], 0);
	for (size_t i = end; i < sf.file_bytes; i++) /* nothing written beyond it */
		assert_int_equal(file[i], 0xA5);

	char want[160];
	snprintf(want, sizeof(want), "trace: %llu records, %zu.%zu MB saved to \\kprof\\trace.bin on the USB stick; power "
		 "off and move the stick to your computer", (unsigned long long)gen_records(&g), used / 1000000,
		 used % 1000000 / 100000);
	assert_non_null(strstr(shadow_console, want));

	struct kprof_verdict vs, vf;
	if (gen_kprof_check(serial_bytes, serial_len, &vs) && gen_kprof_check(file, sf.file_bytes, &vf)) {
		assert_int_equal(vs.status, 0);
		assert_int_equal(vf.status, 0);
		assert_int_equal(vs.records, gen_records(&g));
		assert_int_equal(vf.records, gen_records(&g));
		assert_false(vs.file_form);
		assert_true(vf.file_form);
		assert_int_equal(vf.lost_file, 0);
		assert_int_equal(vf.lost_link, 0);
		assert_int_equal(vf.issues, 0);
	}
	free(file);
}

/* Dump mode: trace.c sends nothing between the run header and the end,
 * so the stick is written only at the end; 4 KiB blocks, one extent; the
 * end lines' times once the workload is marked as ended. */
static void test_dump_writes_at_the_end(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(4 * MiB, 4096, 1, &sf);

	gen_open(TRACE_OUT_BOTH, &bs, 4);
	gen_start(&g, 4);
	assert_int_equal(fake_stick.writes, 0); /* the header waits in the stage */
	ke_tsc_hz = 1000000000; /* the host's TSC, near enough, for the times */
	trace_out_workload_ended();
	for (uint32_t i = 0; i < 200; i++)
		gen_chunk(&g, i % 4, 10, 40);
	gen_finish(&g);
	assert_int_equal(fake_stick.writes, 1);
	assert_int_equal(fake_stick.log_len[0] % 4096, 0);
	assert_int_equal(fake_stick.syncs, 1);
	uint8_t *file = gen_read_file(&sf);
	size_t used = check_same_frames(file, sf.file_bytes);
	free(file);
	/* The end lines, after the workload was marked as ended: when the
	 * file was safe, and each sink's bytes (the same frames: the same
	 * count), time and rate. */
	assert_non_null(strstr(shadow_console, " saved to \\kprof\\trace.bin on the USB stick 0."));
	assert_non_null(strstr(shadow_console, " s after the workload; power off and move the stick to your computer\n"));
	char want[96];
	snprintf(want, sizeof(want), "ms after the workload ended: serial %zu.%zu MB in ", used / 1000000,
		 used % 1000000 / 100000);
	assert_non_null(strstr(shadow_console, "\ntrace: output "));
	assert_non_null(strstr(shadow_console, want));
	snprintf(want, sizeof(want), ", USB stick %zu.%zu MB in ", used / 1000000, used % 1000000 / 100000);
	assert_non_null(strstr(shadow_console, want));
	ke_tsc_hz = 0;
}

/* ---------------------------------------------------------------- failures */

static void test_write_error_stops_the_stick_serial_goes_on(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(8 * MiB, 512, 2, &sf);

	fake_stick.fail_write = 2;
	fake_stick.fail_times = 1 + STICK_RECOVER_COUNT; /* and again after every rung */
	fake_stick.fail_rc = USB_ERROR;
	fake_stick.fail_sense = (struct stick_sense){ .key = 0x3, .asc = 0x0c, .ascq = 0x00 };
	gen_whole_run(&g, TRACE_OUT_BOTH, &bs, 2, 3 * MiB, 200);

	assert_int_equal(fake_stick.writes, 2 + STICK_RECOVER_COUNT); /* none after the last rung */
	assert_int_equal(fake_stick.recoveries, STICK_RECOVER_COUNT);
	assert_int_equal(fake_stick.syncs, 0);
	assert_non_null(strstr(shadow_console, "trace: USB stick: writing 1048576 bytes at offset "));
	assert_non_null(strstr(shadow_console, " of \\kprof\\trace.bin failed: error (sense key 3, asc 0c, "
					       "ascq 00); recovering (Bulk-Only reset recovery)"));
	assert_non_null(strstr(shadow_console, " of \\kprof\\trace.bin failed: error (sense key 3, asc 0c, "
					       "ascq 00); nothing more is written to it"));
	assert_non_null(strstr(shadow_console, "trace: not saved to \\kprof\\trace.bin on the USB stick (see above)\n"
					       "trace: the whole trace went to serial\n"));
	assert_null(strstr(shadow_console, "serial carries")); /* it did all along */
	struct kprof_verdict v;
	if (gen_kprof_check(serial_bytes, serial_len, &v)) {
		assert_int_equal(v.status, 0);
		assert_int_equal(v.records, gen_records(&g));
		assert_int_equal(v.issues, 0);
	}
}

/* trace.out=usb, the first write fails for good: serial takes over with
 * what the stage held (from the run header on), so it has the whole
 * trace and the run is not split. */
static void test_usb_only_error_serial_takes_over(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(8 * MiB, 512, 1, &sf);

	gen_open(TRACE_OUT_USB, &bs, 2);
	fake_stick.fail_write = 1;
	fake_stick.fail_times = 100;
	fake_stick.fail_rc = USB_TIMEOUT;
	gen_run(&g, 2, 2 * MiB, 100);
	gen_finish(&g);
	assert_non_null(strstr(shadow_console, "failed: timeout"));
	assert_non_null(strstr(shadow_console, "trace: serial carries the trace from here on, starting with the "));
	assert_non_null(strstr(shadow_console, "trace: the whole trace went to serial"));
	assert_int_equal(trace_out_exit_status(KPROF_EXIT_SUCCESS), KPROF_EXIT_SUCCESS);
	struct kprof_verdict v;
	if (gen_kprof_check(serial_bytes, serial_len, &v)) {
		assert_int_equal(v.records, gen_records(&g));
		assert_int_equal(v.issues, 0);
	}
}

/* trace.out=usb, dump-like: the one write, at the end, fails for good;
 * serial gets the stage's frames and the end frames in serial form. */
static void test_usb_only_error_at_the_end(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(8 * MiB, 512, 1, &sf);

	fake_stick.fail_write = 1;
	fake_stick.fail_times = 100;
	fake_stick.fail_rc = USB_STALL;
	gen_whole_run(&g, TRACE_OUT_USB, &bs, 2, 100000, 100);
	assert_int_equal(fake_stick.writes, 1 + STICK_RECOVER_COUNT);
	assert_non_null(strstr(shadow_console, "failed: stall"));
	assert_non_null(strstr(shadow_console, "trace: the whole trace went to serial"));
	size_t at = 0;
	const uint8_t *fr;
	uint32_t fl;
	while (gen_next_frame(serial_bytes, serial_len, &at, &fr, &fl)) { /* no file tails on serial */
		struct kprof_frame_header h;
		memcpy(&h, fr, sizeof(h));
		if (h.type == KPROF_FRAME_CPU_END)
			assert_int_equal(h.length, sizeof(struct kprof_cpu_end));
		if (h.type == KPROF_FRAME_RUN_END)
			assert_int_equal(h.length, sizeof(struct kprof_run_end));
	}
	struct kprof_verdict v;
	if (gen_kprof_check(serial_bytes, serial_len, &v)) {
		assert_int_equal(v.records, gen_records(&g));
		assert_int_equal(v.issues, 0);
	}
}

static void test_open_failure_and_write_protect_go_to_serial(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(4 * MiB, 512, 1, &sf);

	fake_stick.open_rc = USB_NODEV;
	gen_open(TRACE_OUT_USB, &bs, 1);
	assert_non_null(strstr(shadow_console, "trace: USB stick: the stick the kernel booted from (xHCI at PCI "
					       "0000:00:04.0, 2 ports deep) could not be opened: no device"));
	assert_non_null(strstr(shadow_console, "trace: the USB stick is not written; the trace goes to serial"));
	gen_run(&g, 1, 100000, 50);
	gen_finish(&g);
	assert_int_equal(fake_stick.writes, 0);
	struct kprof_verdict v;
	if (gen_kprof_check(serial_bytes, serial_len, &v))
		assert_int_equal(v.records, gen_records(&g));

	bs = gen_stick(4 * MiB, 512, 1, &sf);
	fake_stick.write_protected = true;
	gen_open(TRACE_OUT_BOTH, &bs, 1);
	assert_non_null(strstr(shadow_console, "trace: USB stick: it is write-protected (sense key 7, asc 27, ascq 00): "
					       "\\kprof\\trace.bin is not written"));
	gen_run(&g, 1, 100000, 50);
	gen_finish(&g);
	assert_int_equal(fake_stick.writes, 0);
	assert_true(serial_len > 100000);
}

static void test_sync_error_reported(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(4 * MiB, 512, 1, &sf);

	fake_stick.sync_rc = USB_TIMEOUT;
	gen_whole_run(&g, TRACE_OUT_BOTH, &bs, 1, 10000, 50);
	assert_int_equal(fake_stick.syncs, 1 + STICK_RECOVER_COUNT); /* again after every rung */
	assert_non_null(strstr(shadow_console, "trace: USB stick: SYNCHRONIZE CACHE failed: timeout"));
	assert_non_null(strstr(shadow_console, "trace: not saved to"));
}

/* A stick that answers but refuses SYNCHRONIZE CACHE acknowledged every
 * write: "saved ..., not flushed" with the sense, no recovery, nothing
 * on serial, the whole trace in the file, success. */
static void test_sync_refused_is_a_warning(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(4 * MiB, 512, 1, &sf);

	fake_stick.sync_rc = USB_STICK_NOT_FLUSHED;
	fake_stick.sense = (struct stick_sense){ .key = 0x4, .asc = 0x44, .ascq = 0x00 };
	gen_whole_run(&g, TRACE_OUT_USB, &bs, 1, 10000, 50);
	assert_int_equal(fake_stick.syncs, 1);
	assert_int_equal(fake_stick.recoveries, 0);
	assert_non_null(strstr(shadow_console, " saved to \\kprof\\trace.bin on the USB stick, not flushed: the stick "
					       "acknowledged every write but refused SYNCHRONIZE CACHE (sense key 4, asc 44, "
					       "ascq 00); wait a few seconds before you power off, then move the stick to your "
					       "computer\n"));
	assert_null(strstr(shadow_console, "not saved"));
	assert_null(strstr(shadow_console, "recovering"));
	assert_int_equal(serial_len, 0);
	assert_int_equal(trace_out_exit_status(KPROF_EXIT_SUCCESS), KPROF_EXIT_SUCCESS);
	gen_assert_file_whole(&sf, &g);
	/* a stall: the same, without sense */
	bs = gen_stick( /* the stick made anew, faults cleared */ 4 * MiB, 512, 1, &sf);
	fake_stick.sync_rc = USB_STICK_NOT_FLUSHED;
	gen_whole_run(&g, TRACE_OUT_USB, &bs, 1, 10000, 50);
	assert_non_null(strstr(shadow_console, ", not flushed: the stick acknowledged every write but stalled "
					       "SYNCHRONIZE CACHE; wait a few seconds"));
}

/* The bug check path sends at raised IRQL: the stick is left alone. */
static void test_raised_irql_stops_the_stick(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(4 * MiB, 512, 1, &sf);

	gen_open(TRACE_OUT_BOTH, &bs, 1);
	gen_start(&g, 1);
	shadow_irql = HIGH_LEVEL;
	gen_chunk(&g, 0, 20, 100);
	gen_finish(&g);
	shadow_irql = PASSIVE_LEVEL;
	assert_int_equal(fake_stick.writes, 0);
	assert_int_equal(fake_stick.syncs, 0);
	assert_non_null(strstr(shadow_console, "a frame came at raised IRQL (the bug check path)"));
	struct kprof_verdict v;
	if (gen_kprof_check(serial_bytes, serial_len, &v))
		assert_int_equal(v.records, 20);
}

/* The dump's progress line: bytes sent of those held, the rate so far and
 * the rest at that rate; no rate before a whole one is measured; nothing
 * printed while no dump is under way or before its first 10 s. */
static void test_dump_progress_line(void **state)
{
	char line[160];
	(void)state;
	trace_out_progress_format(line, sizeof(line), 12300000, 40100000, 30000);
	assert_string_equal(line, "trace: 12.3 MB of the 40.1 MB of records sent in 30 s (410 KB/s), about 67 s left");
	trace_out_progress_format(line, sizeof(line), 2500000, 2000000, 4000);
	assert_string_equal(line, "trace: 2.5 MB of the 2.0 MB of records sent in 4 s (625 KB/s), about 0 s left");
	trace_out_progress_format(line, sizeof(line), 0, 40100000, 0);
	assert_string_equal(line, "trace: 0 KB of the 40.1 MB of records sent in 0 s");
	gen_test_reset(TRACE_OUT_SERIAL);
	ke_tsc_hz = 1ull << 58; /* 10 s are 2^61 cycles: never within this test */
	trace_out_dump_sent(1000); /* no dump begun */
	trace_out_dump_begin(1 << 20);
	trace_out_dump_sent(1000); /* not 10 s yet */
	ke_tsc_hz = 0;
	assert_string_equal(shadow_console, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_follows_bootinfo),
		cmocka_unit_test(test_explicit_usb_refused_without_stick),
		cmocka_unit_test(test_both_stream_same_frames_whole_writes),
		cmocka_unit_test(test_dump_writes_at_the_end),
		cmocka_unit_test(test_write_error_stops_the_stick_serial_goes_on),
		cmocka_unit_test(test_usb_only_error_serial_takes_over),
		cmocka_unit_test(test_usb_only_error_at_the_end),
		cmocka_unit_test(test_open_failure_and_write_protect_go_to_serial),
		cmocka_unit_test(test_sync_error_reported),
		cmocka_unit_test(test_sync_refused_is_a_warning),
		cmocka_unit_test(test_raised_irql_stops_the_stick),
		cmocka_unit_test(test_dump_progress_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
