#!/usr/bin/python3
"""sender.py KPROF KERNEL [--rounds N] [--cpus N] [--scenario S] - what sending the
trace costs a stream-mode run under QEMU, ours against a baseline, interleaved.

Each round boots `scenario=S` (default resources, stream mode with its default
buffers) on --cpus CPUs (default 4) twice, in turn: as it is ("ours") and with
trace.compress=off ("baseline": the same sender with raw chunks, about twice the
bytes on the port), or with --baseline-kernel ELF that kernel (an older sender)
on the same command line.  For each run it reports:

  - egress: record bytes the port carried per second of the run (MB/s), and
    wire bytes per second (KB/s), both over the trace's own time span;
  - send share: SampledProfile samples in the send path, of all samples.  A
    sample is in the send path when its thread is the trace logger
    (KprofThread name "TraceLogger") or when its instruction pointer or any
    frame of its stack walk is in a send-path function (SEND_FILES,
    SEND_FUNCTIONS below: found with addr2line on KERNEL), which also counts
    frames sent from another thread, an idle CPU's say.  Goal: under 2%;
  - of those, the logger thread's samples at a real-time priority (>= 16,
    the SampledProfile Priority field): time it took by outranking the
    workload's threads, rather than time no workload thread wanted;
  - records kept and lost (kprof check), and the exit status.

Medians over the rounds and ours/baseline ratios follow.  The floor under
TCG is the emulated port: QEMU 7.2 writes each byte the guest puts in the
16550's transmit register to its character device with one writev() (1.3 to
2 us of host time per byte on a 2-core host, arch/x86_64/serial/uart16550.c), so
the share cannot fall below wire bytes x that cost / (CPUs x run time)
whatever the guest does: the "outsb" samples are that floor.  Reports, never
fails (a noisy machine).
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import qemu  # noqa: E402
import wire_bytes  # noqa: E402

GOAL = 0.02
SENDER_THREAD = "TraceLogger"
URGENT_PRIORITY = 16  # a sender sample at a real-time priority outranked the workload's threads
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
# Source files (patterns, from the repository top) whose functions only
# ever get trace frames out: cut and encode chunks, frame them, hand them
# to the sinks of trace.out= (kernel/trace/out/out*.c: serial, the file form,
# the stick), decide when the logger sends (send_policy.c), and drive the
# UART.  The USB stack under the stick sink is left out: it also
# enumerates at boot, and these runs boot directly, with no stick.
SEND_FILES = ("kernel/trace/out/chunk.c", "kernel/trace/out/frame.c", "kernel/trace/trace_delta.c",
              "kernel/trace/out/out*.c", "kernel/trace/out/send_policy.c", "kernel/lib/codec/lz4.c",
              "arch/x86_64/serial/uart16550.c")
# Send-path functions in files that also do other things (trace.c: the
# logger thread, the DPC that wakes it, the frames it sends; the console's
# claim of the port; serial.c's raw write).
SEND_FUNCTIONS = {"send_frame", "send_view", "send_run_info", "send_run_header", "send_final", "send_end_frames",
                  "encode_chunk", "flush_full", "fullest_cpu", "flush_dpc_routine", "logger_set_priority",
                  "logger_thread", "arch_serial_write_raw", "console_claim_output", "console_release_output",
                  "outsb"}  # x86.h, inlined into uart_write only


def send_path_files():
    """SEND_FILES expanded; exits naming a pattern that matches no file, or
    a SEND_FUNCTIONS name that no kernel source defines, so that a renamed
    file or function cannot silently drop out of the send share."""
    files = set()
    for pat in SEND_FILES:
        found = sorted(os.path.relpath(f, ROOT) for f in glob.glob(os.path.join(ROOT, pat)))
        if not found:
            sys.exit("bench sender: SEND_FILES entry %s matches no file: list the send path's files as they "
                     "are now" % pat)
        files.update(found)
    sources = ""
    for f in glob.glob(os.path.join(ROOT, "kernel", "**", "*.[ch]"), recursive=True) + \
            glob.glob(os.path.join(ROOT, "arch", "**", "*.[ch]"), recursive=True):
        with open(f, encoding="utf-8") as fh:
            sources += fh.read()
    for func in sorted(SEND_FUNCTIONS):
        if not re.search(r"^[a-z].*\b%s\(" % func, sources, re.M):
            sys.exit("bench sender: SEND_FUNCTIONS entry %s is defined nowhere in kernel/ or arch/: list the "
                     "send path's functions as they are now" % func)
    return files


def symbolise(kernel, addrs):
    """{address: (function, file)} through one addr2line call."""
    addrs = sorted(addrs)
    if not addrs:
        return {}
    out = subprocess.run(["addr2line", "-f", "-e", kernel], input="\n".join(addrs) + "\n",
                         capture_output=True, text=True, check=True).stdout.splitlines()
    res = {}
    for i, a in enumerate(addrs):
        func, where = out[2 * i], out[2 * i + 1]
        path = where.split(":")[0]
        if path.startswith(ROOT + "/"):
            path = path[len(ROOT) + 1:]
        res[a] = (func, path)
    return res


def in_send_path(sym, files):
    """Is (function, file) in the send path?  The file as addr2line gives
    it: relative to the repository the kernel was built in, or absolute
    when that was another checkout."""
    func, path = sym
    return func in SEND_FUNCTIONS or path in files or any(path.endswith("/" + f) for f in files)


def sample_shares(kprof, kernel, log, workdir, files):
    jsonl = os.path.join(workdir, "trace.jsonl")
    subprocess.run([kprof, "decode", "--json", "-o", jsonl, log, "--quiet"], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    samples, stacks, sender_ids = [], {}, set()
    with open(jsonl) as f:
        for line in f:
            r = json.loads(line)
            ev = r.get("event")
            if ev == "SampledProfile":
                samples.append(r)
            elif ev == "StackWalk":
                stacks[(r["cpu"], r["EventTimeStamp"])] = r["Stack"]
            elif ev == "KprofThread" and r.get("ThreadName") == SENDER_THREAD:
                sender_ids.add(r["ThreadId"])
    addrs = {s["InstructionPointer"] for s in samples}
    for st in stacks.values():
        addrs.update(st)
    syms = symbolise(kernel, addrs)
    send = by_thread = urgent = 0
    funcs = {}
    for s in samples:
        frames = [s["InstructionPointer"]] + stacks.get((s["cpu"], s["TimeStamp"]), [])
        thread = s["ThreadId"] in sender_ids
        path = any(in_send_path(syms[a], files) for a in frames if a in syms)
        if thread or path:
            send += 1
            by_thread += thread
            urgent += thread and s.get("Priority", 0) >= URGENT_PRIORITY
            name = syms.get(s["InstructionPointer"], ("?", ""))[0]
            funcs[name] = funcs.get(name, 0) + 1
    top = sorted(funcs.items(), key=lambda kv: -kv[1])[:6]
    return len(samples), send, by_thread, urgent, top


def one_run(args, kernel, cmdline, workdir):
    opts = qemu.parser().parse_args(["run", "--boot", "direct", "--cpus", str(args.cpus), "--kernel", kernel,
                                     "--cmdline", cmdline])
    opts.mem = qemu.default_mem(opts.cpus)
    opts.stall = qemu.default_stall(opts.cpus)
    res = qemu.run(opts, say=lambda *a: None)
    log = os.path.join(workdir, "serial.log")
    with open(log, "wb") as f:
        f.write(res.output)
    summ = os.path.join(workdir, "summary.json")
    subprocess.run([args.kprof, "check", log, "--summary-json", summ, "--quiet"], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    s = json.load(open(summ)) if os.path.exists(summ) else {}
    wire, rec_bytes, records, _ = wire_bytes.measure(log)
    total, send, by_thread, urgent, top = sample_shares(args.kprof, kernel, log, workdir, args.send_files)
    span = trace_span(os.path.join(workdir, "trace.jsonl"))
    return {
        "status": res.status, "records": s.get("records", 0), "lost": s.get("lost_total", 0) + s.get("lost_link", 0),
        "rec_mbs": rec_bytes / span / 1e6 if span else 0.0, "wire_kbs": wire / span / 1e3 if span else 0.0,
        "samples": total, "send": send, "by_thread": by_thread, "share": send / total if total else 0.0, "top": top,
        "urgent": urgent, "urgent_share": urgent / total if total else 0.0,
        "elapsed": res.elapsed_s,
    }


def trace_span(jsonl):
    first = last = None
    with open(jsonl) as f:
        for line in f:
            t = json.loads(line).get("t")
            if t is None:
                continue
            first = t if first is None else min(first, t)
            last = t if last is None else max(last, t)
    return (last - first) if first is not None else 0.0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kprof")
    p.add_argument("kernel")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--cpus", type=int, default=4)
    p.add_argument("--scenario", default="resources")
    p.add_argument("--extra", default="", help="more command-line words for both runs")
    p.add_argument("--baseline-kernel", default="",
                   help="the baseline is this kernel (an older sender, say) with the same command line, "
                        "instead of trace.compress=off")
    args = p.parse_args()
    args.send_files = send_path_files()
    if args.baseline_kernel:
        variants = (("ours", args.kernel, ""), ("baseline", args.baseline_kernel, ""))
    else:
        variants = (("ours", args.kernel, ""), ("baseline", args.kernel, "trace.compress=off"))
    runs = {name: [] for name, _, _ in variants}
    for rnd in range(args.rounds):
        for name, kernel, words in variants:
            cmdline = " ".join(w for w in ("scenario=" + args.scenario, args.extra, words) if w)
            with tempfile.TemporaryDirectory(prefix="kprof-sender-") as wd:
                r = one_run(args, kernel, cmdline, wd)
            runs[name].append(r)
            print("bench sender: round %d %-8s %s: exit %d, %d records, %d lost, %.3f MB/s of records, "
                  "%.1f KB/s on the wire, send path %d of %d samples = %.2f%% (%d by the logger thread, %d of "
                  "them at priority >= %d; %s)"
                  % (rnd + 1, name, cmdline, r["status"], r["records"], r["lost"], r["rec_mbs"], r["wire_kbs"],
                     r["send"], r["samples"], 100 * r["share"], r["by_thread"], r["urgent"], URGENT_PRIORITY,
                     ", ".join("%s %d" % kv for kv in r["top"])), flush=True)
    keys = ("share", "urgent_share", "rec_mbs", "wire_kbs", "lost", "records")
    med = {name: {k: statistics.median(r[k] for r in runs[name]) for k in keys} for name in runs}
    o, b = med["ours"], med["baseline"]
    for name in runs:
        m = med[name]
        print("bench sender: median %-8s: send share %.2f%% (goal < %.0f%%: %s), at priority >= %d %.2f%%, "
              "%.3f MB/s of records, %.1f KB/s wire, %d records, %d lost"
              % (name, 100 * m["share"], 100 * GOAL, "met" if m["share"] < GOAL else "MISSED", URGENT_PRIORITY,
                 100 * m["urgent_share"], m["rec_mbs"], m["wire_kbs"], m["records"], m["lost"]))

    def ratio(k):
        return o[k] / b[k] if b[k] else float("nan")
    print("bench sender: ours/baseline: send share %.2f, at priority >= %d %.2f, record MB/s %.2f, wire KB/s %.2f"
          % (ratio("share"), URGENT_PRIORITY, ratio("urgent_share"), ratio("rec_mbs"), ratio("wire_kbs")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
