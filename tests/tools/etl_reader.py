#!/usr/bin/python3
"""etl_reader.py - a strict reader of the ETL files `kprof etl` writes.

    etl_reader.py FILE.etl            summary: logfile header, buffers, event counts
    etl_reader.py FILE.etl --json     one JSON object per record, CPUs merged by time

Written from the layouts in docs/etw-records.md ("ETL files")
and include/kprof/wmi.h with Debian's python3-construct; it shares no code
with the writer (tools/kprof/export/etl/etl.c) on purpose, so it can catch the writer
out.  It enforces what strict ETL readers want and rejects the file with a
message (exit status 1) otherwise:

  - buffer 0 is a HEADER buffer whose first event is the logfile header:
    SYSTEM_TRACE_HEADER (SYSTEM64, event version 2, HookId 0) followed by
    TRACE_LOGFILE_HEADER (x64) and the two names, PointerSize 8;
  - exactly BuffersWritten buffers, each BufferSize long, none longer than
    the logfile header's BufferSize, none running past the end of the file;
  - in each buffer SavedOffset == Offset, inside the buffer, the bytes
    after it all 0xFF; CurrentOffset not below them (real data buffers
    hold SavedOffset + BufferSize, or past BufferSize in a buffer that
    filled up: never SavedOffset; test_etl_real); Alignment 8 unless the PROC_INDEX flag (0x20, set on
    every buffer of real Windows 8+ files) makes those two bytes one
    16-bit processor index; the processor index
    below NumberOfProcessors, 0 <= SequenceNumber <= BuffersWritten and no
    two buffers of a CPU with the same SequenceNumber;
  - the events fill each buffer exactly: every one 8-byte aligned, of a
    known header type, with a Size that covers its header and stays inside
    Offset (Size at offset 4 of the kernel's headers, at 0 of EVENT_HEADER64
    and FULL_HEADER64, which real files mix in).  PERFINFO64 events (0x10-byte header) and SYSTEM64 events
    (0x20-byte header: ThreadId, ProcessId, SystemTime, as the rundown's
    Process/Thread/Image events and EventTrace's have) are both records.

kprof's own records are TraceLogging events (EVENT_HEADER64, written from
Microsoft's TraceLoggingProvider.h encoding and the real files in
etl-parser's examples, not from the writer): the reader requires the
EXTENDED_INFO flag, extended items each ItemSize = its 8-byte header and
data rounded up to 8, chained by Linkage, a PROV_TRAITS and an
EVENT_SCHEMA_TL item, a schema that parses to its last byte; for the
provider "kprof" the ProviderId must be the GUID ETW derives from that
name (computed here with hashlib) and the user data used up exactly by
the schema's fields, which it decodes by their InType (tl_records(),
--tl).  test_etl_real holds this reading to the TraceLogging events of
real Windows files.

Each CPU's buffers are then ordered by SequenceNumber and the CPUs merged
by TimeStamp (ties: the lower CPU first), as ProcessTrace does.  Record
payloads are decoded with the field names `kprof decode --json` uses, so
the two can be compared field by field (tests/tools/test_etl).
"""

import argparse
import heapq
import json
import sys

from construct import (BitsInteger, BitStruct, Bytes, Computed, CString, GreedyBytes, GreedyRange, Int8sl,
                       Int8ul, Int16ul, Int32sl, Int32ul, Int64sl, Int64ul, PaddedString, Padding, Struct, this)

# ------------------------------------------------------------------ layouts

ETW_BUFFER_CONTEXT = Struct(
    "ProcessorNumber" / Int8ul,
    "Alignment" / Int8ul,
    "LoggerId" / Int16ul,
)

WMI_BUFFER_HEADER = Struct(
    "BufferSize" / Int32ul,
    "SavedOffset" / Int32ul,
    "CurrentOffset" / Int32ul,
    "ReferenceCount" / Int32sl,
    "TimeStamp" / Int64ul,
    "SequenceNumber" / Int64sl,
    "ClockTypeFrequency" / Int64ul,                 # ClockType:3 (low bits), Frequency:61
    "ClockType" / Computed(this.ClockTypeFrequency & 7),
    "Frequency" / Computed(this.ClockTypeFrequency >> 3),
    "ClientContext" / ETW_BUFFER_CONTEXT,
    "State" / Int32ul,
    "Offset" / Int32ul,
    "BufferFlag" / Int16ul,
    "BufferType" / Int16ul,
    "StartTime" / Int64ul,                          # ReferenceTime: FILETIME ...
    "StartPerfClock" / Int64ul,                     # ... and the clock then
)

SYSTEM_TRACE_HEADER = Struct(
    "Marker" / Int32ul,
    "Size" / Int16ul,
    "HookId" / Int16ul,
    "ThreadId" / Int32ul,
    "ProcessId" / Int32ul,
    "SystemTime" / Int64ul,
    "KernelTime" / Int32ul,
    "UserTime" / Int32ul,
)

SYSTEMTIME = Struct(
    "wYear" / Int16ul, "wMonth" / Int16ul, "wDayOfWeek" / Int16ul, "wDay" / Int16ul,
    "wHour" / Int16ul, "wMinute" / Int16ul, "wSecond" / Int16ul, "wMilliseconds" / Int16ul,
)

TIME_ZONE_INFORMATION = Struct(
    "Bias" / Int32sl,
    "StandardName" / PaddedString(64, "utf_16_le"),
    "StandardDate" / SYSTEMTIME,
    "StandardBias" / Int32sl,
    "DaylightName" / PaddedString(64, "utf_16_le"),
    "DaylightDate" / SYSTEMTIME,
    "DaylightBias" / Int32sl,
)

