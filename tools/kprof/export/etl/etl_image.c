/*
 * etl_image.c - KernelTraceControl's ImageID and DbgID_RSDS events for the
 * kernel image, so WPA, xperf and TraceEvent find its PDB (pdb.h).
 *
 * Windows' kernel logger does not write these: xperf adds them when it
 * merges a trace (KernelTraceControl.dll, CreateMergedTraceFile), one
 * pair per image, each with exactly the time stamp of that image's Image
 * load / DCStart event, which is how readers pair them.  They are classic
 * events: an EVENT_TRACE_HEADER (HeaderType FULL_HEADER64 0x14, flags
 * 0xC0) whose Guid is the ImageID event class
 * b3e675d7-2554-4f18-830b-2762732560de and whose Class.Type is the opcode.
 * Payloads, x64 (field order from TraceEvent's SymbolTraceEventParser,
 * microsoft/perfview, the KernelTraceControl parser):
 *
 *   ImageID (opcode 0x00)      0x00 ImageBase u64 · 0x08 ImageSize u64 ·
 *                              0x10 ProcessId u32 · 0x14 TimeDateStamp u32 ·
 *                              0x18 OriginalFileName, UTF-16LE, NUL
 *   DbgID_RSDS (opcode 0x24)   0x00 ImageBase u64 · 0x08 ProcessId u32 ·
 *                              0x0C GUID (16) · 0x1C Age u32 ·
 *                              0x20 PdbFileName, 8-bit, NUL
 *
 * Choices: ProcessId 0 in header and payloads (the kernel image belongs
 * to the System/idle process; TraceEvent calls ImageID's field "always
 * 0"), ThreadId 0, Level 0, Class.Version 2 (not checked against a real
 * merged file: no reader here looks at it), KernelTime/UserTime 0.
 */
#include "tools/kprof/export/etl/etl_image.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tools/kprof/kprof.h"

/* b3e675d7-2554-4f18-830b-2762732560de as stored (Data1..3 little-endian). */
static const uint8_t image_id_guid[16] = { 0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
					   0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde };

#define IMAGEID_FIXED 0x18u
#define RSDS_FIXED 0x20u
#define IMAGE_EVENT_VERSION 2u

_Static_assert(sizeof(struct event_trace_header) == 0x30, "EVENT_TRACE_HEADER is 0x30 bytes");
_Static_assert(offsetof(struct event_trace_header, Type) == 0x04, "Class.Type at 0x04");
_Static_assert(offsetof(struct event_trace_header, TimeStamp) == 0x10, "TimeStamp at 0x10");
_Static_assert(offsetof(struct event_trace_header, Guid) == 0x18, "Guid at 0x18");

static void put_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put_u64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static uint32_t image_id_size(const struct kp_pdb_identity *id)
{
	uint16_t name[KP_PDB_NAME_MAX];

	return sizeof(struct event_trace_header) + IMAGEID_FIXED +
	       (uint32_t)(etl_utf16(id->image_name, name, KP_PDB_NAME_MAX) * 2);
}

static uint32_t rsds_size(const struct kp_pdb_identity *id)
{
	return sizeof(struct event_trace_header) + RSDS_FIXED + (uint32_t)strlen(id->pdb_name) + 1;
}

uint32_t etl_image_events_size(const struct kp_pdb_identity *id)
{
	return ETL_ALIGN_UP(image_id_size(id)) + ETL_ALIGN_UP(rsds_size(id));
}

static void header(uint8_t *ev, uint32_t size, uint8_t opcode, uint64_t ts)
{
	struct event_trace_header h = {
		.Size = (uint16_t)size,
		.HeaderType = TRACE_HEADER_TYPE_FULL_HEADER64,
		.MarkerFlags = TRACE_HEADER_MARKER_FLAGS,
		.Type = opcode,
		.Version = IMAGE_EVENT_VERSION,
		.TimeStamp = ts,
	};
	memcpy(h.Guid, image_id_guid, sizeof(h.Guid));
	memcpy(ev, &h, sizeof(h));
}

void etl_image_rundown(const struct kp_pdb_identity *id, struct etl_queue *q, uint64_t ts)
{
	uint8_t ev[sizeof(struct event_trace_header) + RSDS_FIXED + 2 * KP_PDB_NAME_MAX + 2 + 8] = { 0 };
	uint8_t *p = ev + sizeof(struct event_trace_header);
	uint16_t name[KP_PDB_NAME_MAX];

	if (!id)
		return; /* no --kernel, or no PDB could be made */
	uint32_t size = image_id_size(id);
	header(ev, size, DBGID_LOG_TYPE_IMAGEID, ts);
	put_u64(p + 0x00, id->image_base);
	put_u64(p + 0x08, id->image_size);
	put_u32(p + 0x10, 0);
	put_u32(p + 0x14, id->timestamp);
	memcpy(p + IMAGEID_FIXED, name, 2 * etl_utf16(id->image_name, name, KP_PDB_NAME_MAX));
	etl_queue_push(q, ev, ETL_ALIGN_UP(size)); /* zero padded to 8, as every queued event */

	memset(ev, 0, sizeof(ev));
	size = rsds_size(id);
	header(ev, size, DBGID_LOG_TYPE_RSDS, ts);
	put_u64(p + 0x00, id->image_base);
	put_u32(p + 0x08, 0);
	memcpy(p + 0x0C, id->guid, 16);
	put_u32(p + 0x1C, id->age);
	memcpy(p + RSDS_FIXED, id->pdb_name, strlen(id->pdb_name) + 1);
	etl_queue_push(q, ev, ETL_ALIGN_UP(size)); /* zero padded to 8, as every queued event */
}

int etl_image_prepare(const struct kp_options *o, struct kp_pdb_identity *id)
{
	const char *slash = strrchr(o->output, '/'), *name = strrchr(o->kernel, '/');
	char pdb[4096], why[512];
	size_t stem;

	name = name ? name + 1 : o->kernel;
	stem = strrchr(name, '.') && strrchr(name, '.') != name ? (size_t)(strrchr(name, '.') - name) : strlen(name);
	snprintf(pdb, sizeof(pdb), "%.*s%.*s.pdb", slash ? (int)(slash - o->output + 1) : 0, o->output, (int)stem,
		 name);
	if (!kp_pdb_write(o->kernel, pdb, id, why, sizeof(why))) {
		fprintf(stderr, "kprof: warning: no PDB written, so the ETL names no symbols for the kernel: %s\n",
			why);
		return 0;
	}
	if (!o->quiet)
		fprintf(stderr, "kprof: wrote %s (%s, GUID+age %08X%04X%04X%02X%02X%02X%02X%02X%02X%02X%02X%X)\n",
			pdb, id->pdb_name, (unsigned)(id->guid[0] | id->guid[1] << 8 | id->guid[2] << 16 |
						      (uint32_t)id->guid[3] << 24),
			(unsigned)(id->guid[4] | id->guid[5] << 8), (unsigned)(id->guid[6] | id->guid[7] << 8),
			id->guid[8], id->guid[9], id->guid[10], id->guid[11], id->guid[12], id->guid[13], id->guid[14],
			id->guid[15], id->age);
	return 1;
}
