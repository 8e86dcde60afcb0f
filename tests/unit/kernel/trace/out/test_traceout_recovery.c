/*
 * test_traceout_recovery.c - the stick sink when the stick fails mid-run
 * (kernel/trace/out/out_stick.c, out.c) over the in-memory stick
 * (fake_stick.c): the recovery ladder climbed rung by rung with the
 * failed stage written again at the same place, and, once every rung is
 * spent, serial taking over with every frame the stick does not hold
 * whole.  The stick's file and the serial bytes together hold every frame
 * exactly once (frames checked by CRC), both decode with the host tool,
 * and the exit status says whether the trace is split.
 * The rungs themselves, against the controller and disk models, are in
 * test_stick.c.
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
#include "kernel/trace/config/trace_keys.h"
#include "kernel/lib/codec/crc32.h"
#include "kernel/trace/out/out.h"
#include "shadow.h"
#include "support/traceout_gen.h"

#define MiB (1u << 20)
#define KEY(type, cpu, seq) ((uint64_t)(type) << 48 | (uint64_t)(cpu) << 32 | (seq))

/* The whole frames (payload CRC good) of a log, as type/cpu/seq keys;
 * returns how many, and the records of the chunk frames in *records. */
static unsigned good_frames(const uint8_t *log, size_t len, uint64_t *keys, unsigned max, uint64_t *records)
{
	size_t at = 0;
	const uint8_t *f;
	uint32_t fl;
	unsigned n = 0;

	*records = 0;
	while (gen_next_frame(log, len, &at, &f, &fl)) {
		struct kprof_frame_header h;
		memcpy(&h, f, sizeof(h));
		if (crc32_update(0, f + sizeof(h), h.length) != h.payload_crc) {
			at -= fl - 1; /* cut short on the stick: scan on inside it */
			continue;
		}
		if (h.type == KPROF_FRAME_CHUNK) {
			struct kprof_chunk_header c;
			memcpy(&c, f + sizeof(h), sizeof(c));
			*records += c.records;
		}
		assert_true(n < max);
		keys[n++] = KEY(h.type, h.cpu, h.seq);
	}
	return n;
}

static int has_key(const uint64_t *keys, unsigned n, uint64_t k)
{
	int count = 0;
	for (unsigned i = 0; i < n; i++)
		count += keys[i] == k;
	return count;
}

/* One failed write: Bulk-Only reset recovery, the same stage written
 * again, the whole trace on the stick, nothing on serial, success. */
static void test_one_error_recovered_by_reset(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(8 * MiB, 512, 2, &sf);

	fake_stick.fail_write = 2;
	fake_stick.fail_rc = USB_ERROR;
	fake_stick.fail_sense = (struct stick_sense){ .key = 0xb, .asc = 0x00, .ascq = 0x06 };
	gen_whole_run(&g, TRACE_OUT_USB, &bs, 2, 3 * MiB, 100);

	assert_int_equal(fake_stick.recoveries, 1);
	assert_int_equal(fake_stick.rungs[0], STICK_RECOVER_RESET);
	assert_int_equal(fake_stick.log_off[2], fake_stick.log_off[1]); /* the failed stage, again */
	assert_int_equal(fake_stick.log_len[2], fake_stick.log_len[1]);
	assert_int_equal(serial_len, 0);
	assert_non_null(strstr(shadow_console, "failed: error (sense key b, asc 00, ascq 06); recovering "
					       "(Bulk-Only reset recovery)"));
	assert_non_null(strstr(shadow_console, "trace: USB stick: recovered by Bulk-Only reset recovery; writing "));
	assert_non_null(strstr(shadow_console, " records, "));
	assert_null(strstr(shadow_console, "serial carries"));
	assert_int_equal(trace_out_exit_status(KPROF_EXIT_SUCCESS), KPROF_EXIT_SUCCESS);
	gen_assert_file_whole(&sf, &g);
}

/* Each rung in turn: the write fails after reset recovery, the port rung
 * itself fails (so nothing is written after it), the controller reset
 * brings the stick back and the stage goes out. */
static void test_ladder_climbs_rung_by_rung(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(8 * MiB, 512, 1, &sf);

	fake_stick.fail_write = 2;
	fake_stick.fail_times = 2;
	fake_stick.fail_rc = USB_TIMEOUT;
	fake_stick.recover_rc[STICK_RECOVER_PORT] = USB_NODEV;
	gen_whole_run(&g, TRACE_OUT_USB, &bs, 1, 2 * MiB, 100);

	assert_int_equal(fake_stick.recoveries, 3);
	assert_int_equal(fake_stick.rungs[0], STICK_RECOVER_RESET);
	assert_int_equal(fake_stick.rungs[1], STICK_RECOVER_PORT);
	assert_int_equal(fake_stick.rungs[2], STICK_RECOVER_CONTROLLER);
	/* writes 2 and 3 failed, 4 (after the controller reset) went out:
	 * all three the same stage, at the same place */
	for (unsigned i = 2; i <= 3; i++) {
		assert_int_equal(fake_stick.log_off[i], fake_stick.log_off[1]);
		assert_int_equal(fake_stick.log_len[i], fake_stick.log_len[1]);
	}
	assert_non_null(strstr(shadow_console, "trace: USB stick: recovered by controller reset; writing "));
	assert_int_equal(serial_len, 0);
	gen_assert_file_whole(&sf, &g);
}