TRACE_LOGFILE_HEADER = Struct(
    "BufferSize" / Int32ul,
    "VersionDetail" / Struct(
        "MajorVersion" / Int8ul, "MinorVersion" / Int8ul, "SubVersion" / Int8ul, "SubMinorVersion" / Int8ul),
    "ProviderVersion" / Int32ul,
    "NumberOfProcessors" / Int32ul,
    "EndTime" / Int64ul,
    "TimerResolution" / Int32ul,
    "MaximumFileSize" / Int32ul,
    "LogFileMode" / Int32ul,
    "BuffersWritten" / Int32ul,
    "StartBuffers" / Int32ul,
    "PointerSize" / Int32ul,
    "EventsLost" / Int32ul,
    "CpuSpeedInMHz" / Int32ul,
    "LoggerNamePtr" / Int64ul,
    "LogFileNamePtr" / Int64ul,
    "TimeZone" / TIME_ZONE_INFORMATION,
    Padding(4),
    "BootTime" / Int64ul,
    "PerfFreq" / Int64ul,
    "StartTime" / Int64ul,
    "ReservedFlags" / Int32ul,
    "BuffersLost" / Int32ul,
)

HEADER_EVENT = Struct(
    "System" / SYSTEM_TRACE_HEADER,
    "Logfile" / TRACE_LOGFILE_HEADER,
    "LoggerName" / CString("utf_16_le"),
    "LogFileName" / CString("utf_16_le"),
)

PERFINFO_TRACE_HEADER = Struct(
    "Marker" / Int32ul,
    "Size" / Int16ul,
    "HookId" / Int16ul,
    "TimeStamp" / Int64ul,
)

EVENT_HEADER = Struct(                              # x64, 0x50 bytes
    "Size" / Int16ul,
    "HeaderType" / Int8ul,
    "MarkerFlags" / Int8ul,
    "Flags" / Int16ul,
    "EventProperty" / Int16ul,
    "ThreadId" / Int32ul,
    "ProcessId" / Int32ul,
    "TimeStamp" / Int64ul,
    "ProviderId" / Bytes(16),
    "Id" / Int16ul, "Version" / Int8ul, "Channel" / Int8ul, "Level" / Int8ul, "Opcode" / Int8ul,
    "Task" / Int16ul, "Keyword" / Int64ul,
    "KernelTime" / Int32ul,
    "UserTime" / Int32ul,
    "ActivityId" / Bytes(16),
)
EXTENDED_ITEM = Struct("ItemSize" / Int16ul, "ExtType" / Int16ul, "Linkage" / Int16ul, "DataSize" / Int16ul)
EXT_SCHEMA_TL, EXT_PROV_TRAITS = 11, 12
FLAG_EXTENDED_INFO = 0x0001
TL_PROVIDER = "kprof"
# TraceLogging InTypes: integers (struct format), ANSISTRING 2, BINARY 14; VCCOUNT 0x40: an array
# with a u16 count first; 0x80: an OutType byte follows (HEX 4).
TL_INTS = {3: "b", 4: "B", 5: "h", 6: "H", 7: "i", 8: "I", 9: "q", 10: "Q"}
TL_ANSISTRING, TL_BINARY, TL_VCCOUNT, TL_CHAIN, TL_OUT_HEX = 2, 14, 0x40, 0x80, 4


def provider_guid(name):
    """The GUID ETW derives from a provider's name (EventSource's name hash), as Windows stores it."""
    import hashlib
    ns = bytes.fromhex("482C2DB2C39047C887F81A15BFC130FB")
    h = bytearray(hashlib.sha1(ns + name.upper().encode("utf-16-be")).digest()[:16])
    h[7] = (h[7] & 0x0F) | 0x50
    return bytes(h)


class TlRecord:
    """One TraceLogging event: kprof's own record."""
    __slots__ = ("cpu", "timestamp", "provider", "name", "fields", "opcode", "thread_id", "process_id", "level",
                 "channel", "header", "items")

    def __init__(self, cpu, h, provider, name, fields, items):
        self.cpu, self.timestamp, self.provider, self.name, self.fields = cpu, h.TimeStamp, provider, name, fields
        self.opcode, self.thread_id, self.process_id = h.Opcode, h.ThreadId, h.ProcessId
        self.level, self.channel, self.header, self.items = h.Level, h.Channel, h, items

    def to_json(self):
        d = {"cpu": self.cpu, "event": self.name, "TimeStamp": self.timestamp, "Opcode": self.opcode,
             "ThreadId_": self.thread_id, "ProcessId_": self.process_id}
        d.update(self.fields or {})
        return d


def _cstring(b, at, what):
    end = b.find(b"\0", at)
    if end < 0:
        raise EtlError("%s: a name without its NUL" % what)
    return b[at:end].decode("ascii", "replace"), end + 1


def parse_tl_schema(meta, what):
    """An EVENT_SCHEMA_TL item: (event name, [(field name, InType, OutType or None)])."""
    import struct as st
    if len(meta) < 4 or st.unpack_from("<H", meta)[0] != len(meta):
        raise EtlError("%s: schema size %s, item holds %d bytes" % (what, meta[:2].hex(), len(meta)))
    at = 2
    while meta[at] & 0x80:                          # tag bytes: the high bit says another follows
        at += 1
    at += 1
    name, at = _cstring(meta, at, what)
    fields = []
    while at < len(meta):
        fname, at = _cstring(meta, at, what)
        if at >= len(meta):
            raise EtlError("%s: field %s has no InType" % (what, fname))
        tin, out = meta[at], None
        at += 1
        if tin & TL_CHAIN:
            out = meta[at]
            at += 1
            if out & 0x80:
                at += 4                             # a field tag
        fields.append((fname, tin & 0x7F, out))
    if at != len(meta):
        raise EtlError("%s: schema runs past its size" % what)
    return name, fields


