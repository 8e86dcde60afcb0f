/*
 * log.c - the frame scanner (the wire format is in include/kprof/wire.h
 * and docs/wire-format.md).
 *
 * Scan: find the next 0xFE byte; if the four magic bytes follow and the
 * 24-byte header's CRC holds, it is a frame header.  A header whose payload
 * would run past the end of the log is a truncated frame.  A payload whose
 * CRC fails is a corrupt frame: its length is not trusted and the scan goes
 * on right after the header, so a frame whose tail was lost still lets the
 * next one be found.  Bytes outside frames are console text, except NULs:
 * the zero fill after the stream in a trace file from the USB stick.
 *
 * A run of damaged headers past the first few is one issue (damaged_header).
 *
 * Each valid frame goes to frames.c (its run, its sequence number, what
 * its kind adds), its buffers and chunks to store.c (kept per CPU in
 * linear time whatever their order), and once the whole log is in,
 * finish.c places the gaps in time and checks what must agree across
 * frames.  Reading (kp_log_read) takes a regular file, a pipe or a
 * character device of at most KP_LOG_LIMIT_MB.
 *
 * Cost: time linear in the log's bytes (every byte is looked at a bounded
 * number of times; late chunks cost one sort at the end), memory a
 * bounded number of bytes per byte of log (docs/trace-and-tool.md).
 */
#include "tools/kprof/read/log.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zlib.h>
#include <unistd.h>

#include "tools/kprof/read/frames.h"
#include "tools/kprof/read/store.h"
#include "tools/kprof/read/user_types.h"
#include "tools/kprof/util/alloc.h"


static const char *const kind_names[KP_ISSUE_KINDS] = {
	[KP_ISSUE_CORRUPT] = "corrupt",       [KP_ISSUE_BAD_HEADER] = "bad-header",
	[KP_ISSUE_TRUNCATED] = "truncated",   [KP_ISSUE_MISSING] = "missing",
	[KP_ISSUE_DUPLICATE] = "duplicate",   [KP_ISSUE_BAD_RECORD] = "bad-record",
	[KP_ISSUE_INCOMPLETE] = "incomplete", [KP_ISSUE_OTHER_RUN] = "other-run",
	[KP_ISSUE_LOSS_MISMATCH] = "loss-mismatch", [KP_ISSUE_USER_TYPE] = "user-type", [KP_ISSUE_TIME_BACK] = "time-back",
};

const char *kp_issue_kind_name(enum kp_issue_kind kind)
{
	return kind < KP_ISSUE_KINDS ? kind_names[kind] : "?";
}

/* The issue of a run of damaged headers says how many, once the run ends. */
static void close_damage_run(struct kp_log *log)
{
	if (log->damage_count > 1 && log->damage_run == log->nissues) {
		struct kp_issue *is = &log->issues[log->nissues - 1];
		snprintf(is->what, sizeof(is->what),
			 "%llu damaged frame headers from offset %llu to %llu (header CRC, version or length wrong)",
			 (unsigned long long)log->damage_count, (unsigned long long)is->offset,
			 (unsigned long long)log->damage_last);
	}
	log->damage_run = 0;
	log->damage_count = 0;
}

void kp_issue_add(struct kp_log *log, enum kp_issue_kind kind, uint64_t offset, uint32_t cpu, uint32_t first,
		  uint32_t last, const char *fmt, ...)
{
	close_damage_run(log);
	log->issues = kp_grow(log->issues, &log->issues_cap, log->nissues + 1, sizeof(*log->issues));
	struct kp_issue *is = &log->issues[log->nissues++];
	*is = (struct kp_issue){ .kind = kind, .offset = offset, .cpu = cpu, .seq_first = first, .seq_last = last };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(is->what, sizeof(is->what), fmt, ap);
	va_end(ap);
}

