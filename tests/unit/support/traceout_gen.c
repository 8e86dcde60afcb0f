/*
 * traceout_gen.c - the shared pieces of the trace output tests
 * (traceout_gen.h): a run of frames as trace.c makes them, the serial port
 * and console claim, fake RAM, a stick from bootinfo, and the host tool.
 */
#include "support/traceout_gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <arch/mmu.h>

#include "support/fake_stick.h"
#include "include/kprof/wire.h"
#include "include/kprof/wmi.h"
#include "kernel/trace/config/trace_keys.h"
#include "kernel/mm/pmm.h"
#include "kernel/trace/out/out.h"
#include "shadow.h"

#define MiB (1ULL << 20)

/* ------------------------------------------------------------ the run */

static void frame(uint8_t type, uint16_t cpu, uint32_t seq, const void *p1, uint32_t l1, const void *p2, uint32_t l2)
{
	trace_out_frame(type, cpu, seq, p1, l1, p2, l2);
}

static void run_info(struct gen *g)
{
	struct kprof_run_info ri = { .run_id = g->run_id, .cpu_count = g->ncpu, .tsc_hz = 1000000000, .start_tsc = 1000,
				     .trace_mode = KPROF_TRACE_STREAM, .buffer_size = 65536, .buffers_per_cpu = 4 };
	frame(KPROF_FRAME_RUN_INFO, KPROF_FRAME_CPU_NONE, g->run_seq++, &ri, sizeof(ri), NULL, 0);
}

void gen_start(struct gen *g, uint32_t ncpu)
{
	static const char strings[] = "unit-test\0trace.out=both";
	uint8_t buf[sizeof(struct kprof_run_header) + sizeof(strings)];
	struct kprof_run_header h = {
		.version = KPROF_RUN_HEADER_VERSION, .size = sizeof(h), .cpu_count = ncpu, .pointer_size = 8,
		.tsc_hz = 1000000000, .start_tsc = 1000, .clock_type = KPROF_CLOCK_CYCLES,
		.trace_mode = KPROF_TRACE_STREAM, .buffer_size = 65536, .buffers_per_cpu = 4,
		.build_id_offset = sizeof(h), .cmdline_offset = sizeof(h) + 10,
	};
	static uint32_t runs;
	h.run_id = 0x5eed0000 + ++runs; /* each run its own, as the kernel's */
	memset(g, 0, sizeof(*g));
	g->ncpu = ncpu;
	g->run_id = h.run_id;
	g->ts = 2000;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), strings, sizeof(strings));
	frame(KPROF_FRAME_RUN_HEADER, KPROF_FRAME_CPU_NONE, g->run_seq++, buf, sizeof(buf), NULL, 0);
	run_info(g);
}

uint32_t gen_chunk_bytes(uint32_t n, uint32_t payload_len)
{
	uint32_t rec = (uint32_t)(sizeof(PERFINFO_TRACE_HEADER) + 16 + payload_len + 7) & ~7u;
	return KPROF_FRAME_HEADER_SIZE + sizeof(struct kprof_chunk_header) + n * rec;
}

void gen_chunk(struct gen *g, uint32_t cpu, uint32_t n, uint32_t payload_len)
{
	uint32_t rec = gen_chunk_bytes(1, payload_len) - KPROF_FRAME_HEADER_SIZE - sizeof(struct kprof_chunk_header);
	uint8_t *recs = calloc(n ? n : 1, rec);

	for (uint32_t i = 0; i < n; i++) {
		uint8_t *r = recs + i * rec;
		uint32_t seq = g->pattern_seq[cpu]++, fields[4] = { cpu, 0, seq, payload_len };
		PERFINFO_TRACE_HEADER h = { .Marker = PERFINFO_MARKER_64 | TRACETEST_VERSION,
					    .Size = (uint16_t)(sizeof(h) + sizeof(fields) + payload_len),
					    .HookId = KPROF_LOG_TYPE_TRACETEST, .TimeStamp = g->ts++ };
		memcpy(r, &h, sizeof(h));
		memcpy(r + sizeof(h), fields, sizeof(fields));
		for (uint32_t b = 0; b < payload_len; b++)
			r[sizeof(h) + sizeof(fields) + b] = (uint8_t)(seq * 31 + b);
	}
	struct kprof_chunk_header c = { .run_id = g->run_id, .buffer_seq = g->seq[cpu] / 4, .records = (uint16_t)n,
					.flags = g->seq[cpu] % 4 == 3 ? KPROF_CHUNK_LAST : 0, .encoding = KPROF_CHUNK_RAW,
					.raw_bytes = (uint16_t)(n * rec) };
	if (g->chunks_sent++ % KPROF_RUN_INFO_EVERY == KPROF_RUN_INFO_EVERY - 1)
		run_info(g);
	frame(KPROF_FRAME_CHUNK, (uint16_t)cpu, g->seq[cpu]++, &c, sizeof(c), recs, n * rec);
	g->records[cpu] += n;
	g->bytes[cpu] += n * rec;
	free(recs);
}