def decode_tl_fields(fields, data, what):
    """The user data by the schema: {name: value}; it must be used up exactly."""
    import struct as st
    out, at = {}, 0

    def one(base, hexout):
        nonlocal at
        if base in TL_INTS:
            n = st.calcsize("<" + TL_INTS[base])
            if at + n > len(data):
                raise EtlError("%s: user data ends inside a field" % what)
            v = st.unpack_from("<" + TL_INTS[base], data, at)[0]
            at += n
            return v
        if base == TL_ANSISTRING:
            end = data.find(b"\0", at)
            if end < 0:
                raise EtlError("%s: a string without its NUL" % what)
            v = data[at:end].decode("latin-1")
            at = end + 1
            return v
        raise EtlError("%s: InType %d is not one kprof writes" % (what, base))

    for name, tin, outt in fields:
        hexout = outt == TL_OUT_HEX
        if tin == TL_BINARY or tin & TL_VCCOUNT:
            if at + 2 > len(data):
                raise EtlError("%s: user data ends before the count of %s" % (what, name))
            count = st.unpack_from("<H", data, at)[0]
            at += 2
            if tin == TL_BINARY:
                out[name] = data[at:at + count].hex()
                at += count
                continue
            out[name] = [one(tin & ~TL_VCCOUNT, hexout) for _ in range(count)]
        else:
            out[name] = one(tin, hexout)
    if at != len(data):
        raise EtlError("%s: %d bytes of user data the schema does not use" % (what, len(data) - at))
    return out


def parse_tl_event(raw, what):
    """An EVENT_HEADER64 TraceLogging event: (header, provider, event name, fields, item list).
    Every event must frame (its extended items, a PROV_TRAITS and an EVENT_SCHEMA_TL item whose
    schema parses); kprof's (provider "kprof") must carry the GUID of its name and user data its
    schema uses up exactly.  Another provider's fields are decoded where kprof's InTypes cover
    them, else None (real Windows files hold UTF-16 strings, GUIDs ...)."""
    import struct as st
    h = EVENT_HEADER.parse(raw)
    if not h.Flags & FLAG_EXTENDED_INFO:
        raise EtlError("%s: an EVENT_HEADER without extended data: no schema to read it by" % what)
    at, items = 0x50, []
    while True:
        if at + 8 > len(raw):
            raise EtlError("%s: extended items run past the event" % what)
        it = EXTENDED_ITEM.parse(raw[at:at + 8])
        if it.ItemSize != (8 + it.DataSize + 7) & ~7 or at + it.ItemSize > len(raw):
            raise EtlError("%s: extended item of type %d: ItemSize %d for %d bytes of data" %
                           (what, it.ExtType, it.ItemSize, it.DataSize))
        items.append((it.ExtType, it.Linkage, raw[at + 8:at + 8 + it.DataSize]))
        at += it.ItemSize
        if not it.Linkage & 1:
            break
    by_type = {t: data for t, _, data in items}
    traits = by_type.get(EXT_PROV_TRAITS)
    if traits is None or EXT_SCHEMA_TL not in by_type:
        raise EtlError("%s: extended items %s: a TraceLogging event has PROV_TRAITS (12) and EVENT_SCHEMA_TL (11)" %
                       (what, sorted(by_type)))
    if len(traits) < 3 or st.unpack_from("<H", traits)[0] > len(traits):
        raise EtlError("%s: provider traits longer than their item" % what)
    provider, _ = _cstring(traits, 2, what)
    if provider == TL_PROVIDER and h.ProviderId != provider_guid(provider):
        raise EtlError("%s: provider %r with ProviderId %s (the name's GUID is %s)" %
                       (what, provider, h.ProviderId.hex(), provider_guid(provider).hex()))
    name, fields = parse_tl_schema(by_type[EXT_SCHEMA_TL], what)
    try:
        values = decode_tl_fields(fields, raw[at:], what + " (" + name + ")")
    except EtlError:
        if provider == TL_PROVIDER:
            raise
        values = None
    return h, provider, name, values, items


# Payloads (include/kprof/wmi.h, docs/wire-format.md "4. Records").

WMI_CONTEXTSWAP = Struct(
    "NewThreadId" / Int32ul,
    "OldThreadId" / Int32ul,
    "NewThreadPriority" / Int8sl,
    "OldThreadPriority" / Int8sl,
    "PreviousCState" / Int8ul,
    "NewThreadPriorityDecrement" / Int8sl,
    "OldThreadWaitReason" / Int8ul,
    "Flags" / BitStruct(                            # most significant bit first
        Padding(1),
        "NewThreadBamQosLevel" / BitsInteger(3),
        "OldThreadBamQosLevel" / BitsInteger(3),
        "OldThreadWaitMode" / BitsInteger(1)),
    "OldThreadState" / Int8ul,
    "OldThreadIdealProcessor" / Int8ul,
    "NewThreadWaitTime" / Int32ul,
    "OldThreadRemainingQuantum" / Int32sl,
)

WMI_READY_THREAD = Struct(
    "TThreadId" / Int32ul,
    "AdjustReason" / Int8sl,
    "AdjustIncrement" / Int8sl,
    "Flag" / Int8sl,
    "_Reserved" / Int8sl,
)

WMI_SPINLOCK = Struct(
    "SpinLockAddress" / Int64ul,
    "CallerAddress" / Int64ul,
    "AcquireTime" / Int64ul,
    "ReleaseTime" / Int64ul,
    "WaitTimeInCycles" / Int32ul,
    "SpinCount" / Int32ul,
    "ThreadId" / Int32ul,
    "InterruptCount" / Int32ul,
    "Irql" / Int8ul,
    "AcquireDepth" / Int8ul,
    "Flags" / BitStruct(
        "ExecuteIsr" / BitsInteger(1),
        "ExecuteDpc" / BitsInteger(1),
        "AcquireMode" / BitsInteger(6)),
    "_Reserved" / Bytes(5),                       # not a value: left out of the output
)

WMI_RESOURCE = Struct(
    "AcquireTime" / Int64ul,
    "HoldTime" / Int64ul,
    "WaitTime" / Int64ul,
    "MaxRecursionDepth" / Int32ul,
    "ThreadId" / Int32ul,
    "Resource" / Int64ul,
    "Action" / Int32ul,
    "ContentionDelta" / Int32ul,
)

