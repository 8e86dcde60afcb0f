/*
 * test_traceout_file.c - the file form (kernel/trace/out/out_file.c,
 * include/kprof/wire_file.h): a file too small for the trace keeps whole
 * frames up to the first that does not fit and nothing after it, always
 * ends with every CPU end frame and the run end, and its end frames count
 * per CPU the records of the chunks it lacks; the host tool reports them
 * as not in the file (not lost on the link) and stops at the run end, so
 * an earlier run's leftovers in the file are never read.
 *
 * Frames come from the run generator (traceout_gen.c) through the serial
 * sink, then are replayed into an out_file over memory, or go through the
 * stick sink onto the fake stick (fake_stick.c).
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
#include "kernel/trace/out/out.h"
#include "kernel/trace/out/out_file.h"
#include "shadow.h"
#include "support/traceout_gen.h"

#define KiB 1024u
#define MiB (1u << 20)

static const struct bootinfo_stick no_stick = { .status = BOOTINFO_STICK_NONE };

static struct {
	uint8_t *buf;
	size_t len, cap;
} mem;

static int mem_write(void *ctx, const void *p, uint32_t len)
{
	if (mem.len + len > mem.cap)
		return -1; /* out_file must never write past its capacity */
	memcpy(mem.buf + mem.len, p, len);
	mem.len += len;
	return 0;
}

/* Replay the frames the serial sink got into an out_file of capacity
 * bytes over memory. */
static void replay(struct out_file *f, uint64_t capacity, uint32_t ncpu)
{
	size_t at = 0;
	const uint8_t *fr;
	uint32_t len;

	free(mem.buf);
	mem.cap = capacity;
	mem.buf = malloc(capacity);
	mem.len = 0;
	out_file_init(f, capacity, ncpu, mem_write, NULL);
	while (gen_next_frame(serial_bytes, serial_len, &at, &fr, &len)) {
		struct kprof_frame_header h;
		memcpy(&h, fr, sizeof(h));
		struct trace_out_frame of = { .h = &h, .p1 = fr + sizeof(h), .l1 = h.length };
		assert_int_equal(out_file_frame(f, &of), 0);
	}
}

/* The file's frames: the tails of its end frames, how many data frames. */
struct file_view {
	unsigned data_frames, cpu_ends, run_ends;
	bool ends_last;                    /* nothing after the end frames  */
	struct kprof_file_tail cpu_tail[GEN_MAX_CPUS], run_tail;
	uint32_t chunks[GEN_MAX_CPUS];     /* chunk frames per CPU          */
	uint64_t records;                  /* in its chunks                 */
};

static void view_file(const uint8_t *b, size_t len, struct file_view *v)
{
	size_t at = 0;
	const uint8_t *fr;
	uint32_t flen;

	memset(v, 0, sizeof(*v));
	v->ends_last = true;
	while (gen_next_frame(b, len, &at, &fr, &flen)) {
		struct kprof_frame_header h;
		memcpy(&h, fr, sizeof(h));
		if (h.type == KPROF_FRAME_CPU_END) {
			memcpy(&v->cpu_tail[h.cpu], fr + flen - sizeof(struct kprof_file_tail), sizeof(v->cpu_tail[0]));
			v->cpu_ends++;
		} else if (h.type == KPROF_FRAME_RUN_END) {
			memcpy(&v->run_tail, fr + flen - sizeof(v->run_tail), sizeof(v->run_tail));
			v->run_ends++;
			return;
		} else {
			v->ends_last &= v->cpu_ends == 0;
			v->data_frames++;
			if (h.type == KPROF_FRAME_CHUNK) {
				struct kprof_chunk_header c;
				memcpy(&c, fr + sizeof(h), sizeof(c));
				v->chunks[h.cpu]++;
				v->records += c.records;
			}
		}
	}
}

static void test_exact_fit_and_one_byte_less(void **state)
{
	struct gen g;
	struct out_file f;
	struct file_view v;

	gen_open(TRACE_OUT_SERIAL, &no_stick, 2);
	gen_run(&g, 2, 50000, 64);
	gen_finish(&g);
	uint64_t exact = serial_len + (2 + 1) * sizeof(struct kprof_file_tail);

	replay(&f, exact, 2);
	assert_int_equal(f.used, exact);
	assert_false(f.full);
	assert_int_equal(f.records, gen_records(&g));
	assert_int_equal(f.records_lost, 0);
	view_file(mem.buf, mem.len, &v);
	assert_int_equal(v.run_tail.flags, 0);
	assert_int_equal(v.cpu_tail[0].frames, g.seq[0] - 1); /* every chunk: the end frame took the next seq */
	assert_int_equal(v.cpu_tail[1].records_lost, 0);

	replay(&f, exact - 1, 2); /* the last chunk (cpu 1's) does not fit */
	assert_true(f.full);
	assert_int_equal(f.records_lost, 20);
	assert_int_equal(f.cpu[1].records_lost, 20);
	assert_int_equal(f.cpu[0].records_lost, 0);
	view_file(mem.buf, mem.len, &v);
	assert_int_equal(v.cpu_ends, 2);
	assert_int_equal(v.run_ends, 1);
	assert_true(v.ends_last);
	assert_int_equal(v.cpu_tail[1].frames, g.seq[1] - 2);
	assert_int_equal(v.cpu_tail[1].records_lost, 20);
	assert_int_equal(v.run_tail.records_lost, 20);
	assert_int_equal(v.run_tail.flags, KPROF_FILE_FULL);
	assert_int_equal(v.cpu_tail[0].flags, KPROF_FILE_FULL); /* the file was full when its end frame came */
}