void gen_end(struct gen *g)
{
	for (uint32_t i = 0; i < g->ncpu; i++) {
		struct kprof_cpu_end e = { .cpu = i, .buffers = g->seq[i], .records = g->records[i], .bytes = g->bytes[i],
					   .run_id = g->run_id };
		frame(KPROF_FRAME_CPU_END, (uint16_t)i, g->seq[i]++, &e, sizeof(e), NULL, 0);
	}
	struct kprof_run_end r = { .status = 0x10, .cpu_count = g->ncpu, .end_tsc = g->ts, .run_id = g->run_id };
	frame(KPROF_FRAME_RUN_END, KPROF_FRAME_CPU_NONE, g->run_seq++, &r, sizeof(r), NULL, 0);
}

void gen_run(struct gen *g, uint32_t ncpu, uint64_t bytes, uint32_t payload)
{
	uint64_t sent = 0;
	gen_start(g, ncpu);
	for (uint32_t i = 0; sent < bytes; i++) {
		gen_chunk(g, i % ncpu, 20, payload);
		sent += gen_chunk_bytes(20, payload);
	}
}

void gen_finish(struct gen *g)
{
	gen_end(g);
	trace_out_finish();
}

uint64_t gen_records(const struct gen *g)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < g->ncpu; i++)
		n += g->records[i];
	return n;
}

/* ------------------------------------------------------ serial, console */

uint8_t *serial_bytes;
size_t serial_len;
unsigned serial_claims;
static size_t serial_cap;
static int claimed;

void serial_reset(void)
{
	serial_len = 0;
	serial_claims = 0;
}

void arch_serial_write_raw(const void *data, size_t n)
{
	if (!claimed)
		abort(); /* frames go out only with the console output claimed */
	if (serial_len + n > serial_cap) {
		serial_cap = (serial_len + n) * 2;
		serial_bytes = realloc(serial_bytes, serial_cap);
	}
	memcpy(serial_bytes + serial_len, data, n);
	serial_len += n;
}

void console_claim_output(void)
{
	if (claimed++)
		abort(); /* never nested */
	serial_claims++;
}

void console_release_output(void)
{
	claimed--;
}

/* ------------------------------------------------------------ memory */

void fake_ram_init(void)
{
	static struct bootinfo bi;
	static void *ram;
	if (!ram)
		ram = aligned_alloc(PAGE_SIZE, 16 * MiB);
	memset(&bi, 0, sizeof(bi));
	bi.mmap[0] = (struct bootinfo_mmap_entry){ 1 * MiB, 16 * MiB, BOOTINFO_MEM_USABLE, 0 };
	bi.mmap_count = 1;
	arch_hhdm_offset = (uint64_t)(uintptr_t)ram - 1 * MiB;
	if (pmm_init(&bi))
		abort();
}

uint64_t fake_ram_free_pages(void)
{
	struct pmm_stats st;
	pmm_get_stats(&st);
	return st.free_pages;
}

/* ------------------------------------------------------------ stick */

struct bootinfo_stick gen_stick(uint64_t file_bytes, uint32_t block_size, uint32_t nextents, struct stick_file *sf)
{
	uint64_t file_blocks = (file_bytes + block_size - 1) / block_size, gap = 8, lba = 2048;
	struct bootinfo_stick bs = { .status = BOOTINFO_STICK_OK, .block_size = block_size, .pci_bus = 0,
				     .pci_dev = 4, .depth = 2, .ports = { 3, 1 }, .nextents = nextents,
				     .file_bytes = file_bytes, .disk_guid = { 0xde, 0xad, 0xbe, 0xef },
				     .lun = 2, .table = BOOTINFO_STICK_TABLE_MBR, .mbr_signature = 0x1a2b3c4d,
				     .part_lba = 2048, .part_blocks = 1 << 20, .volume_serial = 0x12345678 };
	memcpy(bs.file_name, "\\kprof\\trace.bin", 17);
	*sf = (struct stick_file){ .block_size = block_size, .nextents = nextents, .file_bytes = file_bytes };
	for (uint32_t i = 0; i < nextents; i++) {
		uint64_t n = file_blocks / nextents + (i < file_blocks % nextents);
		bs.extents[i] = (struct bootinfo_stick_extent){ .lba = lba, .blocks = n };
		sf->extents[i] = (struct stick_extent){ .lba = lba, .blocks = n };
		lba += n + gap;
	}
	bs.disk_blocks = lba + 2048;
	fake_stick_reset(bs.disk_blocks, block_size, 0xA5); /* not zero: what the sink leaves shows */
	return bs;
}

/* ------------------------------------------------------------ reading */

