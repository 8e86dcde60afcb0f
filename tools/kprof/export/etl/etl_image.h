/*
 * etl_image.h - the kernel image's symbol identity in the ETL:
 * KernelTraceControl ImageID and DbgID_RSDS events (etl_image.c).
 */
#ifndef KPROF_TOOL_ETL_IMAGE_H
#define KPROF_TOOL_ETL_IMAGE_H

#include <stdint.h>

#include "tools/kprof/export/etl/etl.h"
#include "tools/kprof/export/etl/pdb.h"

/* EVENT_TRACE_HEADER, x64 (the classic "full" header), 0x30 bytes. */
struct event_trace_header {
	uint16_t Size;               /* header + payload                       */
	uint8_t HeaderType;          /* TRACE_HEADER_TYPE_FULL_HEADER64        */
	uint8_t MarkerFlags;         /* TRACE_HEADER_FLAG | EVENT_TRACE >> 24  */
	uint8_t Type;                /* Class.Type: the opcode                 */
	uint8_t Level;               /* Class.Level                            */
	uint16_t Version;            /* Class.Version                          */
	uint32_t ThreadId;
	uint32_t ProcessId;
	uint64_t TimeStamp;          /* the logger's clock                     */
	uint8_t Guid[16];            /* the event class (task) GUID            */
	uint32_t KernelTime;
	uint32_t UserTime;
} __attribute__((packed));

#define TRACE_HEADER_TYPE_FULL_HEADER64 0x14u
#define TRACE_HEADER_MARKER_FLAGS 0xC0u
#define DBGID_LOG_TYPE_IMAGEID 0x00u
#define DBGID_LOG_TYPE_RSDS 0x24u

/* The two events' sizes, header included (not yet 8-byte aligned). */
uint32_t etl_image_events_size(const struct kp_pdb_identity *id);

/* ImageID then DbgID_RSDS of the PDB's image, both at time stamp ts (the
 * Image DCStart's, so readers pair them): etl_rundown.c queues them right
 * after Image DCStart; nothing when id is NULL (no --kernel, or no PDB
 * could be made). */
void etl_image_rundown(const struct kp_pdb_identity *id, struct etl_queue *q, uint64_t ts);

/* `kprof etl --kernel ELF` (an ELF etl.c has checked against the log, as
 * every --kernel is): write its PDB next to the ETL (the ELF's name with
 * .pdb, e.g. build/run/kernel.pdb for build/run/trace.etl).  1 with *id
 * filled; 0 when no PDB could be made (warned on stderr: the ETL is still
 * written, without image events). */
struct kp_options;
int etl_image_prepare(const struct kp_options *o, struct kp_pdb_identity *id);

#endif
