/*
 * schema.h - the field numbers and enumeration values of Perfetto's trace
 * schema (protos/perfetto/trace/perfetto_trace.proto, perfetto.protos)
 * that the protobuf writer uses, message by message.
 */
#ifndef KPROF_TOOL_PERFETTO_SCHEMA_H
#define KPROF_TOOL_PERFETTO_SCHEMA_H

/* Trace */
#define TRACE_PACKET 1

/* TracePacket */
#define PACKET_TIMESTAMP          8
#define PACKET_SEQUENCE_ID        10  /* trusted_packet_sequence_id      */
#define PACKET_TRACK_EVENT        11
#define PACKET_INTERNED_DATA      12
#define PACKET_SEQUENCE_FLAGS     13
#define PACKET_CLOCK_SNAPSHOT     6
#define PACKET_DEFAULTS           59  /* trace_packet_defaults           */
#define PACKET_TRACK_DESCRIPTOR   60
#define SEQ_INCREMENTAL_STATE_CLEARED 1

/* TracePacketDefaults, TrackEventDefaults */
#define DEFAULTS_TIMESTAMP_CLOCK_ID 58
#define DEFAULTS_TRACK_EVENT        11
#define EVENT_DEFAULTS_TRACK_UUID   11

/* ClockSnapshot, ClockSnapshot.Clock */
#define SNAPSHOT_CLOCKS     1
#define CLOCK_ID            1
#define CLOCK_TIMESTAMP     2
#define CLOCK_INCREMENTAL   3  /* is_incremental                       */
#define CLOCK_BOOTTIME      6
#define CLOCK_SEQUENCE_BASE 64 /* 64..127: clocks of one sequence      */

/* InternedData, EventName */
#define INTERNED_EVENT_NAMES 2
#define EVENT_NAME_IID       1
#define EVENT_NAME_NAME      2

/* TrackDescriptor, CounterDescriptor */
#define TRACK_UUID          1
#define TRACK_NAME          2
#define TRACK_PARENT_UUID   5
#define TRACK_COUNTER       8
#define TRACK_CHILD_ORDERING 11
#define TRACK_SIBLING_RANK  12  /* sibling_order_rank                  */
#define ORDERING_EXPLICIT   3
#define COUNTER_UNIT        3
#define COUNTER_UNIT_COUNT  2

/* TrackEvent and its Type */
#define EVENT_TYPE          9
#define EVENT_NAME_IID_F    10  /* name_iid                            */
#define EVENT_COUNTER_VALUE 30
#define EVENT_FLOW_IDS      47  /* fixed64                             */
#define EVENT_TERMINATING_FLOW_IDS 48
#define TYPE_SLICE_BEGIN 1
#define TYPE_SLICE_END   2
#define TYPE_INSTANT     3
#define TYPE_COUNTER     4

/* TracePacket.ftrace_events: FtraceEventBundle, its CompactSched (packed
 * columns, one entry per sched_switch). */
#define PACKET_FTRACE_EVENTS           1
#define BUNDLE_CPU                     1
#define BUNDLE_COMPACT_SCHED           4
#define COMPACT_SWITCH_TIMESTAMP       1  /* differences, the first whole  */
#define COMPACT_SWITCH_PREV_STATE      2
#define COMPACT_SWITCH_NEXT_PID        3
#define COMPACT_SWITCH_NEXT_PRIO       4
#define COMPACT_INTERN_TABLE           5
#define COMPACT_SWITCH_NEXT_COMM_INDEX 6
#define COMPACT_WAKING_TIMESTAMP       7  /* differences, the first whole  */
#define COMPACT_WAKING_PID             8
#define COMPACT_WAKING_TARGET_CPU      9
#define COMPACT_WAKING_PRIO            10
#define COMPACT_WAKING_COMM_INDEX      11

/* TracePacket.process_tree: who the schedule's threads are. */
#define PACKET_PROCESS_TREE            2
#define TREE_PROCESSES                 1
#define TREE_THREADS                   2
#define PROCESS_PID                    1
#define PROCESS_CMDLINE                3
#define PROCESS_CMDLINE_IS_COMM        9
#define THREAD_TID                     1
#define THREAD_NAME                    2
#define THREAD_TGID                    3

#endif