/* Every write fails from the third on (a stick gone bad): the stick holds
 * the first two stages' whole frames, serial the rest from the first
 * frame the stick does not hold whole, each frame in exactly one of them;
 * the run is split. */
static void test_persistent_errors_split_the_trace(void **state)
{
	static uint64_t in_file[4096], on_serial[4096];
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(8 * MiB, 512, 3, &sf);

	fake_stick.fail_write = 3;
	fake_stick.fail_times = 1000;
	fake_stick.fail_rc = USB_ERROR;
	gen_open(TRACE_OUT_USB, &bs, 2);
	gen_run(&g, 2, 4 * MiB, 100);
	gen_finish(&g);

	assert_int_equal(fake_stick.recoveries, STICK_RECOVER_COUNT);
	assert_int_equal(fake_stick.writes, 2 + 1 + STICK_RECOVER_COUNT); /* nothing after the last rung */
	assert_non_null(strstr(shadow_console, "trace: serial carries the trace from here on"));
	assert_non_null(strstr(shadow_console, "no output holds the whole trace"));
	assert_int_equal(trace_out_exit_status(KPROF_EXIT_SUCCESS), KPROF_EXIT_TRACE_SPLIT);
	assert_int_equal(trace_out_exit_status(KPROF_EXIT_FAILURE), KPROF_EXIT_FAILURE); /* a failure stays one */

	uint8_t *file = gen_read_file(&sf);
	uint64_t file_records, serial_records;
	unsigned nf = good_frames(file, sf.file_bytes, in_file, 4096, &file_records);
	unsigned ns = good_frames(serial_bytes, serial_len, on_serial, 4096, &serial_records);
	assert_true(nf > 10 && ns > 10);
	assert_int_equal(file_records + serial_records, gen_records(&g));
	for (uint32_t cpu = 0; cpu < 2; cpu++)
		for (uint32_t seq = 0; seq < g.seq[cpu] - 1; seq++) /* every chunk once */
			assert_int_equal(has_key(in_file, nf, KEY(KPROF_FRAME_CHUNK, cpu, seq)) +
					 has_key(on_serial, ns, KEY(KPROF_FRAME_CHUNK, cpu, seq)), 1);
	assert_int_equal(has_key(on_serial, ns, KEY(KPROF_FRAME_RUN_HEADER, KPROF_FRAME_CPU_NONE, 0)), 0);
	assert_int_equal(has_key(on_serial, ns, KEY(KPROF_FRAME_RUN_END, KPROF_FRAME_CPU_NONE, g.run_seq - 1)), 1);
	struct kprof_verdict v;
	if (gen_kprof_check(serial_bytes, serial_len, &v)) {
		assert_int_equal(v.records, serial_records);
		assert_int_equal(v.lost_link, file_records); /* serial's missing start: what the stick holds */
	}
	free(file);
}

/* The stick gone (unplugged): every rung fails, nothing is written after
 * the failed write, and serial takes over at once. */
static void test_unplugged_every_rung_fails(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(8 * MiB, 512, 1, &sf);

	fake_stick.fail_write = 2;
	fake_stick.fail_times = 1000;
	fake_stick.fail_rc = USB_NODEV;
	for (unsigned r = 0; r < STICK_RECOVER_COUNT; r++)
		fake_stick.recover_rc[r] = USB_NODEV;
	gen_whole_run(&g, TRACE_OUT_USB, &bs, 1, 3 * MiB, 100);

	assert_int_equal(fake_stick.recoveries, STICK_RECOVER_COUNT);
	assert_int_equal(fake_stick.writes, 2);
	assert_int_equal(fake_stick.syncs, 0);
	assert_non_null(strstr(shadow_console, "failed: no device (sense key 0, asc 00, ascq 00); nothing more is "
					       "written to it"));
	assert_int_equal(trace_out_exit_status(KPROF_EXIT_SUCCESS), KPROF_EXIT_TRACE_SPLIT);
	struct kprof_verdict v;
	if (gen_kprof_check(serial_bytes, serial_len, &v))
		assert_true(v.records > 0 && v.records < gen_records(&g));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_error_recovered_by_reset),
		cmocka_unit_test(test_ladder_climbs_rung_by_rung),
		cmocka_unit_test(test_persistent_errors_split_the_trace),
		cmocka_unit_test(test_unplugged_every_rung_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
