"""runwatch.py - when tools/qemu.py stops a run that the kernel does not end:
a progress watchdog over the serial port, and the line that says what it
saw last.

A run is stopped when nothing new has come from the serial port for
`stall` seconds: no console text and no byte of a trace frame.  A run
that keeps making progress goes on however long it takes, because how
long a run takes depends on the machine far more than on kprof: under
this project's KVM (software paging, an exit per serial byte) a mix of
four 1 s workloads took 57 s and its dump ran past the old fixed 120 s;
with 64 CPUs under TCG the sched phase alone took 180 to 229 s.  Bytes,
not whole lines or frames, count as progress: a frame is at most 2 KiB of
records (KPROF_CHUNK_BYTES) plus its headers, so on the slowest link seen
(about 8 KB/s) one arrives every quarter of a second anyway, and a
console line is written whole.

An optional hard cap (`cap`, seconds, 0 for none) stops even a run that
keeps printing, for callers that must end in bounded time (the boot tests
use ten times their stall bound: a kernel that loops printing the same
line forever still fails).

Why it stopped, in one line (Watchdog.describe): how long nothing came,
the last whole console line and how long ago, the last whole trace frame
(its type, CPU and sequence number) and how long ago, and the bytes
received.  The console text is taken apart from the frames by the
FrameFilter tools/qemu.py gives it (docs/wire-format.md).
"""

import time

FRAME_TYPES = {1: "run header", 2: "buffer", 3: "CPU end", 4: "run end", 5: "chunk", 6: "run info"}


class Watchdog:
    """Feed it every piece of serial output with feed(); ask expired()
    whether the run is to be stopped, and describe() why."""

    def __init__(self, stall_s, cap_s, frames, start=None):
        self.stall_s = stall_s          # seconds without a new byte that stop the run
        self.cap_s = cap_s              # seconds in all that stop it; 0: no cap
        self.frames = frames            # a FrameFilter: console text out, frames counted
        self.start = time.monotonic() if start is None else start
        self.last_byte = self.start     # when the last byte came
        self.bytes = 0                  # bytes received
        self.partial = b""              # console text after the last line end
        self.line = None                # the last whole, non-empty console line
        self.line_at = None
        self.frame = None               # (type, cpu, seq) of the last whole frame header
        self.frame_at = None
        self.stopped = None             # "stall" or "cap" once expired() said so

    def feed(self, data, now=None):
        """One piece of serial output; returns its console text (as
        FrameFilter.feed does)."""
        now = time.monotonic() if now is None else now
        if not data:
            return b""
        self.bytes += len(data)
        self.last_byte = now
        seen = self.frames.frames_seen
        text = self.frames.feed(data)
        if self.frames.frames_seen != seen:
            self.frame, self.frame_at = self.frames.last_frame, now
        lines = (self.partial + text).split(b"\n")
        self.partial = lines.pop()[-4096:]
        for line in reversed(lines):
            if line.strip():
                self.line, self.line_at = line.strip().decode("utf-8", "replace"), now
                break
        return text

    def expired(self, now=None):
        """None while the run may go on; "stall" or "cap" when it is to be
        stopped (and stays so)."""
        now = time.monotonic() if now is None else now
        if self.stopped is None:
            if now - self.last_byte >= self.stall_s:
                self.stopped = "stall"
            elif self.cap_s and now - self.start >= self.cap_s:
                self.stopped = "cap"
        return self.stopped

    def wait_s(self, now=None):
        """Seconds until expired() may change: how long a select() may sleep."""
        now = time.monotonic() if now is None else now
        left = self.last_byte + self.stall_s - now
        if self.cap_s:
            left = min(left, self.start + self.cap_s - now)
        return max(0.0, left)

    def last_seen(self, now):
        """What came last: the console line, the frame, the bytes."""
        parts = []
        if self.line is not None:
            line = self.line if len(self.line) <= 160 else self.line[:157] + "..."
            parts.append("the last console line, %.0f s ago: \"%s\"" % (now - self.line_at, line))
        else:
            parts.append("no console line")
        if self.frame is not None:
            kind, cpu, seq = self.frame
            what = FRAME_TYPES.get(kind, "type %d" % kind) + ("" if cpu == 0xFFFF else " of CPU %d" % cpu)
            parts.append("the last trace frame, %.0f s ago: %s, sequence %d" % (now - self.frame_at, what, seq))
        else:
            parts.append("no trace frame")
        parts.append("%d bytes received in %.0f s, %d of them in trace frames" % (
            self.bytes, now - self.start, self.frames.frame_bytes))
        return "; ".join(parts)

    def describe(self, now=None):
        """The time-out line: why the run was stopped and what came last."""
        now = time.monotonic() if now is None else now
        if self.stopped == "cap":
            why = "stopped at the cap of %d s in all (--timeout) while the serial port still moved (the last " \
                  "byte %.0f s ago)" % (self.cap_s, now - self.last_byte)
        else:
            why = "timeout: nothing on the serial port for %.0f s (--stall %d s), the kernel never ended the run" % (
                now - self.last_byte, self.stall_s)
        return "%s; %s" % (why, self.last_seen(now))