SAMPLED_PROFILE = Struct(
    "InstructionPointer" / Int64ul,
    "ThreadId" / Int32ul,
    "Count" / Int16ul,
    "Flags" / BitStruct(
        "Priority" / BitsInteger(5),
        Padding(1),                                 # Reserved
        "ExecutingIsr" / BitsInteger(1),
        "ExecutingDpc" / BitsInteger(1)),
    "Rank" / Int8ul,
)

PMC_SAMPLE = Struct(
    "InstructionPointer" / Int64ul,
    "ThreadId" / Int32ul,
    "ProfileSource" / Int16ul,
    "Reserved" / Int16ul,
)

STACK_WALK = Struct(
    "EventTimeStamp" / Int64ul,
    "StackProcess" / Int32ul,
    "StackThread" / Int32ul,
    "Stack" / GreedyRange(Int64ul),
)

KPROF_TRACETEST = Struct(
    "Cpu" / Int32ul,
    "Writer" / Int32ul,
    "Sequence" / Int32ul,
    "Length" / Int32ul,
    "Pattern" / GreedyBytes,
)

KPROF_CLOCK_LATE = Struct(
    "DueTime" / Int64ul,
    "LateCycles" / Int64ul,
    "InstructionPointer" / Int64ul,
)

# Rundown and the events that stand for kprof's own records (x64; the MOF
# classes Process_V4_TypeGroup1, Thread_TypeGroup1 v3, ImageLoad v3,
# Header_Extension_TypeGroup, SystemConfig CPU v2, SampledProfileInterval v3).
EXTENSION = Struct("GroupMasks" / Int32ul[8], "KernelEventVersion" / Int32ul)
PROCESS_V4 = Struct(
    "UniqueProcessKey" / Int64ul, "ProcessId" / Int32ul, "ParentId" / Int32ul, "SessionId" / Int32ul,
    "ExitStatus" / Int32sl, "DirectoryTableBase" / Int64ul, "Flags" / Int32ul,
    "UserSidToken" / Int64ul, "UserSidAttributes" / Int64ul,      # TOKEN_USER
    "SidRevision" / Int8ul, "SidSubAuthorityCount" / Int8ul, "SidAuthority" / Bytes(6),
    "SidSubAuthority" / Int32ul[this.SidSubAuthorityCount],
    "ImageFileName" / CString("ascii"), "CommandLine" / CString("utf_16_le"),
    "PackageFullName" / CString("utf_16_le"), "ApplicationId" / CString("utf_16_le"),
)
THREAD_V3 = Struct(
    "ProcessId" / Int32ul, "TThreadId" / Int32ul, "StackBase" / Int64ul, "StackLimit" / Int64ul,
    "UserStackBase" / Int64ul, "UserStackLimit" / Int64ul, "Affinity" / Int64ul, "Win32StartAddr" / Int64ul,
    "TebBase" / Int64ul, "SubProcessTag" / Int32ul, "BasePriority" / Int8ul, "PagePriority" / Int8ul,
    "IoPriority" / Int8ul, "ThreadFlags" / Int8ul, "ThreadName" / CString("utf_16_le"),
)
IMAGE_V3 = Struct(
    "ImageBase" / Int64ul, "ImageSize" / Int64ul, "ProcessId" / Int32ul, "ImageChecksum" / Int32ul,
    "TimeDateStamp" / Int32ul, "SignatureLevel" / Int8ul, "SignatureType" / Int8ul, "Reserved0" / Int16ul,
    "DefaultBase" / Int64ul, "Reserved1" / Int32ul, "Reserved2" / Int32ul, "Reserved3" / Int32ul,
    "Reserved4" / Int32ul, "FileName" / CString("utf_16_le"),
)
KERNEL_BASE = Struct("ImageBase" / Int64ul)
CONFIG_CPU_V2 = Struct(
    "MHz" / Int32ul, "NumberOfProcessors" / Int32ul, "MemSize" / Int32ul, "PageSize" / Int32ul,
    "AllocationGranularity" / Int32ul, "ComputerName" / PaddedString(512, "utf_16_le"),
    "DomainName" / PaddedString(268, "utf_16_le"), "HyperThreadingFlag" / Int64ul,
)
COLLECTION_V3 = Struct("Source" / Int32ul, "NewInterval" / Int32ul, "OldInterval" / Int32ul,
                       "SourceName" / CString("utf_16_le"))
EMPTY = Struct()

KPROF_RECORDS_LOST = Struct(
    "FirstLossTime" / Int64ul,
    "BuffersFull" / Int64ul,
    "TooLarge" / Int64ul,
    "NotStarted" / Int64ul,
)

