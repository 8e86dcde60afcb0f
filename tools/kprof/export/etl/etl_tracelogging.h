/*
 * etl_tracelogging.h - kprof's own records in the ETL file, as
 * TraceLogging events of the provider "kprof" (etl_tracelogging.c).
 *
 * Windows tools know the kernel's records by their hook ids; kprof's own
 * (noise gaps, timer latency, fidelity, phases, clock checks, a
 * workload's user events ...) have no hook Windows knows.  A TraceLogging
 * event describes itself: its EVENT_HEADER carries two extended data
 * items, the provider's traits (its name) and the event's schema (its
 * name and each field's name and type), so WPA's Generic Events table,
 * TraceEvent and tdh decode it without a manifest, as they decode any
 * TraceLogging provider's.  docs/etw-records.md ("kprof's own records in
 * the ETL file") gives the layout byte by byte.
 */
#ifndef KPROF_TOOL_ETL_TRACELOGGING_H
#define KPROF_TOOL_ETL_TRACELOGGING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/kprof/export/etl/etl.h"
#include "tools/kprof/read/log.h"
#include "tools/kprof/read/records.h"
#include "tools/kprof/util/hash.h"

/* EVENT_HEADER as ETL files hold it (x64), 0x50 bytes. */
struct event_header {
	uint16_t Size;               /* header, extended items and user data  */
	uint8_t HeaderType;          /* EVENT_HEADER_EVENT64                   */
	uint8_t MarkerFlags;         /* TRACE_HEADER_FLAG | EVENT_TRACE >> 24  */
	uint16_t Flags;              /* EVENT_HEADER_FLAG_EXTENDED_INFO        */
	uint16_t EventProperty;
	uint32_t ThreadId;
	uint32_t ProcessId;
	uint64_t TimeStamp;          /* the logger's clock                     */
	uint8_t ProviderId[16];      /* GUID, as Windows stores it             */
	uint16_t Id;                 /* EVENT_DESCRIPTOR ...                   */
	uint8_t Version;
	uint8_t Channel;
	uint8_t Level;
	uint8_t Opcode;
	uint16_t Task;
	uint64_t Keyword;            /* ... EVENT_DESCRIPTOR                   */
	uint32_t KernelTime;
	uint32_t UserTime;
	uint8_t ActivityId[16];
} __attribute__((packed));

_Static_assert(sizeof(struct event_header) == 0x50, "EVENT_HEADER is 0x50 bytes");

/* EVENT_HEADER_EXTENDED_DATA_ITEM as ETL files hold it: 8 bytes, then the
 * data, the whole item padded to 8 bytes. */
struct event_extended_item {
	uint16_t ItemSize;           /* the item, header and padding included  */
	uint16_t ExtType;            /* EVENT_HEADER_EXT_TYPE_...              */
	uint16_t Linkage;            /* 1: another item follows                */
	uint16_t DataSize;
} __attribute__((packed));

#define EVENT_HEADER_EVENT64 0x13u
#define EVENT_HEADER_FLAG_EXTENDED_INFO 0x0001u
#define EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL 11u
#define EVENT_HEADER_EXT_TYPE_PROV_TRAITS 12u
#define ETL_TL_CHANNEL 11u           /* TraceLogging's channel              */
#define ETL_TL_LEVEL 5u              /* verbose: TraceLogging's default      */
#define ETL_TL_OPCODE_INFO 0u
#define ETL_TL_OPCODE_START 1u       /* a span's Begin                       */
#define ETL_TL_OPCODE_STOP 2u        /* ... and its End                      */

/* The provider: its name, and the GUID ETW derives from that name (the
 * EventSource hash: SHA-1 over a fixed namespace and the upper-case name
 * in UTF-16BE), so `*kprof` names it in a Windows session too. */
#define ETL_TL_PROVIDER "kprof"
extern const uint8_t etl_tl_provider_guid[16];

/* One event's schema, made once per kp_event. */
struct etl_tl_schema {
	uint8_t *b;                  /* the extended items, ready to copy      */
	uint16_t n;
	bool made;
};

struct etl_tl {
	const struct kp_log *log;
	struct etl_tl_schema *known; /* by position in kp_events[]            */
	struct etl_tl_schema *user;  /* by user type id                       */
	uint32_t *tids, *pids;       /* KprofThread: each thread's process    */
	size_t nthreads, cap;
	struct kp_index thread_ix;
};

void etl_tl_init(struct etl_tl *tl, const struct kp_log *log);
void etl_tl_free(struct etl_tl *tl);

/* Whether r is one of kprof's own records that the file carries as a
 * TraceLogging event: every one kprof can describe (kp_record_event),
 * except KprofThread (a Windows Thread/Process event instead),
 * KprofRecordsLost (the buffers' EVENTS_LOST flag instead) and
 * KprofEventType (its type is each event's schema); and not one shorter
 * than its description (the decoders show it raw). */
bool etl_tl_carries(const struct etl_tl *tl, const struct kp_record *r);

/* The event's size, not padded (0 when r is not carried). */
uint32_t etl_tl_size(struct etl_tl *tl, const struct kp_record *r);

/* Queue r's event, padded to 8 bytes, for thread tid (the CPU's current
 * thread: its process is the one its KprofThread record named).  size is
 * etl_tl_size(r): call only when it is not 0 and fits a buffer. */
void etl_tl_event(struct etl_tl *tl, const struct kp_record *r, uint32_t size, uint32_t tid, struct etl_queue *q);

/* A KprofThread record seen: remember the thread's process. */
void etl_tl_thread(struct etl_tl *tl, uint32_t tid, uint32_t pid);

#endif
