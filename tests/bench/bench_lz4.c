/*
 * bench_lz4.c - how far LZ4 brings the serial wire below one byte per
 * record byte, and at what cost.
 *
 * Input: the records of every captured log in tests/golden (the report-*
 * runs are the mixed workloads; tracetest-2cpu is the synthetic pattern),
 * per CPU in time order, cut into record-aligned blocks of 512 .. 16384
 * bytes, as the chunker would cut a sub-buffer.
 * Methods, on the same blocks in the same run:
 *   ours        kernel/lib/codec/lz4.c
 *   ours+delta  kernel/trace/trace_delta.c, then ours
 *   liblz4      LZ4_compress_default (the reference implementation)
 *   +dict       delta, then ours with a fixed dictionary of records from
 *               the other logs (make_dicts())
 * A block that does not shrink counts at its raw size (it is sent raw).
 * Printed: compressed/raw per method and block size, per log and over all
 * logs; wire bytes per record byte (the sum of the records' Size, as
 * tests/bench/wire_bytes.py counts) if each block were one chunk frame
 * with CHUNK_OVERHEAD bytes of frame and chunk header (goal: <= 0.5); and
 * compression speed, MB/s of raw input, median of ROUNDS interleaved runs.
 * The captured TSCs start near 0 (QEMU); the ratios are printed again with
 * every TSC moved up by 0xA3F5C2B1000, as on a machine up for an hour.
 */
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel/lib/codec/lz4.h"
#include "kernel/lib/stats.h"
#include "kernel/trace/trace_delta.h"
#include "tests/unit/support/golden_records.h"

#define ROUNDS 11
#define CHUNK_OVERHEAD 40
#define NLOGS 5
#define NSIZES 6

enum { M_OURS, M_DELTA, M_LIB, M_DICT, NMETHODS };

static const char *const logs[NLOGS] = {
	"tests/golden/report-sched.log", "tests/golden/report-locks.log", "tests/golden/report-resources.log",
	"tests/golden/report-profile.log", "tests/golden/tracetest-2cpu.log",
};
static const size_t sizes[NSIZES] = { 512, 1024, 2048, 4096, 8192, 16384 };

struct block {
	const uint8_t *src;
	size_t len;      /* bytes, padding included */
	size_t size_sum; /* the records' own bytes */
	int log;
};

static struct golden_stream streams[NLOGS][GOLDEN_MAX_CPUS];
static struct lz4_state st;
static uint8_t out[LZ4_COMPRESSBOUND(16384)], work[16384];

/* A fixed dictionary that both ends would hold (each chunk still decodes
 * on its own).  Which bytes the kernel would ship is not decided; here,
 * for a log, it is DICT_PART bytes of delta-encoded records from CPU 1 of
 * each *other* mixed log, so no log is compressed with its own records. */
#define DICT_PART 1536
static uint8_t dict[NLOGS][3 * DICT_PART];
static size_t dict_len[NLOGS];

static void make_dicts(void)
{
	for (int l = 0; l < NLOGS; l++)
		for (int o = 0; o < 3; o++) { /* sched, locks, resources */
			const struct golden_stream *s = &streams[o][1];
			size_t take = s->len < DICT_PART ? s->len : DICT_PART;
			if (o == l || !take)
				continue;
			memcpy(dict[l] + dict_len[l], s->bytes, take);
			trace_delta_encode(dict[l] + dict_len[l], take);
			dict_len[l] += take;
		}
}

static struct block *cut(size_t max, size_t *count)
{
	size_t n = 0, cap = 1024;
	struct block *b = malloc(cap * sizeof(*b));
	for (int l = 0; l < NLOGS; l++)
		for (int c = 0; c < GOLDEN_MAX_CPUS; c++) {
			const struct golden_stream *s = &streams[l][c];
			size_t off = 0, len, sum;
			while ((len = golden_block(s, off, max, &sum)) != 0) {
				if (n == cap)
					b = realloc(b, (cap *= 2) * sizeof(*b));
				b[n++] = (struct block){ s->bytes + off, len, sum, l };
				off += len;
			}
		}
	*count = n;
	return b;
}

/* Bytes that go out for one block: compressed, or raw when that is no smaller. */
static size_t compress(int m, const struct block *b)
{
	size_t r = 0;
	switch (m) {
	case M_OURS:
		r = lz4_compress_block(b->src, b->len, out, sizeof(out), &st);
		break;
	case M_DELTA:
		memcpy(work, b->src, b->len);
		trace_delta_encode(work, b->len);
		r = lz4_compress_block(work, b->len, out, sizeof(out), &st);
		break;
	case M_DICT:
		memcpy(work, b->src, b->len);
		trace_delta_encode(work, b->len);
		r = lz4_compress_block_dict(work, b->len, dict[b->log], dict_len[b->log], out, sizeof(out), &st);
		break;
	case M_LIB: {
		int k = LZ4_compress_default((const char *)b->src, (char *)out, (int)b->len, (int)sizeof(out));
		r = k > 0 && (size_t)k < b->len ? (size_t)k : 0;
		break;
	}
	}
	return r ? r : b->len;
}

/* CPU time of this thread: the machine is shared, wall time is not ours. */
static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/*
 * Move every TSC in the streams up by k, as if the machine had been up
 * longer: the delta transform's own walk does it exactly (the first
 * record's TimeStamp difference is from 0; payload TSC fields follow
 * their record's TimeStamp, and unset ones stay 0).
 */