# (hook, event version) -> (name, payload struct, fixed payload bytes)
EVENTS = {
    (0x0524, 4): ("CSwitch", WMI_CONTEXTSWAP, 0x18),
    (0x0532, 2): ("ReadyThread", WMI_READY_THREAD, 0x08),
    (0x0529, 2): ("SpinLock", WMI_SPINLOCK, 0x38),
    (0x052B, 2): ("Resource", WMI_RESOURCE, 0x30),
    (0x0F2E, 2): ("SampledProfile", SAMPLED_PROFILE, 0x10),
    (0x0F2F, 2): ("PmcInterrupt", PMC_SAMPLE, 0x10),
    (0x1820, 2): ("StackWalk", STACK_WALK, 0x10),
    (0xFE01, 1): ("KprofTraceTest", KPROF_TRACETEST, 0x10),
    (0xFE02, 1): ("KprofClockLate", KPROF_CLOCK_LATE, 0x18),
    (0xFE06, 1): ("KprofRecordsLost", KPROF_RECORDS_LOST, 0x20),
    (0x0005, 2): ("EventTraceExtension", EXTENSION, 0x24),
    (0x0008, 2): ("EventTraceRDComplete", EMPTY, 0),
    (0x0020, 2): ("EventTraceEndExtension", EXTENSION, 0x24),
    (0x0301, 4): ("ProcessStart", PROCESS_V4, 0x24 + 16 + 8),
    (0x0303, 4): ("ProcessDCStart", PROCESS_V4, 0x24 + 16 + 8),
    (0x0501, 3): ("ThreadStart", THREAD_V3, 0x48),
    (0x0503, 3): ("ThreadDCStart", THREAD_V3, 0x48),
    (0x0B0A, 2): ("SystemConfigCPU", CONFIG_CPU_V2, 808),
    (0x0F49, 3): ("CollectionStart", COLLECTION_V3, 12),
    (0x0F4A, 3): ("CollectionEnd", COLLECTION_V3, 12),
    (0x1403, 3): ("ImageDCStart", IMAGE_V3, 0x38),
    (0x1421, 2): ("KernelBase", KERNEL_BASE, 8),
}
# Events with a variable tail: their fixed size is a minimum.
VARIABLE = {0x1820, 0xFE01, 0x0301, 0x0303, 0x0501, 0x0503, 0x0F49, 0x0F4A, 0x1403}
POINTER_FIELDS = {"SpinLockAddress", "CallerAddress", "Resource", "InstructionPointer", "ImageBase"}

# Constants from the reference.
WMI_BUFFER_HEADER_SIZE = 0x48
TRACE_HEADER_FLAGS = 0xC0000000       # TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE
TYPE_SYSTEM32, TYPE_SYSTEM64, TYPE_PERFINFO32, TYPE_PERFINFO64 = 0x01, 0x02, 0x10, 0x11
TYPE_COMPACT64, TYPE_EVENT_HEADER64, TYPE_FULL_HEADER64 = 0x04, 0x13, 0x14
HEADER_SIZES = {TYPE_SYSTEM32: 0x18, TYPE_SYSTEM64: 0x20, TYPE_PERFINFO32: 0x0C, TYPE_PERFINFO64: 0x10,
                TYPE_COMPACT64: 0x18, TYPE_EVENT_HEADER64: 0x50, TYPE_FULL_HEADER64: 0x30}
# Header types whose Size is the first u16 (EVENT_HEADER, EVENT_TRACE_HEADER: Size, then the
# type byte and the flags byte); the kernel's own headers keep it at offset 4.
SIZE_FIRST = {TYPE_EVENT_HEADER64, TYPE_FULL_HEADER64}
BUFFER_TYPES = {0: "GENERIC", 1: "RUNDOWN", 2: "CTX_SWAP", 3: "REFTIME", 4: "HEADER"}
BUFFER_TYPE_HEADER = 4
FLAG_FLUSH_MARKER, FLAG_EVENTS_LOST, FLAG_PROC_INDEX = 0x1, 0x2, 0x20


def offset_of(struct, name):
    """Byte offset of a field of a fixed-size construct Struct."""
    off = 0
    for sc in struct.subcons:
        if sc.name == name:
            return off
        off += sc.sizeof()
    raise KeyError(name)


def _check_layouts():
    assert WMI_BUFFER_HEADER.sizeof() == 0x48
    for name, off in (("BufferSize", 0x00), ("SavedOffset", 0x04), ("CurrentOffset", 0x08),
                      ("ReferenceCount", 0x0C), ("TimeStamp", 0x10), ("SequenceNumber", 0x18),
                      ("ClockTypeFrequency", 0x20), ("ClientContext", 0x28), ("State", 0x2C), ("Offset", 0x30),
                      ("BufferFlag", 0x34), ("BufferType", 0x36), ("StartTime", 0x38)):
        assert offset_of(WMI_BUFFER_HEADER, name) == off, name
    assert SYSTEM_TRACE_HEADER.sizeof() == 0x20
    assert offset_of(SYSTEM_TRACE_HEADER, "SystemTime") == 0x10
    assert TIME_ZONE_INFORMATION.sizeof() == 0xAC
    assert TRACE_LOGFILE_HEADER.sizeof() == 0x118
    for name, off in (("BufferSize", 0x00), ("VersionDetail", 0x04), ("ProviderVersion", 0x08),
                      ("NumberOfProcessors", 0x0C), ("EndTime", 0x10), ("TimerResolution", 0x18),
                      ("MaximumFileSize", 0x1C), ("LogFileMode", 0x20), ("BuffersWritten", 0x24),
                      ("StartBuffers", 0x28), ("PointerSize", 0x2C), ("EventsLost", 0x30), ("CpuSpeedInMHz", 0x34),
                      ("LoggerNamePtr", 0x38), ("LogFileNamePtr", 0x40), ("TimeZone", 0x48), ("BootTime", 0xF8),
                      ("PerfFreq", 0x100), ("StartTime", 0x108), ("ReservedFlags", 0x110), ("BuffersLost", 0x114)):
        assert offset_of(TRACE_LOGFILE_HEADER, name) == off, name
    assert PERFINFO_TRACE_HEADER.sizeof() == 0x10
    for (hook, _), (name, st, fixed) in EVENTS.items():
        if hook not in VARIABLE:
            assert st.sizeof() == fixed, name
    assert offset_of(WMI_SPINLOCK, "Irql") == 0x30 and offset_of(WMI_SPINLOCK, "_Reserved") == 0x33
    assert offset_of(WMI_CONTEXTSWAP, "Flags") == 0x0D and offset_of(WMI_CONTEXTSWAP, "NewThreadWaitTime") == 0x10
    assert offset_of(WMI_RESOURCE, "Resource") == 0x20 and offset_of(WMI_RESOURCE, "Action") == 0x28


_check_layouts()

# ------------------------------------------------------------------ reading


class EtlError(Exception):
    """The file is not an ETL file a strict reader accepts."""


