"""etl_rundown_check.py - test_etl's checks of the events `kprof etl` makes
itself, every field against its layout, the expected values recomputed
here from `kprof decode --json`, the run header and `readelf -lW` (never
from the writer's code):

  on CPU 0 first, all at start_tsc: EventTrace Extension (the run
  header's group masks), SystemConfig CPU v2 (MHz = tsc_hz/1e6 rounded,
  NumberOfProcessors, PageSize 4096, ComputerName "kprof"), PerfInfo
  CollectionStart v3 (ProfileTime, the interval of profile.interval= or
  the kernel's 1 ms default, SourceName "Timer"), for each process of the
  rundown threads (the KprofThread records before any Windows record of
  their CPU) its Process DCStart v4 then its threads' Thread DCStart v3
  with their names, Image DCStart v3 + KernelBase v2 (the kernel
  image: its link address to its last PT_LOAD's end, page-rounded), RDComplete, EndExtension;
  for every later KprofThread (ThreadId != 0): Thread Start at its CPU and
  TimeStamp, preceded by Process Start for the earliest record of a
  process not in the rundown; CollectionEnd last on CPU 0 at the latest
  record's TimeStamp; each event's header type (PERFINFO64 or SYSTEM64) as
  a real Windows file gives its hook.
"""

import json
import os
import re
import subprocess
import sys

import etl_reader
from etl_symbols import kernel_image

SID_LOCAL_SYSTEM = (1, 1, bytes([0, 0, 0, 0, 0, 5]), [18])  # S-1-5-18


def _names(decoded):
    """(rundown threads, later threads) from the decoder's KprofThread records."""
    rundown, later, windows_seen = [], [], set()
    for d in decoded:
        if d["hook"] >> 8 != 0xFE:
            windows_seen.add(d["cpu"])
        elif d["event"] == "KprofThread":
            (later if d["cpu"] in windows_seen else rundown).append(d)
    return rundown, [d for d in later if d["ThreadId"] != 0]