static void shift_tsc(uint64_t k)
{
	for (int l = 0; l < NLOGS; l++)
		for (int c = 0; c < GOLDEN_MAX_CPUS; c++) {
			struct golden_stream *s = &streams[l][c];
			if (!s->len)
				continue;
			trace_delta_encode(s->bytes, s->len);
			uint64_t ts;
			memcpy(&ts, s->bytes + 8, 8);
			ts += k;
			memcpy(s->bytes + 8, &ts, 8);
			trace_delta_decode(s->bytes, s->len);
		}
}

struct totals {
	size_t raw, recb, blocks, comp[NMETHODS];
};

static void add(struct totals *t, const struct block *b, const size_t c[NMETHODS])
{
	t->raw += b->len;
	t->recb += b->size_sum;
	t->blocks++;
	for (int m = 0; m < NMETHODS; m++)
		t->comp[m] += c[m];
}

static void print_row(const char *what, size_t size, const struct totals *t)
{
	printf("bench lz4: %-20s %5zu %5zu |", what, size, t->blocks);
	for (int m = 0; m < NMETHODS; m++)
		printf(" %6.3f", (double)t->comp[m] / (double)t->raw);
	printf("  |");
	for (int m = 0; m < NMETHODS; m++)
		printf(" %6.3f", (double)(t->comp[m] + CHUNK_OVERHEAD * t->blocks) / (double)t->recb);
	printf("\n");
}

/* Ratios at every block size: over all logs, over the mixed workloads
 * (the report-* logs), and (detail) per log. */
static void ratios(const char *title, int detail)
{
	printf("bench lz4: %s\n", title);
	printf("bench lz4: %-20s %5s %5s | %6s %6s %6s %6s  | %6s %6s %6s %6s\n", "logs", "block", "count", "ours",
	       "+delta", "liblz4", "+dict", "ours", "+delta", "liblz4", "+dict");
	printf("bench lz4: %-20s %5s %5s | %-27s  | %s\n", "", "bytes", "", "compressed / raw",
	       "wire bytes per record byte");
	for (int k = 0; k < NSIZES; k++) {
		size_t nb;
		struct block *b = cut(sizes[k], &nb);
		struct totals all = { 0 }, mix = { 0 }, per[NLOGS] = { { 0 } };
		for (size_t i = 0; i < nb; i++) {
			size_t c[NMETHODS];
			for (int m = 0; m < NMETHODS; m++)
				c[m] = compress(m, &b[i]);
			add(&all, &b[i], c);
			add(&per[b[i].log], &b[i], c);
			if (strstr(logs[b[i].log], "report-"))
				add(&mix, &b[i], c);
		}
		print_row("all", sizes[k], &all);
		print_row("mixed (report-*)", sizes[k], &mix);
		for (int l = 0; detail && l < NLOGS; l++)
			print_row(strrchr(logs[l], '/') + 1, sizes[k], &per[l]);
		free(b);
	}
}

/* Speed: each method over all blocks, interleaved, ROUNDS times; each
 * timing repeats the blocks to about SPEED_BYTES of input. */
#define SPEED_BYTES (8u << 20)
static void speeds(void)
{
	printf("bench lz4: speed, MB/s of raw input (thread CPU time, median of %d interleaved runs)\n", ROUNDS);
	printf("bench lz4: %5s | %8s %8s %8s %8s | ours/liblz4\n", "block", "ours", "+delta", "liblz4", "+dict");
	for (int k = 0; k < NSIZES; k++) {
		size_t nb, raw = 0, sink = 0;
		struct block *b = cut(sizes[k], &nb);
		for (size_t i = 0; i < nb; i++)
			raw += b[i].len;
		size_t reps = SPEED_BYTES / raw + 1;
		uint64_t ns[NMETHODS][ROUNDS];
		for (int r = 0; r < ROUNDS; r++)
			for (int m = 0; m < NMETHODS; m++) {
				uint64_t t0 = now_ns();
				for (size_t rep = 0; rep < reps; rep++)
					for (size_t i = 0; i < nb; i++)
						sink += compress(m, &b[i]);
				ns[m][r] = now_ns() - t0;
			}
		double mbs[NMETHODS];
		for (int m = 0; m < NMETHODS; m++) {
			uint64_t med = median_u64(ns[m], ROUNDS);
			mbs[m] = (double)raw * (double)reps * 1e3 / (double)(med ? med : 1);
		}
		printf("bench lz4: %5zu | %8.0f %8.0f %8.0f %8.0f | %.2f%s\n", sizes[k], mbs[M_OURS], mbs[M_DELTA],
		       mbs[M_LIB], mbs[M_DICT], mbs[M_OURS] / mbs[M_LIB], sink ? "" : " ");
		free(b);
	}
}

int main(void)
{
	for (int l = 0; l < NLOGS; l++)
		if (golden_load(logs[l], streams[l]) <= 0) {
			fprintf(stderr, "bench lz4: cannot read %s (run from the top of the tree)\n", logs[l]);
			return 1;
		}
	printf("bench lz4: record-aligned blocks of one CPU's records; a block that does not shrink is sent raw;\n"
	       "bench lz4: wire = (compressed + %d bytes of frame and chunk header per block) / record bytes "
	       "(goal <= 0.5; today 1.055)\n", CHUNK_OVERHEAD);
	make_dicts();
	ratios("TSCs as captured (QEMU: TSC from 0 at boot, below 2^32)", 1);
	speeds();
	shift_tsc(0x00000A3F5C2B1000ull); /* 11.3e12: an hour at 3.1 GHz */
	ratios("every TSC + 0xA3F5C2B1000 (as on hardware up an hour: the top bytes not 0)", 0);
	for (int l = 0; l < NLOGS; l++)
		golden_free(streams[l]);
	return 0;
}