class Record:
    """One event from a data buffer."""
    __slots__ = ("cpu", "hook", "version", "timestamp", "marker", "raw", "payload", "buffer", "file_offset",
                 "system")

    def __init__(self, cpu, hook, version, timestamp, marker, raw, payload, buffer, file_offset, system=None):
        self.cpu, self.hook, self.version, self.timestamp = cpu, hook, version, timestamp
        self.marker, self.raw, self.payload, self.buffer, self.file_offset = marker, raw, payload, buffer, file_offset
        self.system = system                        # SYSTEM_TRACE_HEADER of a SYSTEM64 event

    def event_name(self):
        ev = EVENTS.get((self.hook, self.version))
        return ev[0] if ev and len(self.payload) >= ev[2] else "Unknown"

    def fields(self):
        """The decoded payload: {name: value}, named as `kprof decode --json` names them."""
        ev = EVENTS.get((self.hook, self.version))
        if not ev or len(self.payload) < ev[2]:
            return {"bytes": self.payload.hex()}
        name, st, fixed = ev
        payload = self.payload
        if st is STACK_WALK:                        # whole addresses only
            payload = payload[:fixed + (len(payload) - fixed) // 8 * 8]
        out = {}
        _flatten(st.parse(payload), out)
        return out

    def to_json(self):
        d = {"cpu": self.cpu, "event": self.event_name(), "hook": self.hook, "version": self.version,
             "TimeStamp": self.timestamp}
        d.update(self.fields())
        return d


def _flatten(container, out):
    for k, v in container.items():
        if k.startswith("_"):
            continue
        if isinstance(v, dict):
            _flatten(v, out)
        elif k in POINTER_FIELDS:
            out[k] = "0x%016x" % v
        elif k == "Stack":
            out[k] = ["0x%016x" % a for a in v]
        elif isinstance(v, list):
            out[k] = list(v)
        elif isinstance(v, bytes):
            out[k] = v.hex()
        else:
            out[k] = v


class Buffer:
    __slots__ = ("index", "file_offset", "header", "cpu", "records", "classic", "tl", "stamps")

    def __init__(self, index, file_offset, header, cpu):
        self.index, self.file_offset, self.header, self.cpu = index, file_offset, header, cpu
        self.records = []
        self.tl = []        # TlRecord: kprof's own records
        self.stamps = []    # every event's time stamp, in the buffer's order
        self.classic = []   # (file offset, raw bytes) of EVENT_TRACE_HEADER events


class Etl:
    """A whole file: its logfile header event, buffers, and records."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.data = f.read()
        self.buffers = []
        self.header_event = None
        self._read()

    # -- the header ---------------------------------------------------

    def _fail(self, what):
        raise EtlError(what)

    def _read_header_event(self):
        d = self.data
        if len(d) < WMI_BUFFER_HEADER_SIZE + SYSTEM_TRACE_HEADER.sizeof() + TRACE_LOGFILE_HEADER.sizeof():
            self._fail("file too short (%d bytes) for a header buffer and logfile header" % len(d))
        bh = WMI_BUFFER_HEADER.parse(d[:WMI_BUFFER_HEADER_SIZE])
        if bh.BufferType != BUFFER_TYPE_HEADER:
            self._fail("buffer 0 has BufferType %d, not HEADER (4)" % bh.BufferType)
        end = min(len(d), bh.BufferSize, bh.Offset)
        try:
            ev = HEADER_EVENT.parse(d[WMI_BUFFER_HEADER_SIZE:end])
        except Exception as e:                      # construct errors, bad UTF-16
            self._fail("header event does not parse: %s" % e)
        sh, lh = ev.System, ev.Logfile
        if sh.Marker & TRACE_HEADER_FLAGS != TRACE_HEADER_FLAGS:
            self._fail("header event marker 0x%08x lacks TRACE_HEADER_FLAG | EVENT_TRACE" % sh.Marker)
        if (sh.Marker >> 16) & 0xFF != TYPE_SYSTEM64:
            self._fail("header event marker 0x%08x: header type 0x%02x, not SYSTEM64 (0x02)" %
                       (sh.Marker, (sh.Marker >> 16) & 0xFF))
        if sh.Marker & 0xFFFF != 2:
            self._fail("header event version %d, strict readers want 2 (marker 0x%08x)" %
                       (sh.Marker & 0xFFFF, sh.Marker))
        if sh.HookId != 0x0000:
            self._fail("first event of the header buffer has HookId 0x%04x, not the logfile header (0x0000)" %
                       sh.HookId)
        names = (len(ev.LoggerName) + len(ev.LogFileName) + 2) * 2
        if sh.Size != SYSTEM_TRACE_HEADER.sizeof() + TRACE_LOGFILE_HEADER.sizeof() + names:
            self._fail("header event Size %d is not 0x20 + 0x118 + the two names (%d bytes)" % (sh.Size, names))
        if lh.PointerSize != 8:
            self._fail("PointerSize %d, this reader wants x64 (8)" % lh.PointerSize)
        if lh.BufferSize < WMI_BUFFER_HEADER_SIZE:
            self._fail("logfile header BufferSize %d is smaller than a buffer header" % lh.BufferSize)
        if lh.NumberOfProcessors == 0:
            self._fail("NumberOfProcessors is 0")
        if lh.BuffersWritten == 0:
            self._fail("BuffersWritten is 0 (the header buffer itself counts)")
        self.header_event = ev

    @property
    def logfile(self):
        return self.header_event.Logfile

    # -- buffers ------------------------------------------------------

    def _check_buffer(self, i, pos, bh):
        lh = self.logfile
        where = "buffer %d (file offset 0x%x)" % (i, pos)
        if bh.BufferSize < WMI_BUFFER_HEADER_SIZE:
            self._fail("%s: BufferSize %d is smaller than its header" % (where, bh.BufferSize))
        if bh.BufferSize > lh.BufferSize:
            self._fail("%s: BufferSize 0x%x exceeds the logfile header's BufferSize 0x%x" %
                       (where, bh.BufferSize, lh.BufferSize))
        if pos + bh.BufferSize > len(self.data):
            self._fail("%s: BufferSize 0x%x runs past the end of the file (%d bytes)" %
                       (where, bh.BufferSize, len(self.data)))
        if bh.SavedOffset != bh.Offset or bh.CurrentOffset < bh.SavedOffset:
            self._fail("%s: SavedOffset 0x%x and Offset 0x%x differ, or CurrentOffset 0x%x is below them" %
                       (where, bh.SavedOffset, bh.Offset, bh.CurrentOffset))
        if bh.Offset > bh.BufferSize:
            self._fail("%s: SavedOffset/Offset 0x%x is past BufferSize 0x%x" % (where, bh.Offset, bh.BufferSize))
        if bh.Offset < WMI_BUFFER_HEADER_SIZE:
            self._fail("%s: Offset 0x%x is inside the buffer header" % (where, bh.Offset))
        tail = self.data[pos + bh.Offset:pos + bh.BufferSize]
        if tail.count(0xFF) != len(tail):
            bad = next(k for k, b in enumerate(tail) if b != 0xFF)
            self._fail("%s: unused byte at buffer offset 0x%x is 0x%02x, not 0xFF" %
                       (where, bh.Offset + bad, tail[bad]))
        if bh.BufferFlag & FLAG_PROC_INDEX:
            cpu = bh.ClientContext.ProcessorNumber | bh.ClientContext.Alignment << 8
        else:
            cpu = bh.ClientContext.ProcessorNumber
            if bh.ClientContext.Alignment != 8:
                self._fail("%s: Alignment %d, not 8" % (where, bh.ClientContext.Alignment))
        if cpu >= lh.NumberOfProcessors:
            self._fail("%s: processor %d is not below NumberOfProcessors %d" % (where, cpu, lh.NumberOfProcessors))
        if not 0 <= bh.SequenceNumber <= lh.BuffersWritten:
            self._fail("%s: SequenceNumber %d is outside 0..BuffersWritten (%d)" %
                       (where, bh.SequenceNumber, lh.BuffersWritten))
        if bh.BufferType not in BUFFER_TYPES:
            self._fail("%s: unknown BufferType %d" % (where, bh.BufferType))
        if (i == 0) != (bh.BufferType == BUFFER_TYPE_HEADER):
            self._fail("%s: BufferType %s %s" % (where, BUFFER_TYPES[bh.BufferType],
                       "in the first buffer" if i == 0 else "after the first buffer"))
        return cpu

    def _read_events(self, buf, pos, bh):
        """Walk the events of one buffer: all of Offset, 8-byte aligned."""
        d = self.data
        off = WMI_BUFFER_HEADER_SIZE
        where = "buffer %d (file offset 0x%x)" % (buf.index, pos)
        while off < bh.Offset:
            if off + 8 > bh.Offset:
                self._fail("%s: %d stray bytes at buffer offset 0x%x" % (where, bh.Offset - off, off))
            marker = int.from_bytes(d[pos + off:pos + off + 4], "little")
            htype = (marker >> 16) & 0xFF
            at = 0 if htype in SIZE_FIRST else 4
            size = int.from_bytes(d[pos + off + at:pos + off + at + 2], "little")
            if marker & TRACE_HEADER_FLAGS != TRACE_HEADER_FLAGS or htype not in HEADER_SIZES:
                self._fail("%s: event at buffer offset 0x%x has marker 0x%08x (not a known trace header)" %
                           (where, off, marker))
            if size < HEADER_SIZES[htype] or off + size > bh.Offset:
                self._fail("%s: event at buffer offset 0x%x has Size %d (header %d, data ends at 0x%x)" %
                           (where, off, size, HEADER_SIZES[htype], bh.Offset))
            if htype == TYPE_SYSTEM64 and buf.header.BufferType != BUFFER_TYPE_HEADER:
                raw = d[pos + off:pos + off + size]
                h = SYSTEM_TRACE_HEADER.parse(raw)
                buf.records.append(Record(buf.cpu, h.HookId, marker & 0xFF, h.SystemTime, marker, raw,
                                          raw[0x20:], buf.index, pos + off, h))
            if htype == TYPE_PERFINFO64 and buf.header.BufferType != BUFFER_TYPE_HEADER:
                raw = d[pos + off:pos + off + size]
                h = PERFINFO_TRACE_HEADER.parse(raw)
                pmc = (marker >> 8) & 7             # PMC counter values before the payload
                buf.records.append(Record(buf.cpu, h.HookId, marker & 0xFF, h.TimeStamp, marker, raw,
                                          raw[0x10 + 8 * pmc:], buf.index, pos + off))
            if htype == TYPE_FULL_HEADER64:
                buf.classic.append((pos + off, d[pos + off:pos + off + size]))
            if htype == TYPE_EVENT_HEADER64:
                h, provider, name, fields, items = parse_tl_event(d[pos + off:pos + off + size],
                                                                  "%s: event at buffer offset 0x%x" % (where, off))
                buf.tl.append(TlRecord(buf.cpu, h, provider, name, fields, items))
            if buf.header.BufferType != BUFFER_TYPE_HEADER:
                stamp_at = 0x08 if htype in (TYPE_PERFINFO32, TYPE_PERFINFO64) else 0x10
                buf.stamps.append(int.from_bytes(d[pos + off + stamp_at:pos + off + stamp_at + 8], "little"))
            off = (off + size + 7) & ~7
        if off != (bh.Offset + 7) & ~7:
            self._fail("%s: events end at 0x%x, Offset says 0x%x" % (where, off, bh.Offset))

    def _read(self):
        self._read_header_event()
        lh = self.logfile
        pos, i = 0, 0
        while pos < len(self.data):
            if pos + WMI_BUFFER_HEADER_SIZE > len(self.data):
                self._fail("%d bytes at file offset 0x%x: too short for a buffer header" %
                           (len(self.data) - pos, pos))
            if i == lh.BuffersWritten:
                self._fail("more buffers than BuffersWritten (%d): another one at file offset 0x%x" %
                           (lh.BuffersWritten, pos))
            bh = WMI_BUFFER_HEADER.parse(self.data[pos:pos + WMI_BUFFER_HEADER_SIZE])
            cpu = self._check_buffer(i, pos, bh)
            buf = Buffer(i, pos, bh, cpu)
            self._read_events(buf, pos, bh)
            self.buffers.append(buf)
            pos += bh.BufferSize
            i += 1
        if i != lh.BuffersWritten:
            self._fail("%d buffers in the file, BuffersWritten says %d" % (i, lh.BuffersWritten))
        seen = {}
        for b in self.buffers:
            key = (b.cpu, b.header.SequenceNumber)
            if key in seen:
                self._fail("buffers %d and %d: CPU %d has SequenceNumber %d twice" %
                           (seen[key], b.index, b.cpu, b.header.SequenceNumber))
            seen[key] = b.index

    # -- records ------------------------------------------------------

    def cpu_buffers(self, cpu):
        """A CPU's data buffers in SequenceNumber order."""
        bufs = [b for b in self.buffers if b.cpu == cpu and b.header.BufferType != BUFFER_TYPE_HEADER]
        return sorted(bufs, key=lambda b: b.header.SequenceNumber)

    def cpu_records(self, cpu, kind="records"):
        """A CPU's kernel records ("records") or TraceLogging events ("tl"), in order."""
        for b in self.cpu_buffers(cpu):
            yield from getattr(b, kind)

    def records(self, kind="records"):
        """All records, CPUs merged by TimeStamp (ties: the lower CPU)."""
        streams = [self.cpu_records(c, kind) for c in range(self.logfile.NumberOfProcessors)]
        return heapq.merge(*streams, key=lambda r: (r.timestamp, r.cpu))

    def tl_records(self):
        """kprof's own records (TraceLogging events), CPUs merged as records() merges them."""
        return self.records("tl")


def read_etl(path):
    """Read and check a file; raises EtlError (or OSError)."""
    return Etl(path)


# ------------------------------------------------------------------ output

def filetime_str(ft):
    import datetime
    if ft == 0:
        return "0"
    t = datetime.datetime(1601, 1, 1) + datetime.timedelta(microseconds=ft // 10)
    return "%d (%s UTC)" % (ft, t.isoformat(sep=" "))


def print_summary(etl, out):
    ev, lh = etl.header_event, etl.logfile
    v = lh.VersionDetail
    out.write("%s: %d buffers of 0x%x bytes, logger \"%s\", file \"%s\"\n" %
              (etl.path, len(etl.buffers), lh.BufferSize, ev.LoggerName, ev.LogFileName))
    out.write("  Version %d.%d.%d.%d  ProviderVersion %d  NumberOfProcessors %d  PointerSize %d\n" %
              (v.MajorVersion, v.MinorVersion, v.SubVersion, v.SubMinorVersion, lh.ProviderVersion,
               lh.NumberOfProcessors, lh.PointerSize))
    out.write("  PerfFreq %d  CpuSpeedInMHz %d  ReservedFlags %d  TimerResolution %d  LogFileMode 0x%x\n" %
              (lh.PerfFreq, lh.CpuSpeedInMHz, lh.ReservedFlags, lh.TimerResolution, lh.LogFileMode))
    out.write("  BootTime  %s\n  StartTime %s\n  EndTime   %s\n" %
              (filetime_str(lh.BootTime), filetime_str(lh.StartTime), filetime_str(lh.EndTime)))
    out.write("  header event SystemTime %d  BuffersWritten %d  EventsLost %d  BuffersLost %d\n" %
              (ev.System.SystemTime, lh.BuffersWritten, lh.EventsLost, lh.BuffersLost))
    counts, per_cpu = {}, {}
    for cpu in range(lh.NumberOfProcessors):
        bufs = etl.cpu_buffers(cpu)
        n = sum(len(b.records) for b in bufs)
        lost = sum(1 for b in bufs if b.header.BufferFlag & FLAG_EVENTS_LOST)
        per_cpu[cpu] = n
        out.write("  cpu %d: %d buffers (%d flagged EVENTS_LOST), %d records\n" % (cpu, len(bufs), lost, n))
        for b in bufs:
            for r in b.records:
                k = (r.event_name(), r.hook)
                counts[k] = counts.get(k, 0) + 1
    for (name, hook), n in sorted(counts.items(), key=lambda kv: kv[0][1]):
        out.write("  %-16s 0x%04x %8d\n" % (name, hook, n))
    out.write("  total %d records\n" % sum(per_cpu.values()))
    tl = {}
    for r in etl.tl_records():
        tl[(r.provider, r.name)] = tl.get((r.provider, r.name), 0) + 1
    for (provider, name), n in sorted(tl.items()):
        out.write("  %-24s %-8s %8d\n" % (name, provider, n))
    out.write("  total %d TraceLogging events\n" % sum(tl.values()))


def main(argv):
    ap = argparse.ArgumentParser(description="Read and check an ETL file written by `kprof etl`.")
    ap.add_argument("file")
    ap.add_argument("--json", action="store_true", help="one JSON object per record, in time order")
    ap.add_argument("--tl", action="store_true", help="with --json: kprof's own records (TraceLogging events)")
    a = ap.parse_args(argv)
    try:
        etl = read_etl(a.file)
    except EtlError as e:
        sys.stderr.write("etl_reader: %s: rejected: %s\n" % (a.file, e))
        return 1
    except OSError as e:
        sys.stderr.write("etl_reader: %s: %s\n" % (a.file, e))
        return 2
    try:
        if a.json:
            for r in (etl.tl_records() if a.tl else etl.records()):
                sys.stdout.write(json.dumps(r.to_json(), separators=(",", ":")) + "\n")
        else:
            print_summary(etl, sys.stdout)
    except BrokenPipeError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