/* Bytes outside frames, less their NULs: console text never holds one,
 * and a trace file from the USB stick is the stream followed by the zero
 * fill of its unused space (docs/usb-stick.md), which is neither text nor
 * damage.  A zero run is skipped a word at a time: the fill may be
 * hundreds of MiB. */
static void console_append(struct kp_log *log, const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;

	while (p < end) {
		const uint8_t *z = memchr(p, 0, (size_t)(end - p));
		size_t k = (size_t)((z ? z : end) - p);

		memcpy(log->console + log->console_len, p, k);
		log->console_len += k;
		if (!z)
			break;
		p = z;
		while (p < end && ((uintptr_t)p & 7) && !*p)
			p++;
		while (end - p >= 8) {
			uint64_t w;
			memcpy(&w, p, sizeof(w));
			if (w)
				break;
			p += 8;
		}
		while (p < end && !*p)
			p++;
	}
	log->console[log->console_len] = '\0';
}

/* A damaged frame header at pos.  The first KP_DAMAGE_SEPARATE are each
 * an issue; after that a run of them with nothing else reported between
 * (bytes that merely look like frame magic, over and over) is one issue,
 * so damage costs a bounded amount of memory however dense it is. */
#define KP_DAMAGE_SEPARATE 64
static void damaged_header(struct kp_log *log, size_t pos)
{
	if (++log->damaged_headers > KP_DAMAGE_SEPARATE && log->nissues && log->damage_run == log->nissues) {
		log->damage_count++;
		log->damage_last = pos;
		return;
	}
	kp_issue_add(log, KP_ISSUE_BAD_HEADER, pos, KPROF_FRAME_CPU_NONE, 0, 0,
		     "damaged frame header at offset %zu (header CRC, version or length wrong)", pos);
	log->damage_run = log->nissues;
	log->damage_count = 1;
}

/* A frame's CRC-32 (the kernel's kernel/lib/codec/crc32.c: IEEE 802.3,
 * reflected, inverted in and out; tests/unit/kernel/trace/test_tracebuf.c
 * holds the two equal): zlib's crc32() is the same function, and the
 * kernel's table a byte at a time took about 60% of `kprof check`'s user
 * time (2.6 s against 1.1 on 20 M records).  n is at most a frame's 1 MiB. */
static uint32_t frame_crc(const void *p, size_t n)
{
	return (uint32_t)crc32(0, p, (uInt)n);
}

