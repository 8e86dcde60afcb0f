/*
 * etl_events.h - the fixed parts of the Windows kernel events that `kprof
 * etl` makes itself (the rundown and the events that replace kprof's own
 * records), x64, as the NT Kernel Logger writes them.  Sources, held
 * against each other (docs/etw-records.md, "The kernel rundown"):
 * the MOF classes of airbus-cert's etl-parser
 * (etl-parser:etl/parsers/kernel/{process,thread,image,header}.py:
 * Process_V4_TypeGroup1, Thread_TypeGroup1 v3, ImageLoad v3,
 * KernelImageBase v2, Header_Extension_TypeGroup v2) and TraceEvent's
 * KernelTraceEventParser.cs in microsoft/perfview (SystemConfigCPUTraceData
 * v2 = 808 bytes, SampledProfileIntervalTraceData, SkipSID).  Variable
 * tails (strings, the SID) follow each struct; etl_rundown.c writes them.
 * Every size and offset is checked at compile time.
 */
#ifndef KPROF_TOOL_ETL_EVENTS_H
#define KPROF_TOOL_ETL_EVENTS_H

#include "tools/kprof/export/etl/etl_format.h"

/* Hook ids: (group << 8) | event type (opcode). */
#define ETL_HOOK_EXTENSION 0x0005u           /* EventTrace Extension          */
#define ETL_HOOK_RDCOMPLETE 0x0008u          /* EventTrace RDComplete         */
#define ETL_HOOK_END_EXTENSION 0x0020u       /* EventTrace EndExtension       */
#define ETL_HOOK_PROCESS_START 0x0301u
#define ETL_HOOK_PROCESS_DCSTART 0x0303u
#define ETL_HOOK_THREAD_START 0x0501u
#define ETL_HOOK_THREAD_DCSTART 0x0503u
#define ETL_HOOK_CONFIG_CPU 0x0B0Au          /* SystemConfig CPU              */
#define ETL_HOOK_COLLECTION_START 0x0F49u    /* PerfInfo CollectionStart      */
#define ETL_HOOK_COLLECTION_END 0x0F4Au      /* PerfInfo CollectionEnd        */
#define ETL_HOOK_IMAGE_DCSTART 0x1403u
#define ETL_HOOK_KERNEL_BASE 0x1421u         /* Image KernelBase              */

/* Event versions (the marker's low byte). */
#define ETL_EXTENSION_VERSION 2
#define ETL_PROCESS_VERSION 4
#define ETL_THREAD_VERSION 3
#define ETL_IMAGE_VERSION 3
#define ETL_KERNEL_BASE_VERSION 2
#define ETL_CONFIG_CPU_VERSION 2
#define ETL_COLLECTION_VERSION 3             /* v3: SourceName after the u32s */

#define SYSTEM_TRACE_MARKER_64 0xC0020000u   /* | version: SYSTEM64 header    */

/* EventTrace Extension / EndExtension: the group masks in force. */
struct etl_extension {
	uint32_t GroupMasks[8];      /* PERFINFO_GROUPMASK                     */
	uint32_t KernelEventVersion;
} __attribute__((packed));

/* Process_V4_TypeGroup1; then TOKEN_USER (16 bytes: Sid pointer, never 0,
 * and Attributes), the SID, ImageFileName (ANSI, NUL), CommandLine,
 * PackageFullName, ApplicationId (UTF-16, NUL). */
struct etl_process {
	uint64_t UniqueProcessKey;
	uint32_t ProcessId;
	uint32_t ParentId;
	uint32_t SessionId;
	int32_t ExitStatus;          /* STATUS_PENDING (259) while it runs      */
	uint64_t DirectoryTableBase;
	uint32_t Flags;
} __attribute__((packed));

/* Thread_TypeGroup1 v3; Windows 10 appends ThreadName (UTF-16, NUL). */
struct etl_thread {
	uint32_t ProcessId;
	uint32_t TThreadId;
	uint64_t StackBase;
	uint64_t StackLimit;
	uint64_t UserStackBase;
	uint64_t UserStackLimit;
	uint64_t Affinity;
	uint64_t Win32StartAddr;
	uint64_t TebBase;
	uint32_t SubProcessTag;
	uint8_t BasePriority;
	uint8_t PagePriority;
	uint8_t IoPriority;
	uint8_t ThreadFlags;
} __attribute__((packed));

/* ImageLoad v3; then FileName (UTF-16, NUL). */
struct etl_image {
	uint64_t ImageBase;
	uint64_t ImageSize;
	uint32_t ProcessId;
	uint32_t ImageChecksum;
	uint32_t TimeDateStamp;
	uint8_t SignatureLevel;
	uint8_t SignatureType;
	uint16_t Reserved0;
	uint64_t DefaultBase;
	uint32_t Reserved1;
	uint32_t Reserved2;
	uint32_t Reserved3;
	uint32_t Reserved4;
} __attribute__((packed));

/* SystemConfig CPU v2 (x64: 808 bytes, TraceEvent checks it exactly). */
struct etl_config_cpu {
	uint32_t MHz;
	uint32_t NumberOfProcessors;
	uint32_t MemSize;            /* MiB                                    */
	uint32_t PageSize;
	uint32_t AllocationGranularity;
	uint16_t ComputerName[256];
	uint16_t DomainName[134];
	uint64_t HyperThreadingFlag;
} __attribute__((packed));

/* PerfInfo CollectionStart / CollectionEnd (SampledProfileInterval v3);
 * then SourceName (UTF-16, NUL). */
struct etl_collection {
	uint32_t Source;             /* KPROFILE_SOURCE                        */
	uint32_t NewInterval;        /* 100 ns units                           */
	uint32_t OldInterval;
} __attribute__((packed));

_Static_assert(sizeof(struct etl_extension) == 0x24, "Extension is 0x24 bytes");
_Static_assert(sizeof(struct etl_process) == 0x24, "Process v4 fixed part is 0x24 bytes");
ETL_ASSERT_OFFSET(etl_process, DirectoryTableBase, 0x18);
_Static_assert(sizeof(struct etl_thread) == 0x48, "Thread v3 is 0x48 bytes");
ETL_ASSERT_OFFSET(etl_thread, Affinity, 0x28);
ETL_ASSERT_OFFSET(etl_thread, SubProcessTag, 0x40);
ETL_ASSERT_OFFSET(etl_thread, BasePriority, 0x44);
_Static_assert(sizeof(struct etl_image) == 0x38, "ImageLoad v3 fixed part is 0x38 bytes");
ETL_ASSERT_OFFSET(etl_image, TimeDateStamp, 0x18);
ETL_ASSERT_OFFSET(etl_image, DefaultBase, 0x20);
_Static_assert(sizeof(struct etl_config_cpu) == 808, "SystemConfig CPU v2 is 808 bytes (x64)");
ETL_ASSERT_OFFSET(etl_config_cpu, ComputerName, 20);
ETL_ASSERT_OFFSET(etl_config_cpu, DomainName, 532);
ETL_ASSERT_OFFSET(etl_config_cpu, HyperThreadingFlag, 800);
_Static_assert(sizeof(struct etl_collection) == 12, "SampledProfileInterval is 12 bytes + name");

#endif