def check_rundown(build, etl_path, log_path, kernel, check, rh):
    p = subprocess.run([os.path.join(build, "kprof"), "decode", "--json", log_path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    decoded = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    decoded = [d for d in decoded if "loss" not in d]
    etl = etl_reader.read_etl(etl_path)
    ncpu, start = rh["cpu_count"], rh["start_tsc"]
    rundown, later = _names(decoded)
    m = re.search(r"(?:^| )profile\.interval=(\d+)", rh["cmdline"])
    interval = int(m.group(1)) if m else 10000
    pids = []
    for t in rundown:
        if t["ProcessId"] not in pids:
            pids.append(t["ProcessId"])
    head = [r for r in etl.cpu_records(0)][:7 + len(pids) + len(rundown)]
    order = []                                      # each process, then its threads (a real file's order)
    for pid in pids:
        order += [(0x0303, pid)] + [(0x0503, t["ThreadId"]) for t in rundown if t["ProcessId"] == pid]
    want = [0x0005, 0x0B0A, 0x0F49] + [h for h, _ in order] + [0x1403, 0x1421, 0x0008, 0x0020]
    check("rundown: CPU 0 starts Extension, SystemConfig, CollectionStart, %d Process DCStart each followed by "
          "its Thread DCStart (%d), Image DCStart, KernelBase, RDComplete, EndExtension" % (len(pids), len(rundown)),
          [r.hook for r in head] == want, ["0x%04x" % r.hook for r in head])
    by_pid = [x for x, _ in sorted(((t, order.index((0x0503, t["ThreadId"]))) for t in rundown),
                                   key=lambda p: p[1])]
    proc_at = [3 + order.index((0x0303, pid)) for pid in pids]
    check("rundown: every event at start_tsc %d" % start, all(r.timestamp == start for r in head))
    versions = {0x0005: 2, 0x0008: 2, 0x0020: 2, 0x0B0A: 2, 0x0F49: 3, 0x0303: 4, 0x0503: 3, 0x1403: 3,
                0x1421: 2}
    # Header types as a real Windows 10 18362 kernel-logger file has them (test_etl_real):
    # PERFINFO64 for EventTrace's, Process DCStart, KernelBase; SYSTEM64 for Thread DCStart
    # and the kernel's Image DCStart.  SystemConfig: none in the real files seen (SYSTEM64 assumed).
    perfinfo = {0x0005, 0x0008, 0x0020, 0x0303, 0x1421, 0x0F49}
    bad = [hex(r.hook) for r in head if r.version != versions[r.hook] or
           (r.marker >> 16) & 0xFF != (0x11 if r.hook in perfinfo else 0x02)]
    check("rundown: versions and header types (PERFINFO64 or SYSTEM64, as a real file)", not bad, bad)
    f = [r.fields() for r in head]
    # Word 7 is kprof's own groups in the run header, Windows' control flags in an ETL file: 0 there.
    want = list(rh["group_masks"][:7]) + [0]
    check("Extension and EndExtension: GroupMasks = the run header's, word 7 (kprof's own groups) 0",
          list(f[0]["GroupMasks"]) == want == list(f[-1]["GroupMasks"]) and rh["group_masks"][7] != 0,
          (f[0]["GroupMasks"], rh["group_masks"]))
    c = f[1]
    check("SystemConfig CPU: MHz %d, NumberOfProcessors %d, PageSize 4096, granularity 64 KiB, ComputerName kprof" %
          (c["MHz"], c["NumberOfProcessors"]),
          c["MHz"] == round(rh["tsc_hz"] / 1e6) == etl.logfile.CpuSpeedInMHz and c["NumberOfProcessors"] == ncpu and
          c["PageSize"] == 4096 and c["AllocationGranularity"] == 65536 and
          c["ComputerName"].rstrip("\0") == "kprof" and c["HyperThreadingFlag"] == 0 and
          etl_reader.CONFIG_CPU_V2.sizeof() == len(head[1].payload) == 808, c["MHz"])
    c = f[2]
    check("CollectionStart: ProfileTime, interval %d (100 ns), SourceName Timer" % interval,
          c["Source"] == 0 and c["NewInterval"] == c["OldInterval"] == interval and c["SourceName"] == "Timer")
    for i, pid in enumerate(pids):
        e, t = f[proc_at[i]], next(t for t in rundown if t["ProcessId"] == pid)
        check("Process DCStart %d %s: ids, SessionId none, ExitStatus 259, SID S-1-5-18, names" %
              (pid, e["ImageFileName"]),
              e["ProcessId"] == pid and e["ParentId"] == (0 if pid in (0, 4) else 4) and
              e["SessionId"] == 0xFFFFFFFF and e["ExitStatus"] == (259 if pid else 0) and e["UserSidToken"] != 0 and
              (e["SidRevision"], e["SidSubAuthorityCount"], bytes.fromhex(e["SidAuthority"]),
               e["SidSubAuthority"]) == SID_LOCAL_SYSTEM and
              e["ImageFileName"] == t["ProcessName"] == e["CommandLine"] and e["PackageFullName"] == "", e)
    affinity = (1 << ncpu) - 1

    def thread_ok(e, t):
        return (e["ProcessId"] == t["ProcessId"] and e["TThreadId"] == t["ThreadId"] and
                e["BasePriority"] == t["BasePriority"] & 0xFF and e["ThreadName"] == t["ThreadName"] and
                e["Affinity"] == affinity and e["PagePriority"] == 5 and e["IoPriority"] == 2 and
                e["StackBase"] == e["TebBase"] == e["Win32StartAddr"] == 0)
    for t in by_pid:
        e = f[3 + order.index((0x0503, t["ThreadId"]))]
        check("Thread DCStart %d %s: ids, priority, name, affinity" % (t["ThreadId"], t["ThreadName"]),
              thread_ok(e, t), e)
    base, size = kernel_image(kernel)
    e, k = f[-4], f[-3]
    check("Image DCStart: ImageBase 0x%x, ImageSize 0x%x (the link address, readelf), FileName ends in the ELF's "
          "name" % (base, size),
          int(e["ImageBase"], 16) == base == e["DefaultBase"] and e["ImageSize"] == size and
          e["ProcessId"] == 0 and e["FileName"].endswith("\\" + os.path.basename(kernel)) and
          int(k["ImageBase"], 16) == base, (e, base, size))

    made = [r for r in etl.records() if r.hook in (0x0301, 0x0501)]
    seen_pids, expect = set(pids), []
    for t in sorted(later, key=lambda t: (t["TimeStamp"], t["cpu"])):
        if t["ProcessId"] not in seen_pids:
            seen_pids.add(t["ProcessId"])
            expect.append((0x0301, t))
        expect.append((0x0501, t))
    ok = len(made) == len(expect)
    for r, (hook, t) in zip(made, expect):
        e = r.fields()
        ok = ok and r.hook == hook and r.cpu == t["cpu"] and r.timestamp == t["TimeStamp"]
        if hook == 0x0501:
            ok = ok and r.version == 3 and thread_ok(e, t)
        else:
            ok = ok and r.version == 4 and e["ProcessId"] == t["ProcessId"] and e["ParentId"] == 4 and \
                e["ImageFileName"] == t["ProcessName"] and e["ExitStatus"] == 259
    check("Thread Start for %d later threads (Process Start for %d new processes), at their record's CPU and time" %
          (len(later), len(expect) - len(later)), ok and len(later) > 0, (len(made), len(expect)))
    last = list(etl.cpu_records(0))[-1]
    check("CollectionEnd last on CPU 0 at the latest record's TimeStamp",
          last.hook == 0x0F4A and last.timestamp == max(d["TimeStamp"] for d in decoded) and
          last.fields()["NewInterval"] == interval)