static void scan(struct kp_log *log, uint8_t *bytes, size_t size, bool mapped)
{
	memset(log, 0, sizeof(*log));
	log->bytes = bytes;
	log->size = size;
	kp_kept_plan(log, size);
	log->mapped = mapped;
	size_t release_at = KP_LOG_RELEASE_BYTES;
	log->console = kp_xrealloc(NULL, size + 1, 1);
	log->console[0] = '\0';

	size_t pos = 0, text_from = 0;
	while (pos < size) {
		if (pos >= release_at) {
			kp_log_release(log);
			release_at = pos + KP_LOG_RELEASE_BYTES;
		}
		uint8_t *m = memchr(bytes + pos, 0xFE, size - pos);
		if (!m)
			break;
		pos = (size_t)(m - bytes);
		struct kprof_frame_header h;
		size_t avail = size - pos < 4 ? size - pos : 4;
		if (memcmp(m, "\xFE" "KPF", avail) != 0) {
			pos++;
			continue;
		}
		if (size - pos < sizeof(h)) {
			console_append(log, bytes + text_from, pos - text_from);
			kp_issue_add(log, KP_ISSUE_TRUNCATED, pos, KPROF_FRAME_CPU_NONE, 0, 0,
				     "the log ends inside a frame header at offset %zu", pos);
			text_from = pos = size;
			break;
		}
		memcpy(&h, m, sizeof(h));
		if (frame_crc(&h, 20) != h.header_crc ||
		    (h.version != KPROF_FRAME_VERSION && h.version != KPROF_FRAME_VERSION_1) ||
		    h.length > KPROF_FRAME_MAX_PAYLOAD || (h.cpu >= KP_MAX_CPUS && h.cpu != KPROF_FRAME_CPU_NONE)) {
			damaged_header(log, pos);
			pos++;
			continue;
		}
		console_append(log, bytes + text_from, pos - text_from);
		if (size - pos - sizeof(h) < h.length) {
			/* Cut short: by the end of the log, or bytes lost inside it.
			 * Either way, frames after it may still be whole. */
			kp_issue_add(log, KP_ISSUE_TRUNCATED, pos, h.cpu, h.seq, h.seq,
				     "frame %u of %s %u at offset %zu: %u payload bytes, the log ends after %zu", h.seq,
				     h.cpu == KPROF_FRAME_CPU_NONE ? "run" : "cpu", h.cpu == KPROF_FRAME_CPU_NONE ? 0 : h.cpu,
				     pos, h.length, size - pos - sizeof(h));
			text_from = pos = pos + sizeof(h);
			continue;
		}
		const uint8_t *payload = m + sizeof(h);
		if (frame_crc(payload, h.length) != h.payload_crc) {
			kp_issue_add(log, KP_ISSUE_CORRUPT, pos, h.cpu, h.seq, h.seq,
				     "frame %u of %s %u at offset %zu: payload CRC mismatch, frame dropped", h.seq,
				     h.cpu == KPROF_FRAME_CPU_NONE ? "run" : "cpu", h.cpu == KPROF_FRAME_CPU_NONE ? 0 : h.cpu,
				     pos);
			text_from = pos = pos + sizeof(h);
			continue;
		}
		close_damage_run(log); /* a frame ends a run of damage */
		kp_take_frame(log, &h, payload, pos);
		text_from = pos = pos + sizeof(h) + h.length;
		if (log->have_run_file_tail) {
			/* A trace file's run end: what follows is its fill. */
			log->fill_bytes = size - pos;
			text_from = pos = size;
			break;
		}
	}
	if (text_from < size)
		console_append(log, bytes + text_from, size - text_from);
	close_damage_run(log);
	kp_log_finish(log);
	kp_drops_find(log);
	kp_user_types_find(log);
	kp_kept_settle(log);
}

void kp_log_scan(struct kp_log *log, uint8_t *bytes, size_t size)
{
	scan(log, bytes, size, false);
}

/* The most a log may be: KPROF_LOG_LIMIT_MB in the environment, else
 * KP_LOG_LIMIT_MB (a trace file is under 4 GiB, docs/usb-stick.md); read
 * once. */
static uint64_t log_limit(void)
{
	static uint64_t bytes;

	if (!bytes)
		bytes = (uint64_t)kp_env_number("KPROF_LOG_LIMIT_MB", KP_LOG_LIMIT_MB, 1, KP_LOG_LIMIT_MB) << 20;
	return bytes;
}

/* What can be read: a regular file (of at most the limit), a pipe or a
 * character device (read up to the limit); 0, or an errno. */
static int check_input(FILE *f, uint64_t limit, size_t *cap)
{
	struct stat st;

	if (fstat(fileno(f), &st))
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (S_ISREG(st.st_mode)) {
		if ((uint64_t)st.st_size > limit)
			return EFBIG;
		*cap = (size_t)st.st_size + 1; /* + 1: the read that sees end of file */
		return 0;
	}
	return S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) ? 0 : ENODEV;
}

/* A mapped log that another program truncates while it is read: a page
 * past its new end raises SIGBUS on the next read.  Said plainly, naming
 * the log whose mapping the fault hit (a command may map several), with
 * exit status 3 (an input that could not be read), not a crash.  The
 * handler only looks up its table and writes (async-signal-safe). */
#define MAPPED_MAX 64
static struct {
	const uint8_t *base;
	size_t size;
	char path[512];
} mapped[MAPPED_MAX];
static volatile sig_atomic_t nmapped;

