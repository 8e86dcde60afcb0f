"""tlown.py - which of kprof's own records an ETL file carries as TraceLogging
events, a decoded value as the ETL readers give it back, and a log's ETL
file written and read back by etl_reader.py: what test_etl,
test_etl_parser, the boot tests' ETL check (tests/boot/boot_common.py) and
scenario=noise's (noisecheck.py) share, said once.

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


def write_etl(kprof, log, folder):
    """`kprof etl LOG` into folder/trace.etl; (its path, the finished process)."""
    import os
    import subprocess
    etl = os.path.join(folder, "trace.etl")
    return etl, subprocess.run([kprof, "etl", log, "-o", etl, "--quiet"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)


def read_etl(etl, tl=False):
    """The ETL file as etl_reader.py (beside this file, no code shared with the writer) reads it: its
    events (tl: the TraceLogging ones, decoded by their schemas) as dicts, with the reader's exit status
    and stderr."""
    import json
    import os
    import subprocess
    reader = os.path.join(os.path.dirname(os.path.abspath(__file__)), "etl_reader.py")
    proc = subprocess.run(["/usr/bin/python3", reader, etl, "--json"] + (["--tl"] if tl else []),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    events = [json.loads(line) for line in proc.stdout.splitlines()] if proc.returncode == 0 else []
    return events, proc.returncode, proc.stderr.decode(errors="replace")
