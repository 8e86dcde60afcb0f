/*
 * ctf.c - `kprof ctf LOG -o DIR`: the records as a CTF 1.8 trace, for
 * babeltrace2, Trace Compass and other CTF readers.
 *
 *   DIR/metadata    TSDL text, generated from read/fields.c's kp_events[]
 *   DIR/stream_N    CPU N's records, one stream per CPU
 *
 * Metadata.  One trace (little-endian, a UUID hashed from the log's bytes
 * so the same log always gives the same trace), one clock "tsc" ticking at
 * the run header's tsc_hz, one stream class, and one event class per
 * kp_events[] entry, its id the entry's index, plus "Unknown" (id
 * kp_nevents) for records the table does not describe (or too short for
 * their description), carrying hook, version and the payload bytes.  The
 * event classes are written from the table, field by field, so a field
 * added there shows up here without touching this file.
 *
 * Clock.  Event timestamps are the records' raw TimeStamp (TSC) values.
 * When the run header knows the wall clock at start (boot_unix_s, RTC
 * seconds), the clock's offset places start_tsc at boot_unix_s:
 * origin = boot_unix_s - start_tsc / tsc_hz, split into whole seconds
 * (offset_s) and a non-negative number of cycles (offset).  Otherwise the
 * offset is 0 and times read as seconds of TSC since reset.  The clock is
 * not absolute: the RTC has one-second resolution and a guest's RTC is
 * whatever the host says.  Without a run header there is no frequency:
 * the clock runs at 1 GHz, i.e. one tick reads as one nanosecond.
 *
 * Payloads.  An event's fields are written by value, not copied: each
 * table field is written as kp_field_value() returns it, the value the
 * decoder prints, so babeltrace2 and `kprof decode` cannot disagree.
 *   - integers keep their size and signedness, byte-aligned (align = 8:
 *     events are packed, no padding between fields);
 *   - KP_POINTER and KP_HEX fields are printed in base 16;
 *   - KP_BITS fields are integers of their bit width with align = 1:
 *     consecutive bit fields pack LSB-first (CTF little-endian bit order),
 *     and the next byte-sized field starts at the next byte;
 *   - fields with value names are CTF enumerations over that integer
 *     (babeltrace2 prints the label; a value without a name prints as
 *     "<unknown>" with its number).  Names given only through
 *     kp_field_value_name()'s special cases (nnames == 0, Resource.Action)
 *     cannot be listed, so those stay plain integers;
 *   - bytes the table does not name (Reserved, padding) are left out;
 *   - a tail becomes a sequence: a uint32 "<Tail>_count" field, then that
 *     many u64 addresses (base 16) or bytes (base 16).
 * Field names are written with a leading underscore, which CTF readers
 * strip (CTF 1.8 section 7.3.2), so no table name can clash with a TSDL
 * keyword.
 *
 * Streams and packets.  Per CPU, records go out in the cursor's order,
 * which is time order as CTF needs within a stream: the cursor never lets
 * a CPU's stamps go back (a log of an older kernel that did: the record
 * gets the stamp before it, read/records.h), so nothing is re-sorted.  Packets are 64 KiB (an event bigger than that
 * gets a packet of its own size); packet_size and content_size are in
 * bits, the rest of a packet is zeros, and the last packet of a stream is
 * cut at its content.  timestamp_begin/end are the packet's first and last
 * event times.  events_discarded is a running count, as CTF wants.
 * babeltrace2 reports a discarded count when it changes between two
 * packets, over the time from the end of the first to the end of the
 * second (a first packet's count reads as "may have discarded events"), so
 * losses go in empty packets of their own:
 *   - before each KprofRecordsLost record that places drops of the kernel
 *     (read/drops.c), the packet so far is closed (cut at its content) and
 *     an empty one from its last event to the KprofRecordsLost record's
 *     time adds the drops: babeltrace2 warns "discarded N events between
 *     [the record before] and [the KprofRecordsLost record]";
 *   - the rest of the CPU end frame's lost records (all causes: the drops
 *     after the CPU's last record, or in an old log all of them, which it
 *     does not place) plus its stuck (reserved, never committed) records
 *     end the stream in an empty packet from the last record to the run
 *     end frame's TSC.
 * A CPU without records gets an empty packet (and the losses packet after
 * it).
 *
 * --lttng.  The same streams and losses in LTTng's kernel conventions
 * (ctf_lttng.c: sched_switch, sched_wakeup, the state dump, forks): the
 * environment, clock name ("monotonic"), packet header and context
 * (stream_instance_id, packet_seq_num) and event header
 * (event_header_large, ctf_shared.h) of lttng-modules' metadata; the table's
 * classes for the records it does not translate.
 *
 * DIR is created as by mkdir -p.  It may hold an earlier kprof trace (its
 * metadata says tracer_name "kprof", or written_by "kprof ctf --lttng"),
 * whose stream files are removed first (the CPU count may differ), and
 * hidden files, which CTF readers skip; anything else is refused, since a
 * CTF reader would take it for a stream.
 */
