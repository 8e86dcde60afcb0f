"""tlown.py - which of kprof's own records an ETL file carries as TraceLogging
events, and a decoded value as the ETL readers give it back: what test_etl,
test_etl_parser and the boot tests' ETL check (tests/boot/boot_common.py)
share, said once.

kprof etl writes every own record (hook 0xFEnn) as a TraceLogging event of
the provider "kprof" but KprofThread (it becomes Thread and Process
events), KprofRecordsLost (the EVENTS_LOST flag) and KprofEventType (each
user event's schema), and but one too short for its description (the
decoder shows it raw, as "Unknown").
"""

NOT_TL = {0xFE04, 0xFE06, 0xFE09}   # KprofThread, KprofRecordsLost, KprofEventType


def carried(d):
    """True when `kprof decode --json`'s record d is in the ETL file as a TraceLogging event."""
    return d["hook"] >> 8 == 0xFE and d["hook"] not in NOT_TL and d["event"] != "Unknown"


def plain(v):
    """A decoder value as the readers give it: "0x..." pointers as integers, lists item by item."""
    if isinstance(v, str) and v.startswith("0x"):
        return int(v, 16)
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v