/* Whole frames only, and nothing after the first that does not fit, even
 * frames small enough for the room left. */
static void test_nothing_after_the_cut(void **state)
{
	struct gen g;
	struct out_file f;
	struct file_view v;

	gen_open(TRACE_OUT_SERIAL, &no_stick, 1);
	gen_start(&g, 1);
	for (int i = 0; i < 10; i++)
		gen_chunk(&g, 0, 2, 16);
	size_t before_big = serial_len;
	gen_chunk(&g, 0, 100, 100); /* about 13 KiB */
	for (int i = 0; i < 10; i++)
		gen_chunk(&g, 0, 2, 16);
	gen_finish(&g);

	uint64_t capacity = before_big + out_file_end_bytes(1) + 4 * KiB; /* room for the small ones, not the big */
	replay(&f, capacity, 1);
	view_file(mem.buf, mem.len, &v);
	assert_int_equal(v.chunks[0], 10);
	assert_int_equal(v.cpu_tail[0].frames, 10);
	assert_int_equal(v.cpu_tail[0].records_lost, 100 + 10 * 2);
	assert_int_equal(v.records + v.cpu_tail[0].records_lost, gen_records(&g));
	assert_int_equal(f.used, before_big + out_file_end_bytes(1));
	assert_true(f.used <= capacity);
}

/* A small stick file through the stick sink: what fits is kept, the rest
 * counted per CPU; the host tool reports it as not in the file. */
static void test_small_stick_file_decodes(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct file_view v;
	struct bootinfo_stick bs = gen_stick(128 * KiB, 512, 2, &sf);

	gen_whole_run(&g, TRACE_OUT_BOTH, &bs, 3, 600 * KiB, 80);
	uint8_t *file = gen_read_file(&sf);
	view_file(file, sf.file_bytes, &v);
	assert_int_equal(v.cpu_ends, 3);
	assert_int_equal(v.run_ends, 1);
	assert_true(v.ends_last);
	uint64_t lost = 0;
	for (uint32_t c = 0; c < 3; c++) {
		assert_int_equal(v.cpu_tail[c].frames, v.chunks[c]);
		assert_int_equal(v.cpu_tail[c].flags, KPROF_FILE_FULL);
		lost += v.cpu_tail[c].records_lost;
	}
	assert_int_equal(v.records + lost, gen_records(&g));
	assert_int_equal(v.run_tail.records_lost, lost);
	assert_true(lost > gen_records(&g) / 2);
	assert_int_equal(fake_stick.bad_writes, 0);

	char want[200];
	snprintf(want, sizeof(want), "trace: %llu of %llu records, ", (unsigned long long)v.records,
		 (unsigned long long)gen_records(&g));
	assert_non_null(strstr(shadow_console, want));
	snprintf(want, sizeof(want), "on the USB stick, which is full: %llu records did not fit in its 131 KB",
		 (unsigned long long)lost);
	assert_non_null(strstr(shadow_console, want));

	struct kprof_verdict vf;
	if (gen_kprof_check(file, sf.file_bytes, &vf)) {
		assert_int_equal(vf.status, 0);
		assert_true(vf.file_form);
		assert_int_equal(vf.records, v.records);
		assert_int_equal(vf.lost_file, lost);
		assert_int_equal(vf.lost_link, 0);
		assert_int_equal(vf.issues, 0); /* the frames left out are not "missing" */
		assert_non_null(strstr(vf.summary, "not in the trace file"));
		assert_non_null(strstr(vf.summary, "cpu 0: "));
		/* Each CPU's cut, placed after its last record in the file, with the kernel's count. */
		assert_null(strstr(vf.losses, "LostOnLink"));
		for (uint32_t c = 0; c < 3; c++) {
			snprintf(want, sizeof(want), "{\"cpu\":%u,\"event\":\"NotInFile\",\"loss\":\"file\",\"count\":%llu,", c,
				 (unsigned long long)v.cpu_tail[c].records_lost);
			assert_non_null(strstr(vf.losses, want));
		}
	}
	free(file);
}

/* The same stick used twice: the second, shorter run's file ends at its
 * run end; the first run's frames after it are fill, never read. */
static void test_earlier_run_after_run_end_is_not_read(void **state)
{
	struct stick_file sf;
	struct gen g;
	struct bootinfo_stick bs = gen_stick(4 * MiB, 512, 1, &sf);

	gen_whole_run(&g, TRACE_OUT_BOTH, &bs, 2, 2 * MiB, 100);
	gen_open(TRACE_OUT_BOTH, &bs, 2); /* the disk is not reset: run 1 stays */
	gen_run(&g, 2, 100 * KiB, 100);
	gen_finish(&g);
	uint8_t *file = gen_read_file(&sf);
	struct kprof_verdict vf;
	if (gen_kprof_check(file, sf.file_bytes, &vf)) {
		assert_int_equal(vf.status, 0);
		assert_int_equal(vf.records, gen_records(&g));
		assert_int_equal(vf.issues, 0); /* no frames of another run */
		assert_true(vf.fill_bytes > MiB);
	}
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_fit_and_one_byte_less),
		cmocka_unit_test(test_nothing_after_the_cut),
		cmocka_unit_test(test_small_stick_file_decodes),
		cmocka_unit_test(test_earlier_run_after_run_end_is_not_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
