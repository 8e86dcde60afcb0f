/*
 * etl_format.h - the Windows structures of an ETL file, as `kprof etl`
 * writes them (layouts and their sources: docs/etw-records.md, "ETL
 * files"; every size and offset checked at compile time), and the
 * constants the writer puts in them.  etl.c says which values it
 * chooses and why.
 */
#ifndef KPROF_TOOL_ETL_FORMAT_H
#define KPROF_TOOL_ETL_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define ETL_BUFFER_SIZE 0x10000u
#define ETL_ALIGN 8u
#define ETL_ALIGN_UP(x) (((x) + ETL_ALIGN - 1) & ~(ETL_ALIGN - 1))

/* ---------------------------------------------------------------- layouts */

/* WMI_BUFFER_HEADER, 0x48 bytes. */
struct wmi_buffer_header {
	uint32_t BufferSize;         /* stride to the next buffer              */
	uint32_t SavedOffset;        /* bytes used, this header included       */
	uint32_t CurrentOffset;
	int32_t ReferenceCount;
	uint64_t TimeStamp;
	int64_t SequenceNumber;
	uint64_t ClockTypeFrequency; /* ClockType:3 (low bits) | Frequency:61  */
	uint16_t ProcessorIndex;     /* ClientContext (ETW_BUFFER_CONTEXT) as
	                                Windows 8+ writes it, with PROC_INDEX:
	                                a 16-bit processor index, not a u8
	                                ProcessorNumber + u8 Alignment     */
	uint16_t LoggerId;
	uint32_t State;              /* ETW_BUFFER_STATE                       */
	uint32_t Offset;
	uint16_t BufferFlag;
	uint16_t BufferType;
	uint64_t StartTime;          /* ReferenceTime: FILETIME ...            */
	uint64_t StartPerfClock;     /* ... and the clock at that moment       */
} __attribute__((packed));

#define ETW_BUFFER_FLAG_FLUSH_MARKER 0x0001u
#define ETW_BUFFER_FLAG_EVENTS_LOST 0x0002u
#define ETW_BUFFER_FLAG_PROC_INDEX 0x0020u
#define ETW_BUFFER_TYPE_GENERIC 0u
#define ETW_BUFFER_TYPE_HEADER 4u
#define ETW_BUFFER_STATE_FLUSH 3u
#define ETW_CLOCK_QPC 1u           /* ReservedFlags / ClockType: QPC         */
#define ETL_MAX_CPUS 0x10000u      /* a 16-bit processor index               */
#define ETW_KERNEL_LOGGER_ID 0xFFFFu

/* SYSTEM_TRACE_HEADER, 0x20 bytes (x64). */
struct system_trace_header {
	uint32_t Marker;
	uint16_t Size;
	uint16_t HookId;
	uint32_t ThreadId;
	uint32_t ProcessId;
	uint64_t SystemTime;         /* the logger's clock (TSC), see above    */
	uint32_t KernelTime;
	uint32_t UserTime;
} __attribute__((packed));

#define SYSTEM_TRACE_MARKER_64_V2 0xC0020002u /* FLAG | EVENT_TRACE | SYSTEM64 << 16 | version 2 */
#define WMI_LOG_TYPE_HEADER 0x0000u

/* TIME_ZONE_INFORMATION, 0xAC bytes. */
struct time_zone_information {
	int32_t Bias;
	uint16_t StandardName[32];
	uint16_t StandardDate[8];    /* SYSTEMTIME                             */
	int32_t StandardBias;
	uint16_t DaylightName[32];
	uint16_t DaylightDate[8];
	int32_t DaylightBias;
} __attribute__((packed));

/* TRACE_LOGFILE_HEADER, x64, 0x118 bytes. */
struct trace_logfile_header {
	uint32_t BufferSize;
	uint8_t MajorVersion;        /* Version, byte by byte                  */
	uint8_t MinorVersion;
	uint8_t SubVersion;
	uint8_t SubMinorVersion;
	uint32_t ProviderVersion;
	uint32_t NumberOfProcessors;
	uint64_t EndTime;
	uint32_t TimerResolution;
	uint32_t MaximumFileSize;
	uint32_t LogFileMode;
	uint32_t BuffersWritten;
	uint32_t StartBuffers;
	uint32_t PointerSize;
	uint32_t EventsLost;
	uint32_t CpuSpeedInMHz;
	uint64_t LoggerName;         /* PWSTR in memory; 0 in the file         */
	uint64_t LogFileName;
	struct time_zone_information TimeZone;
	uint32_t Padding;
	uint64_t BootTime;
	uint64_t PerfFreq;
	uint64_t StartTime;
	uint32_t ReservedFlags;      /* clock type: 1 = QPC                    */
	uint32_t BuffersLost;
} __attribute__((packed));

#define EVENT_TRACE_FILE_MODE_SEQUENTIAL 0x00000001u
#define ETL_TIMER_RESOLUTION 156250u /* 15.625 ms in 100 ns units          */
#define ETL_PROVIDER_VERSION 19041u  /* Windows 10 2004                    */
#define ETL_LOGGER_NAME "NT Kernel Logger"
#define ETL_MAX_FILE_NAME 1024u      /* UTF-16 units kept of the -o path   */