#include "tools/kprof/export/ctf/ctf_shared.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/kprof/kprof.h"
#include "tools/kprof/util/alloc.h"

/* ------------------------------------------------------------ directory */

/* A deterministic UUID from the log's bytes (two FNV-1a 64 hashes),
 * marked as an RFC 9562 version 8 (custom) UUID. */
static void trace_uuid(struct kp_log *log, uint8_t uuid[16])
{
	uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;

	for (size_t i = 0; i < log->size; i++) {
		h1 = (h1 ^ log->bytes[i]) * 0x100000001b3ull;
		h2 = (h2 ^ log->bytes[i] ^ 0x5a) * 0x100000001b3ull;
		if (!((i + 1) % KP_LOG_RELEASE_BYTES))
			kp_log_release(log); /* a bounded part of a mapped log */
	}
	h2 ^= h1 >> 29;
	for (int i = 0; i < 8; i++) {
		uuid[i] = (uint8_t)(h1 >> (56 - 8 * i));
		uuid[8 + i] = (uint8_t)(h2 >> (56 - 8 * i));
	}
	uuid[6] = (uuid[6] & 0x0f) | 0x80;
	uuid[8] = (uuid[8] & 0x3f) | 0x80;
}

/* mkdir -p; then DIR must be a directory. */
static int make_dir(const char *dir)
{
	char *p = kp_xstrdup(dir);
	struct stat st;

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) && errno != EEXIST) {
			fprintf(stderr, "kprof: cannot create directory %s: %s\n", p, strerror(errno));
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "kprof: cannot create directory %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st)) {
		fprintf(stderr, "kprof: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "kprof: %s exists and is not a directory\n", dir);
		return -1;
	}
	return 0;
}

static bool is_stream_name(const char *name)
{
	if (strncmp(name, "stream_", 7) || !name[7])
		return false;
	for (const char *s = name + 7; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Is DIR/metadata one that kprof wrote? */
static bool is_kprof_metadata(const char *dir)
{
	char path[4096], head[2048];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	head[n] = '\0';
	return !strncmp(head, "/* CTF 1.8 */", 13) &&
	       (strstr(head, "tracer_name = \"kprof\";") || strstr(head, "written_by = \"kprof ctf --lttng\";"));
}

/* DIR may hold nothing but an earlier kprof trace (hidden files, which CTF
 * readers skip, are left alone): anything else would be read as a stream
 * or clobbered.  The old stream files go, a CPU count may have changed. */
static int clear_dir(const char *dir)
{
	DIR *d;
	struct dirent *de;
	int pass, bad = 0;

	for (pass = 0; pass < 2 && !bad; pass++) {
		d = opendir(dir);
		if (!d) {
			fprintf(stderr, "kprof: %s: %s\n", dir, strerror(errno));
			return -1;
		}
		while ((de = readdir(d))) {
			char path[4096];
			if (de->d_name[0] == '.')
				continue;
			if (!strcmp(de->d_name, "metadata")) {
				if (!pass && !is_kprof_metadata(dir)) {
					fprintf(stderr, "kprof: %s/metadata is not kprof's; not writing a trace there\n",
						dir);
					bad = 1;
				}
				continue;
			}
			if (!is_stream_name(de->d_name)) {
				fprintf(stderr, "kprof: %s holds %s, which is not part of a kprof trace; "
						"give a new or empty directory\n", dir, de->d_name);
				bad = 1;
				break;
			}
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (pass && unlink(path)) {
				fprintf(stderr, "kprof: cannot remove %s: %s\n", path, strerror(errno));
				bad = 1;
			}
		}
		closedir(d);
	}
	return bad ? -1 : 0;
}

int kp_cmd_ctf(struct kp_log *log, const struct kp_options *o)
{
	const char *dir = o->output;
	char path[4096];
	uint8_t uuid[16];
	struct bitbuf ev = { 0 };
	struct ctf_lttng *lt = NULL;
	int err = 0;

	if (strlen(dir) > sizeof(path) - 32) {
		fprintf(stderr, "kprof: %s: path too long\n", dir);
		return 3;
	}
	if (make_dir(dir) || clear_dir(dir))
		return 3;
	trace_uuid(log, uuid);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (ctf_write_metadata(path, log, uuid, o->lttng)) {
		fprintf(stderr, "kprof: cannot write %s: %s\n", path, strerror(errno));
		return 3;
	}
	if (o->lttng)
		lt = ctf_lttng_new(log);
	for (uint32_t cpu = 0; cpu < log->ncpus && !err; cpu++) {
		snprintf(path, sizeof(path), "%s/stream_%u", dir, cpu);
		err = ctf_write_stream(path, log, cpu, uuid, &ev, lt);
		if (err)
			fprintf(stderr, "kprof: cannot write %s: %s\n", path, strerror(err));
	}
	ctf_lttng_free(lt);
	free(ev.p);
	return err ? 3 : kp_summary(log, o, dir);
}