bool gen_next_frame(const uint8_t *log, size_t len, size_t *at, const uint8_t **frame_out, uint32_t *frame_len)
{
	while (*at + KPROF_FRAME_HEADER_SIZE <= len) {
		const uint8_t *m = memchr(log + *at, 0xFE, len - *at);
		if (!m)
			break;
		*at = (size_t)(m - log);
		struct kprof_frame_header h;
		if (*at + sizeof(h) > len)
			break;
		memcpy(&h, m, sizeof(h));
		if (h.magic != KPROF_FRAME_MAGIC || *at + sizeof(h) + h.length > len) {
			(*at)++;
			continue;
		}
		*frame_out = m;
		*frame_len = (uint32_t)(sizeof(h) + h.length);
		*at += *frame_len;
		return true;
	}
	return false;
}

static uint64_t json_u64(const char *json, const char *after, const char *key)
{
	const char *p = after ? strstr(json, after) : json;
	p = p ? strstr(p, key) : NULL;
	return p ? strtoull(p + strlen(key), NULL, 10) : UINT64_MAX;
}

bool gen_kprof_check(const uint8_t *log, size_t len, struct kprof_verdict *v)
{
	char logp[] = "/tmp/traceout-log-XXXXXX", jsonp[] = "/tmp/traceout-json-XXXXXX", errp[] = "/tmp/traceout-err-XXXXXX";
	char outp[] = "/tmp/traceout-out-XXXXXX", cmd[640], json[65536], line[1024];
	int fd;

	memset(v, 0, sizeof(*v));
	if (access(KPROF_TOOL_PATH, X_OK)) {
		printf("skipped: the host tool %s is not built (make %s), so the bytes are not decoded\n", KPROF_TOOL_PATH,
		       KPROF_TOOL_PATH);
		return false;
	}
	if ((fd = mkstemp(logp)) < 0 || write(fd, log, len) != (ssize_t)len || close(fd))
		abort();
	if ((fd = mkstemp(jsonp)) < 0 || close(fd) || (fd = mkstemp(errp)) < 0 || close(fd) || (fd = mkstemp(outp)) < 0 ||
	    close(fd))
		abort();
	snprintf(cmd, sizeof(cmd), "%s decode --json -o %s --summary-json %s %s 2>%s", KPROF_TOOL_PATH, outp, jsonp, logp,
		 errp);
	int rc = system(cmd);
	v->status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
	FILE *f = fopen(jsonp, "r");
	size_t n = f ? fread(json, 1, sizeof(json) - 1, f) : 0;
	json[n] = '\0';
	if (f)
		fclose(f);
	f = fopen(errp, "r");
	n = f ? fread(v->summary, 1, sizeof(v->summary) - 1, f) : 0;
	v->summary[n] = '\0';
	if (f)
		fclose(f);
	/* The loss lines among the decoded records. */
	f = fopen(outp, "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "\"loss\":") && strlen(v->losses) + strlen(line) < sizeof(v->losses))
			strcat(v->losses, line);
	if (f)
		fclose(f);
	unlink(outp);
	unlink(logp);
	unlink(jsonp);
	unlink(errp);
	v->records = json_u64(json, NULL, "\"records\":");
	v->lost_file = json_u64(json, "\"file_form\":", "\"lost_file\":");
	v->lost_link = json_u64(json, "\"run_info\":", "\"lost_link\":");
	v->file_form = strstr(json, "\"file_form\":true") != NULL;
	v->fill_bytes = json_u64(json, NULL, "\"fill_bytes\":");
	for (const char *p = json; (p = strstr(p, "\"kind\":")); p++)
		v->issues++;
	return true;
}

/* ------------------------------------------------------------ probe */

uint32_t gen_trace_out;
char probe_refusal[1024];
unsigned probe_refusals;

void cmdline_refuse_at_probe(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(probe_refusal, sizeof(probe_refusal), fmt, ap);
	va_end(ap);
	probe_refusals++;
}

void gen_test_reset(uint32_t trace_out_sel)
{
	fake_ram_init();
	serial_reset();
	shadow_console[0] = '\0';
	probe_refusal[0] = '\0';
	probe_refusals = 0;
	gen_trace_out = trace_out_sel;
}

void gen_open(uint32_t trace_out_sel, const struct bootinfo_stick *bs, uint32_t ncpu)
{
	gen_test_reset(trace_out_sel);
	trace_out_configure(bs, ncpu, trace_out_sel);
	trace_out_start(ncpu);
}

void gen_whole_run(struct gen *g, uint32_t trace_out_sel, const struct bootinfo_stick *bs, uint32_t ncpu,
		   uint64_t bytes, uint32_t payload)
{
	gen_open(trace_out_sel, bs, ncpu);
	gen_run(g, ncpu, bytes, payload);
	gen_finish(g);
}

uint8_t *gen_read_file(const struct stick_file *sf)
{
	uint8_t *b = malloc(sf->file_bytes);
	fake_stick_read_file(sf, b);
	return b;
}

void gen_assert_file_whole(const struct stick_file *sf, const struct gen *g)
{
	uint8_t *file = gen_read_file(sf);
	struct kprof_verdict v;
	if (gen_kprof_check(file, sf->file_bytes, &v)) {
		assert_int_equal(v.status, 0);
		assert_int_equal(v.records, gen_records(g));
		assert_int_equal(v.issues, 0);
	}
	free(file);
}