#define ETL_ASSERT_OFFSET(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field " is at offset " #off)

_Static_assert(sizeof(struct wmi_buffer_header) == 0x48, "WMI_BUFFER_HEADER is 0x48 bytes");
ETL_ASSERT_OFFSET(wmi_buffer_header, BufferSize, 0x00);
ETL_ASSERT_OFFSET(wmi_buffer_header, SavedOffset, 0x04);
ETL_ASSERT_OFFSET(wmi_buffer_header, CurrentOffset, 0x08);
ETL_ASSERT_OFFSET(wmi_buffer_header, ReferenceCount, 0x0C);
ETL_ASSERT_OFFSET(wmi_buffer_header, TimeStamp, 0x10);
ETL_ASSERT_OFFSET(wmi_buffer_header, SequenceNumber, 0x18);
ETL_ASSERT_OFFSET(wmi_buffer_header, ClockTypeFrequency, 0x20);
ETL_ASSERT_OFFSET(wmi_buffer_header, ProcessorIndex, 0x28);
ETL_ASSERT_OFFSET(wmi_buffer_header, LoggerId, 0x2A);
ETL_ASSERT_OFFSET(wmi_buffer_header, State, 0x2C);
ETL_ASSERT_OFFSET(wmi_buffer_header, Offset, 0x30);
ETL_ASSERT_OFFSET(wmi_buffer_header, BufferFlag, 0x34);
ETL_ASSERT_OFFSET(wmi_buffer_header, BufferType, 0x36);
ETL_ASSERT_OFFSET(wmi_buffer_header, StartTime, 0x38);
ETL_ASSERT_OFFSET(wmi_buffer_header, StartPerfClock, 0x40);

_Static_assert(sizeof(struct system_trace_header) == 0x20, "SYSTEM_TRACE_HEADER is 0x20 bytes");
ETL_ASSERT_OFFSET(system_trace_header, Marker, 0x00);
ETL_ASSERT_OFFSET(system_trace_header, Size, 0x04);
ETL_ASSERT_OFFSET(system_trace_header, HookId, 0x06);
ETL_ASSERT_OFFSET(system_trace_header, ThreadId, 0x08);
ETL_ASSERT_OFFSET(system_trace_header, ProcessId, 0x0C);
ETL_ASSERT_OFFSET(system_trace_header, SystemTime, 0x10);
ETL_ASSERT_OFFSET(system_trace_header, KernelTime, 0x18);
ETL_ASSERT_OFFSET(system_trace_header, UserTime, 0x1C);

_Static_assert(sizeof(struct time_zone_information) == 0xAC, "TIME_ZONE_INFORMATION is 0xAC bytes");

_Static_assert(sizeof(struct trace_logfile_header) == 0x118, "TRACE_LOGFILE_HEADER (x64) is 0x118 bytes");
ETL_ASSERT_OFFSET(trace_logfile_header, BufferSize, 0x00);
ETL_ASSERT_OFFSET(trace_logfile_header, MajorVersion, 0x04);
ETL_ASSERT_OFFSET(trace_logfile_header, ProviderVersion, 0x08);
ETL_ASSERT_OFFSET(trace_logfile_header, NumberOfProcessors, 0x0C);
ETL_ASSERT_OFFSET(trace_logfile_header, EndTime, 0x10);
ETL_ASSERT_OFFSET(trace_logfile_header, TimerResolution, 0x18);
ETL_ASSERT_OFFSET(trace_logfile_header, MaximumFileSize, 0x1C);
ETL_ASSERT_OFFSET(trace_logfile_header, LogFileMode, 0x20);
ETL_ASSERT_OFFSET(trace_logfile_header, BuffersWritten, 0x24);
ETL_ASSERT_OFFSET(trace_logfile_header, StartBuffers, 0x28);
ETL_ASSERT_OFFSET(trace_logfile_header, PointerSize, 0x2C);
ETL_ASSERT_OFFSET(trace_logfile_header, EventsLost, 0x30);
ETL_ASSERT_OFFSET(trace_logfile_header, CpuSpeedInMHz, 0x34);
ETL_ASSERT_OFFSET(trace_logfile_header, LoggerName, 0x38);
ETL_ASSERT_OFFSET(trace_logfile_header, LogFileName, 0x40);
ETL_ASSERT_OFFSET(trace_logfile_header, TimeZone, 0x48);
ETL_ASSERT_OFFSET(trace_logfile_header, Padding, 0xF4);
ETL_ASSERT_OFFSET(trace_logfile_header, BootTime, 0xF8);
ETL_ASSERT_OFFSET(trace_logfile_header, PerfFreq, 0x100);
ETL_ASSERT_OFFSET(trace_logfile_header, StartTime, 0x108);
ETL_ASSERT_OFFSET(trace_logfile_header, ReservedFlags, 0x110);
ETL_ASSERT_OFFSET(trace_logfile_header, BuffersLost, 0x114);

/* A record must fit an empty data buffer. */
#define ETL_MAX_RECORD (ETL_BUFFER_SIZE - sizeof(struct wmi_buffer_header))

#endif