static void say(const char *s)
{
	ssize_t w = write(STDERR_FILENO, s, strlen(s));
	(void)w;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	const uint8_t *at = si ? si->si_addr : NULL;
	const char *path = "a log";

	(void)sig;
	(void)uc;
	for (int i = 0; i < nmapped; i++)
		if (at >= mapped[i].base && at < mapped[i].base + mapped[i].size)
			path = mapped[i].path;
	say("kprof: ");
	say(path);
	say(": the log got shorter while it was read (another program truncated or is rewriting it); what was "
	    "written from it is incomplete: read a copy that is not being written\n");
	_exit(3);
}

static void catch_truncation(const uint8_t *base, size_t size, const char *path)
{
	struct sigaction sa;

	if (nmapped < MAPPED_MAX) {
		mapped[nmapped].base = base;
		mapped[nmapped].size = size;
		snprintf(mapped[nmapped].path, sizeof(mapped[nmapped].path), "%s", path);
		nmapped++;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
}

/* A regular file is mapped read-only (kp_log_release gives its pages back
 * as they are walked); NULL if it cannot be (empty, or mmap refused). */
static uint8_t *map_file(FILE *f, size_t size, const char *path)
{
	if (!size)
		return NULL;
	void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
	if (p == MAP_FAILED)
		return NULL;
	catch_truncation(p, size, path);
	return p;
}

void kp_log_release(struct kp_log *log)
{
	if (log->mapped)
		madvise(log->bytes, log->size, MADV_DONTNEED);
}

int kp_log_read(const char *path, struct kp_log *log)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	/* Sized from the file when it is one (a trace file from the stick is
	 * hundreds of MiB), grown otherwise (a pipe), never past the limit. */
	uint64_t limit = log_limit();
	size_t cap = 1 << 20, len = 0, n;
	int err = check_input(f, limit, &cap);
	struct stat st;
	uint8_t *map = !err && !fstat(fileno(f), &st) && S_ISREG(st.st_mode) ? map_file(f, (size_t)st.st_size, path) : NULL;
	if (map) {
		fclose(f);
		scan(log, map, (size_t)st.st_size, true);
		return 0;
	}
	uint8_t *buf = err ? NULL : kp_xrealloc(NULL, cap, 1);
	while (!err && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len > limit)
			err = EFBIG;
		else if (len == cap)
			buf = kp_xrealloc(buf, cap = cap * 2 > limit + 1 ? (size_t)limit + 1 : cap * 2, 1);
	}
	if (!err && ferror(f))
		err = EIO;
	fclose(f);
	if (err) {
		free(buf);
		errno = err;
		return -1;
	}
	kp_log_scan(log, buf, len);
	return 0;
}

const char *kp_log_read_error(int err, char *buf, size_t size)
{
	if (err == EISDIR)
		return "a directory: give a serial log or a trace file (a regular file, a pipe or a character device)";
	if (err == ENODEV)
		return "not a regular file, a pipe or a character device (a serial log or a trace file is one of these)";
	if (err == EFBIG) {
		snprintf(buf, size, "more than the %llu MiB a log may be (KPROF_LOG_LIMIT_MB sets a lower limit)",
			 (unsigned long long)(log_limit() >> 20));
		return buf;
	}
	return strerror(err);
}

void kp_log_free(struct kp_log *log)
{
	for (uint32_t i = 0; i < log->ncpus; i++)
		kp_store_free(&log->cpus[i]);
	free(log->cpus);
	for (size_t i = 0; i < log->nkept; i++)
		free(log->kept[i]);
	free(log->kept);
	free(log->kept_offset);
	kp_index_free(&log->kept_ix);
	kp_chunk_ring_free(log);
	free(log->issues);
	free(log->gaps);
	free(log->drops);
	free(log->drop_index);
	free(log->console);
	kp_user_types_free(log);
	if (log->mapped)
		munmap(log->bytes, log->size);
	else
		free(log->bytes);
	memset(log, 0, sizeof(*log));
}
