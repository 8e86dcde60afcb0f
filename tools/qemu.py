#!/usr/bin/python3
"""qemu.py - start kprof in QEMU, capture the serial port, map the exit status.

Used by tools/kprof-run, which is `make run` (main(), the `run` command
below), and imported by the boot tests
(tests/boot/run_boot_tests.py), so both boot the machine the same way.

Boot paths:
  uefi    OVMF firmware, the GPT image as a virtio disk
  usb     OVMF firmware, the same image as a USB stick: usb-storage on an xHCI
          controller (--usb-hc qemu-xhci|nec-usb-xhci, at PCI 00:05.0; usb-ehci
          to see the loader refuse a controller that is not xHCI), on a
          root port or behind a usb-hub (--usb-hub 1); --usb-write-error makes
          writes over a sector fail (QEMU's blkdebug), --usb-write-throttle
          makes them slow (QEMU's I/O throttling); after the run the stick's
          \kprof\trace.bin is copied out of the run's copy of the image
          (docs/usb-stick.md)
  direct  no firmware: qemu -kernel with the kernel's PVH entry

`run` writes one run's files into its folder (--out, make run's build/run),
or with --repeat N a set of N runs of one configuration into --out/1 .. N
(make run REPEAT=N: build/runs/<name>/), each folder made as fresh_out makes
one; `kprof compare` compares two sets.  A run writes
serial.log, BOOT=usb's trace.bin and what convert_trace makes from the
trace.  It empties the folder first (fresh_out), so the folder never holds
an earlier run's files beside this one's.

The kernel ends a run through isa-debug-exit (include/kprof/exit_status.h);
QEMU then exits with (status << 1) | 1.  Anything else is a failure: a
time-out (exit 124: nothing on the serial port for --stall seconds, or
the --timeout cap reached; tools/runwatch.py, whose line says what came
last), QEMU's own exit 0 (a reset or triple fault under -no-reboot), or a
QEMU error.
"""

import argparse
import fnmatch
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

import runwatch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "image"))
import stickimage  # noqa: E402  (tools/image/: the disk image's layout)

# include/kprof/exit_status.h, as QEMU reports them.
EXIT_STATUSES = {
    (0x10 << 1) | 1: ("success", 0),
    (0x11 << 1) | 1: ("failure: a check in the run failed", 1),
    (0x12 << 1) | 1: ("panic: exception or bug check", 2),
    (0x13 << 1) | 1: ("configuration rejected: see the cmdline errors above", 3),
    (0x14 << 1) | 1: ("loader failure: see the loader's error above (kprof-uefi: or pvh:)", 4),
    (0x15 << 1) | 1: ("trace incomplete: no output holds the whole trace (the stick failed; see trace: lines)", 5),
}
EXIT_SPLIT = 5  # our status for 0x15
EXIT_CONFIG = 3  # our status for 0x13, and for a value refused here (ConfigError)
EXIT_TIMEOUT = 124
EXIT_OTHER = 125

BANNER_RE = re.compile(rb"^kprof \S+ \(build ", re.M)
BANNER_TAIL = 256  # bytes kept from earlier reads to find a banner cut between reads
ANSI_RE = re.compile(rb"\x1b\[[0-9;?=]*[A-Za-z]|\x1b[()][A-Z0-9]|\x1b[=>c]")

OVMF_CANDIDATES = [
    ("/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_VARS_4M.fd"),
    ("/usr/share/OVMF/OVMF_CODE.fd", "/usr/share/OVMF/OVMF_VARS.fd"),
    ("/usr/share/ovmf/OVMF.fd", None),
]

# BOOT=usb: the controllers QEMU 7.2 emulates that OVMF boots from and the
# kernel drives (xHCI), plus one it does not (usb-ehci, USB 2: the loader
# must refuse it, and say so); where the controller sits is fixed so that
# the boot tests know the PCI location the kernel must report.
USB_HCS = ("qemu-xhci", "nec-usb-xhci", "usb-ehci")
USB_HC_SLOT = 5


class RunError(Exception):
    """A problem that stops a run before QEMU starts."""


class ConfigError(RunError):
    """A value of the run's configuration refused before QEMU starts (the
    run's status is then EXIT_CONFIG, as for a command line the kernel
    refuses)."""


def find_ovmf():
    for code, vars_ in OVMF_CANDIDATES:
        if os.path.exists(code) and (vars_ is None or os.path.exists(vars_)):
            return code, vars_
    raise RunError("OVMF firmware not found (looked for %s); install the Debian package 'ovmf' "
                   "or use BOOT=direct" % ", ".join(c for c, _ in OVMF_CANDIDATES))


def kvm_usable():
    """(usable, reason)."""
    if not os.path.exists("/dev/kvm"):
        return False, "/dev/kvm does not exist (no KVM in this kernel, or inside a VM without nesting)"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False, "/dev/kvm is not readable and writable by this user (add yourself to group 'kvm')"
    return True, ""


def image_with_cmdline(image, cmdline, workdir):
    """A private copy of the disk image whose \\kprof\\cmdline.txt holds cmdline."""
    dst = os.path.join(workdir, "disk.img")
    subprocess.run(["cp", "--sparse=always", image, dst], check=True)
    txt = os.path.join(workdir, "cmdline.txt")
    with open(txt, "w") as f:
        f.write("# written by tools/qemu.py for this run\n%s\n" % cmdline)
    env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
    subprocess.run(["mcopy", "-o", "-i", stickimage.esp(dst), txt, "::/kprof/cmdline.txt"],
                   check=True, env=env)
    return dst


def usb_stick_args(opts, disk):
    """The stick on an xHCI controller: on its first root port, or on port 1
    of a usb-hub there.  OVMF finds no boot option for a stick behind a hub
    that has a bootindex (docs/usb-stick.md), so it has none there; with no
    other disk OVMF boots it anyway."""
    hc = getattr(opts, "usb_hc", "") or "qemu-xhci"
    if hc not in USB_HCS:
        raise ConfigError("USB_HC=%s: accepted values are %s" % (hc, ", ".join(USB_HCS)))
    hub = str(getattr(opts, "usb_hub", "") or "0")
    if hub not in ("0", "1"):
        raise ConfigError("USB_HUB=%s: accepted values are 0 (the stick on a root port) and 1 (behind a hub)" % hub)
    drive = "if=none,id=stick,format=raw,file=" + disk
    fault = getattr(opts, "usb_write_error", None)
    if fault:
        drive = "if=none,id=stick,format=raw,file=blkdebug:%s:%s" % (blkdebug_config(fault, disk), disk)
    throttle = getattr(opts, "usb_write_throttle", None)
    if throttle:
        drive += throttle_options(throttle)
    if getattr(opts, "usb_readonly", False):
        drive += ",readonly=on"
    args = ["-device", "%s,id=hc,addr=0x%x" % (hc, USB_HC_SLOT), "-drive", drive]
    if hub == "1":
        return args + ["-device", "usb-hub,bus=hc.0,port=1",
                       "-device", "usb-storage,id=stickdev,bus=hc.0,port=1.1,drive=stick"]
    return args + ["-device", "usb-storage,id=stickdev,bus=hc.0,port=1,drive=stick,bootindex=1"]


def parse_write_error(text):
    """--usb-write-error SECTOR[,once|always]: (sector, once)."""
    parts = text.split(",")
    try:
        sector = int(parts[0], 0)
    except ValueError:
        sector = -1
    when = parts[1] if len(parts) > 1 else "once"
    if sector < 0 or len(parts) > 2 or when not in ("once", "always"):
        raise RunError("--usb-write-error %s: accepted: SECTOR (a disk sector, 512 bytes, from 0), "
                       "optionally followed by ,once (the default) or ,always" % text)
    return sector, when == "once"


def write_error_arg(text):
    try:
        return parse_write_error(text)
    except RunError as e:
        raise argparse.ArgumentTypeError(str(e))


def blkdebug_config(fault, disk):
    """A blkdebug configuration beside the run's disk: every write that
    covers the sector fails with EIO (errno 5), once or every time.  QEMU's
    usb-storage then fails the SCSI WRITE with CHECK CONDITION."""
    sector, once = fault
    path = os.path.join(os.path.dirname(disk), "blkdebug.cfg")
    with open(path, "w") as f:
        f.write('[inject-error]\nevent = "write_aio"\niotype = "write"\nerrno = "5"\n'
                'sector = "%d"\nonce = "%s"\n' % (sector, "on" if once else "off"))
    return path


def parse_write_throttle(text):
    """--usb-write-throttle RATE[,BURST]: (rate, burst), bytes per second
    and bytes."""
    parts = text.split(",")
    try:
        rate, burst = int(parts[0], 0), int(parts[1], 0) if len(parts) > 1 else 0
    except ValueError:
        rate = burst = -1
    if len(parts) > 2 or rate < 1 or burst < 0 or (burst and burst < rate):
        raise RunError("--usb-write-throttle %s: accepted: RATE (bytes a second the stick's disk takes, from 1), "
                       "optionally followed by ,BURST (bytes, at least RATE, it takes first at full speed)" % text)
    return rate, burst


def write_throttle_arg(text):
    try:
        return parse_write_throttle(text)
    except RunError as e:
        raise argparse.ArgumentTypeError(str(e))


def throttle_options(throttle):
    """QEMU's I/O throttling of the stick's drive (a leaky bucket of BURST
    bytes, or RATE/10 without one, draining at RATE bytes a second): a
    write waits while the bucket is full, the guest running meanwhile, so
    the stick's WRITE gets its status late.  A boot test lifts it with
    the monitor's `block_set_io_throttle stick 0 0 0 0 0 0`."""
    rate, burst = throttle
    opts = ",throttling.bps-write=%d" % rate
    if burst:
        opts += ",throttling.bps-write-max=%d" % burst
    return opts


class Monitor:
    """QEMU's human monitor on a unix socket in the run's folder, for a
    boot test to act on the machine mid-run (device_del of the stick);
    pid is the QEMU process, for a test that stops it whole (SIGSTOP:
    unlike the monitor's stop, the guest's clock runs on)."""

    def __init__(self, path, pid=None):
        self.path = path
        self.pid = pid
        self.sock = None

    def command(self, line):
        """Send one monitor command; returns what the monitor answered."""
        import socket
        if self.sock is None:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.connect(self.path)
            self.sock.settimeout(5)
            self._read_prompt()
        self.sock.sendall(line.encode() + b"\n")
        return self._read_prompt().decode(errors="replace")

    def _read_prompt(self):
        data = b""
        while not data.endswith(b"(qemu) "):
            chunk = self.sock.recv(4096)
            if not chunk:
                break
            data += chunk
        return data

    def close(self):
        if self.sock:
            self.sock.close()


def qemu_command(opts, workdir, accel):
    cmd = ["qemu-system-x86_64",
           "-machine", opts.machine,
           "-m", opts.mem,
           "-smp", getattr(opts, "smp", None) or str(opts.cpus),
           "-display", "none",
           "-serial", "stdio",
           "-no-reboot",
           "-nic", "none",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    # A boot test that acts mid-run (opts.on_output) gets the human monitor
    # on a socket; otherwise none.
    if getattr(opts, "on_output", None):
        cmd += ["-monitor", "unix:%s,server=on,wait=off" % os.path.join(workdir, "monitor.sock")]
    else:
        cmd += ["-monitor", "none"]
    # For debugging a run by hand, e.g. a monitor socket to inspect a hang:
    # KPROF_QEMU_EXTRA="-monitor unix:build/mon.sock,server,nowait"
    cmd += os.environ.get("KPROF_QEMU_EXTRA", "").split()
    # Extra devices a caller (a boot test) attaches, e.g. USB controllers.
    cmd += list(getattr(opts, "qemu_args", None) or [])
    if accel == "kvm":
        cmd += ["-accel", "kvm", "-cpu", opts.cpu or "host"]
    else:
        cmd += ["-accel", "tcg"]
        if opts.cpu:
            cmd += ["-cpu", opts.cpu]
    if opts.boot == "direct":
        cmd += ["-kernel", opts.kernel]
        if opts.cmdline:
            cmd += ["-append", opts.cmdline]
        return cmd
    code, vars_ = find_ovmf()
    if vars_:
        vars_copy = os.path.join(workdir, "OVMF_VARS.fd")
        shutil.copyfile(vars_, vars_copy)
        cmd += ["-drive", "if=pflash,format=raw,unit=0,readonly=on,file=" + code,
                "-drive", "if=pflash,format=raw,unit=1,file=" + vars_copy]
    else:
        cmd += ["-bios", code]
    disk = image_with_cmdline(opts.image, opts.cmdline, workdir)
    prepare = getattr(opts, "prepare_disk", None)
    if prepare:
        prepare(disk)  # a boot test's change to this run's copy of the image
    if opts.boot == "usb":
        cmd += usb_stick_args(opts, disk)
    else:
        cmd += ["-drive", "if=none,id=disk0,format=raw,file=" + disk,
                "-device", "virtio-blk-pci,drive=disk0,bootindex=1"]
    return cmd


class Result:
    def __init__(self):
        self.status = EXIT_OTHER      # our status (0 = success)
        self.qemu_status = None       # QEMU's exit status, None on timeout
        self.outcome = ""             # words for humans
        self.output = b""             # everything the serial port produced
        self.banner_s = None          # seconds from start to the kernel banner
        self.elapsed_s = 0.0
        self.accel = "tcg"
        self.command = []
        self.stick_file = None        # BOOT=usb: where trace.bin was copied
        self.stick_size = 0           # its bytes
        self.stick_used = 0           # up to its last non-zero byte
        self.stick_error = ""         # why it could not be copied
        self.stick_extents = []       # trace.bin's (lba, blocks) in the image (mshowfat)
        self.stick_changed = None     # byte ranges changed outside them, [] none


def strip_frames(data):
    """The console text of a serial log: every valid trace frame removed
    (docs/wire-format.md; a frame is the magic, a 24-byte header whose CRC
    holds, and its payload)."""
    out, pos = [], 0
    while True:
        at = data.find(b"\xfeKPF", pos)
        if at < 0 or at + 24 > len(data):
            out.append(data[pos:])
            return b"".join(out)
        length, hcrc = struct.unpack_from("<I", data, at + 12)[0], struct.unpack_from("<I", data, at + 20)[0]
        if zlib.crc32(data[at:at + 20]) != hcrc:
            out.append(data[pos:at + 1])
            pos = at + 1
            continue
        out.append(data[pos:at])
        pos = min(len(data), at + 24 + length)


def clean_for_terminal(data):
    """Firmware output is full of escape sequences, and the trace frames are
    binary: show plain text."""
    return ANSI_RE.sub(b"", strip_frames(data)).replace(b"\r", b"")


class FrameFilter:
    """The console text of a serial stream that arrives in pieces: frames
    (docs/wire-format.md) are taken out even when they straddle pieces,
    and their bytes counted."""

    def __init__(self):
        self.pending = b""    # bytes that may start a frame
        self.skip = 0         # payload bytes of the current frame still to come
        self.frame_bytes = 0
        self.frames_seen = 0  # whole frame headers seen
        self.last_frame = None  # (type, cpu, seq) of the last one

    def feed(self, data):
        out = []
        data = self.pending + data
        self.pending = b""
        pos = 0
        while pos < len(data):
            if self.skip:
                n = min(self.skip, len(data) - pos)
                self.skip -= n
                self.frame_bytes += n
                pos += n
                continue
            at = data.find(b"\xfeKPF", pos)
            if at < 0:
                # keep a tail that could be the start of the magic
                keep = 0
                for k in (3, 2, 1):
                    if data.endswith(b"\xfeKPF"[:k]):
                        keep = k
                        break
                out.append(data[pos:len(data) - keep])
                self.pending = data[len(data) - keep:]
                break
            out.append(data[pos:at])
            if at + 24 > len(data):
                self.pending = data[at:]
                break
            length, hcrc = struct.unpack_from("<I", data, at + 12)[0], struct.unpack_from("<I", data, at + 20)[0]
            if zlib.crc32(data[at:at + 20]) != hcrc:
                out.append(data[at:at + 1])
                pos = at + 1
                continue
            self.frame_bytes += 24
            self.frames_seen += 1
            self.last_frame = (data[at + 5], struct.unpack_from("<H", data, at + 6)[0],
                               struct.unpack_from("<I", data, at + 8)[0])
            self.skip = length
            pos = at + 24
        return ANSI_RE.sub(b"", b"".join(out)).replace(b"\r", b"")


def stick_after_run(opts, workdir, res):
    """BOOT=usb: did the kernel change anything on the stick outside the
    trace file (it must not), and copy the trace file out (opts.stick_out)."""
    disk, before = os.path.join(workdir, "disk.img"), os.path.join(workdir, "disk.before")
    out = getattr(opts, "stick_out", None)
    try:
        _, res.stick_extents = stickimage.trace_extents(before)
        if out:
            res.stick_size, res.stick_used = stickimage.copy_trace_file(disk, out)
            res.stick_file = out
    except stickimage.StickError as e:
        res.stick_error = str(e)  # no trace file: then nothing at all may change
    res.stick_changed = stickimage.changed_outside(before, disk, res.stick_extents)


# Under KVM, this long without output before the banner is a hang.  KVM
# with software paging took 6 to 10 s to the banner alone and over 20 s
# beside another VM on a 2-core host (a false hang, then TCG).
KVM_STALL_S = 60


def run_once(opts, accel, echo=None):
    res = Result()
    res.accel = accel
    with tempfile.TemporaryDirectory(prefix="kprof-qemu-") as workdir:
        cmd = qemu_command(opts, workdir, accel)
        res.command = cmd
        if opts.boot == "usb":  # the stick as the kernel finds it, to compare with after the run
            subprocess.run(["cp", "--sparse=always", os.path.join(workdir, "disk.img"),
                            os.path.join(workdir, "disk.before")], check=True)
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        chunks = []
        watch = runwatch.Watchdog(getattr(opts, "stall", 0) or default_stall(opts.cpus),
                                  getattr(opts, "timeout", 0) or 0, FrameFilter(), start)
        fd = proc.stdout.fileno()
        os.set_blocking(fd, False)
        stalled, stop_line, tail = False, "", b""
        on_output = getattr(opts, "on_output", None)
        monitor = Monitor(os.path.join(workdir, "monitor.sock"), proc.pid) if on_output else None
        while True:
            now = time.monotonic()
            if watch.expired(now):
                stop_line = watch.describe(now)
                proc.kill()
                break
            if accel == "kvm" and res.banner_s is None and now - watch.last_byte > KVM_STALL_S:
                stalled = True
                proc.kill()
                break
            ready, _, _ = select.select([fd], [], [], min(0.2, watch.wait_s(now)))
            if ready:
                data = os.read(fd, 65536)
                if not data:
                    break
                watch.feed(data)
                chunks.append(data)
                if res.banner_s is None:
                    # This read with the end of those before: the banner may
                    # come a byte a read, in more pieces than any fixed count.
                    tail += data
                    if BANNER_RE.search(tail):
                        res.banner_s = time.monotonic() - start
                    tail = tail[-BANNER_TAIL:]
                if echo:
                    echo(data)
                if on_output:  # a boot test acting mid-run, e.g. device_del
                    on_output(chunks, monitor)
            elif proc.poll() is not None:
                # Drain whatever is left, then stop.
                try:
                    rest = os.read(fd, 1 << 20)
                except BlockingIOError:
                    rest = b""
                if rest:
                    chunks.append(rest)
                    if echo:
                        echo(rest)
                    continue
                break
        proc.wait()
        if monitor:
            monitor.close()
        res.elapsed_s = time.monotonic() - start
        res.output = b"".join(chunks)
        if opts.boot == "usb":
            stick_after_run(opts, workdir, res)
        if res.banner_s is None and BANNER_RE.search(res.output):
            res.banner_s = res.elapsed_s
        if stalled:
            res.status = EXIT_TIMEOUT
            res.outcome = "no output for %d s under KVM before the kernel started" % KVM_STALL_S
            return res
        if watch.stopped:
            res.status = EXIT_TIMEOUT
            res.outcome = stop_line
            return res
        res.qemu_status = proc.returncode
        if proc.returncode in EXIT_STATUSES:
            res.outcome, res.status = EXIT_STATUSES[proc.returncode]
        elif proc.returncode == 0:
            res.outcome = "QEMU exited on its own (reset or triple fault, no kernel exit status)"
        else:
            res.outcome = "QEMU failed with status %d" % proc.returncode
    return res


def run(opts, echo=None, say=print):
    """Run once, handling ACCEL=kvm falling back to TCG."""
    accel = opts.accel
    if accel not in ("tcg", "kvm"):
        raise ConfigError("ACCEL=%s: accepted values are tcg and kvm" % accel)
    if accel == "kvm":
        ok, why = kvm_usable()
        if not ok:
            say("kprof: KVM cannot be used: %s; falling back to TCG (software emulation)" % why)
            accel = "tcg"
    res = run_once(opts, accel, echo)
    if accel == "kvm" and res.banner_s is None and b"failed to set MSR 0x10a" in res.output and not opts.cpu:
        # Some hosts' KVM advertises IA32_ARCH_CAPABILITIES to -cpu host but
        # refuses QEMU's write of it; the CPU model without it works.
        say("kprof: this host's KVM rejects the ARCH_CAPABILITIES MSR of -cpu host; "
            "retrying with -cpu host,-arch-capabilities")
        opts.cpu = "host,-arch-capabilities"
        res = run_once(opts, accel, echo)
    if accel == "kvm" and res.banner_s is None and res.status != 0:
        if b"KVM internal error" in res.output or b"failed to initialize kvm" in res.output.lower() \
                or res.qemu_status not in EXIT_STATUSES:
            say("kprof: the run did not get as far as the kernel under KVM (%s); "
                "this host's KVM cannot run %s. Retrying with TCG (software emulation)."
                % (res.outcome, "the OVMF firmware" if opts.boot != "direct" else "this kernel"))
            if opts.cpu.startswith("host"):
                opts.cpu = ""
            res = run_once(opts, "tcg", echo)
    return res


def positive_int(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("CPUS=%s: expected a whole number from 1 to 256" % text)
    if not 1 <= v <= 256:
        raise argparse.ArgumentTypeError("CPUS=%s: expected a whole number from 1 to 256" % text)
    return v


def nonnegative_int(text):
    try:
        v = int(text)
    except ValueError:
        v = -1
    if v < 0:
        raise argparse.ArgumentTypeError("%s: expected a whole number of seconds, 0 or more" % text)
    return v


def parser():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["run"])
    p.add_argument("--boot", default="uefi", choices=["uefi", "usb", "direct"])
    p.add_argument("--cpus", type=positive_int, default=1)
    p.add_argument("--smp", default="", help="raw qemu -smp value (overrides --cpus), e.g. 2,maxcpus=4")
    p.add_argument("--cmdline", default="")
    p.add_argument("--accel", default="tcg")
    p.add_argument("--machine", default="q35", choices=["q35", "pc"])
    p.add_argument("--cpu", default="")
    p.add_argument("--mem", default="", help="qemu -m; empty: enough for the trace buffers of --cpus CPUs "
                   "(default_mem)")
    p.add_argument("--kernel", default="build/kernel.elf")
    p.add_argument("--image", default="build/kprof.img")
    p.add_argument("--out", default="build/run")
    p.add_argument("--stall", type=nonnegative_int, default=0,
                   help="seconds with nothing on the serial port (no console text, no trace frame byte) after "
                        "which the run is stopped; 0: default_stall(--cpus), 120 s up to 8 CPUs, 400 s for 64")
    p.add_argument("--timeout", type=nonnegative_int, default=0,
                   help="seconds in all after which the run is stopped even while output still comes (a hard "
                        "cap); 0 (the default): none, the run ends when the kernel ends it or stalls")
    p.add_argument("--kprof", default="", help="the host tool: decode the trace in the log after the run")
    p.add_argument("--usb-hc", default="qemu-xhci", help="BOOT=usb: the xHCI controller, %s" % " or ".join(USB_HCS))
    p.add_argument("--usb-hub", default="0", help="BOOT=usb: 1 puts the stick behind a usb-hub")
    p.add_argument("--usb-readonly", action="store_true", help="BOOT=usb: the stick is read-only (readonly=on)")
    p.add_argument("--usb-write-error", type=write_error_arg, default=None, metavar="SECTOR[,always]",
                   help="BOOT=usb: writes covering this disk sector fail with EIO (QEMU's blkdebug), once "
                        "(the default) or always")
    p.add_argument("--usb-write-throttle", type=write_throttle_arg, default=None, metavar="RATE[,BURST]",
                   help="BOOT=usb: the stick's disk takes writes at RATE bytes a second after the first BURST bytes "
                        "(QEMU's I/O throttling): the stick answers late")
    p.add_argument("--repeat", type=positive_int, default=0,
                   help="N runs of the same configuration into --out/1 .. --out/N (kprof compare reads the set)")
    p.add_argument("--scenario", default="",
                   help="add scenario=SCENARIO (and a dump-mode trace big enough for it) unless the command "
                        "line names a scenario")
    p.add_argument("--outputs", default="auto", choices=["auto", "all"],
                   help="auto (the default): a trace bigger than --big-trace-mb gets every file but the ones of a "
                        "line or an object per record (trace.json, trace.txt, trace.jsonl); all: every file")
    p.add_argument("--big-trace-mb", type=nonnegative_int, default=BIG_TRACE_MB,
                   help="the trace size (MiB of the log or the stick's trace file) from which --outputs=auto "
                        "leaves those out (default %(default)s)")
    return p


# make run's trace: everything kept in memory and sent at the end, so the
# serial port's speed cannot drop records (16 MiB per CPU holds a few
# seconds of every group).  The size is make run's default, not the
# user's: where it does not fit the kernel makes it smaller and says so
# (trace.buffer_fit=shrink) instead of refusing the run.
RUN_TRACE_KEYS = ("trace.mode=dump", "trace.buffer_kb=16384")
RUN_BUFFER_KB = 16384


# Guest RAM when MEM is not given: at least 512 MiB, and enough that
# make run's trace buffer fits on every CPU: 64 MiB for the kernel and the
# memory it keeps back (kernel/trace/config/tracefit.h) plus 17 MiB a CPU (the
# buffer, its table, its share of that reserve), rounded up to a 256 MiB
# step, at most 16 GiB.
MEM_MIN_MB, MEM_KERNEL_MB, MEM_STEP_MB, MEM_MAX_MB = 512, 64, 256, 16384


def default_mem(cpus):
    """qemu -m for cpus CPUs: 512M up to 16 CPUs, 1280M for 64, 4608M for 256."""
    want = max(MEM_MIN_MB, MEM_KERNEL_MB + cpus * (RUN_BUFFER_KB // 1024 + 1))
    mb = -(-want // MEM_STEP_MB) * MEM_STEP_MB
    return "%dM" % min(mb, MEM_MAX_MB)


# How long a run may send nothing at all before it is stopped (the
# progress watchdog of tools/runwatch.py: any byte on the serial port,
# console text or trace frame, is progress).  The longest silences of a
# run that ends well are its workload phases, which print nothing while
# they run in dump mode: under KVM here (docs/running.md) phases of 1 s
# took up to 24.7 s on 2 CPUs; under TCG a CPU over the host's is
# emulated in turn, and with 64 CPUs the sched phase took 180 to 229 s
# (3.6 s a CPU).  So 120 s up to 8 CPUs (five times the KVM phase) and
# 5 s more a CPU beyond, 400 s for 64 (1.75 times the sched phase).  A
# hang costs that long; a slow run that keeps sending is never cut.
STALL_BASE_S, STALL_PER_CPU_S, STALL_FREE_CPUS = 120, 5, 8


def default_stall(cpus):
    """120 s up to 8 CPUs, then 5 s more a CPU: 400 s for 64."""
    return STALL_BASE_S + STALL_PER_CPU_S * max(0, cpus - STALL_FREE_CPUS)


def run_cmdline(cmdline, scenario):
    """The command line make run boots: CMDLINE, plus scenario= and the
    trace keys it does not set itself."""
    words = cmdline.split()
    keys = {w.split("=", 1)[0] for w in words if "=" in w}
    extra = []
    if scenario and "scenario" not in keys:
        extra.append("scenario=" + scenario)
        extra += [k for k in RUN_TRACE_KEYS if k.split("=", 1)[0] not in keys]
        if "trace.buffer_kb" not in keys and "trace.buffer_fit" not in keys:
            extra.append("trace.buffer_fit=shrink")
    return " ".join(extra + words)


def record_count(kprof, path):
    """The records `kprof check` finds in a log or trace file, None if none."""
    proc = subprocess.run([kprof, "check", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    m = re.search(rb"^kprof: (\d+) records from", proc.stdout, re.M)
    return int(m.group(1)) if m else None


def has_frames(path):
    """Whether the log holds a frame's magic, read a megabyte at a time (a
    trace of gigabytes is not read whole to find its first frame)."""
    magic, tail = b"\xfeKPF", b""
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            if magic in tail + block:
                return True
            tail = block[-(len(magic) - 1):]
    return False


def choose_trace(kprof, log, res):
    """BOOT=usb: the report comes from the stick's trace file when the
    kernel wrote one, and its record count is held against the serial
    log's.  Returns the file the report is made from."""
    if res.stick_error:
        print("kprof: %s; the report is made from the serial log" % res.stick_error)
    if res.stick_changed:
        print("kprof: error: the run changed the stick outside %s, at bytes %s" % (
            stickimage.TRACE_NAME, ", ".join("%d..%d" % r for r in res.stick_changed)))
    elif res.stick_changed is not None:
        print("kprof: the stick is unchanged outside %s" % stickimage.TRACE_NAME)
    if not res.stick_file:
        return log
    mib = res.stick_size / (1 << 20)
    if not res.stick_used:
        print("kprof: no trace on the stick: %s (%.0f MiB) holds only zeros; the report is made from the "
              "serial log" % (res.stick_file, mib))
        return log
    print("kprof: the stick's %s copied to %s: %.0f MiB, %.1f MiB of it written by the kernel" % (
        stickimage.TRACE_NAME, res.stick_file, mib, res.stick_used / (1 << 20)))
    if not kprof or not os.path.exists(kprof):
        return res.stick_file
    on_stick = record_count(kprof, res.stick_file)
    on_serial = record_count(kprof, log) if has_frames(log) else None
    if res.status == EXIT_SPLIT:
        print("kprof: the stick failed mid-run: it holds %s records, serial the rest (%s records): the report is "
              "made from the serial log, which counts the stick's part as missing (docs/trace-out.md)"
              % (on_stick, on_serial))
        return log
    if on_serial is None:
        print("kprof: the serial log holds no trace (the stick alone took it: trace.out=auto or usb): nothing to "
              "compare the stick's %s records with" % on_stick)
    elif on_stick == on_serial:
        print("kprof: the stick's trace holds the same %d records as the serial log" % on_stick)
    else:
        print("kprof: warning: the stick's trace holds %s records, the serial log %d (kprof check on each "
              "says what was lost where)" % (on_stick, on_serial))
    return res.stick_file


# What convert_trace makes from a trace: (name in the run's folder, what
# opens it, the kprof command; {log}, {kernel} and {file} filled in, and
# {file} in what opens it: the run's own folder, build/runs/NAME/3 too).
# timeline writes a timeline-<phase>.svg beside timeline.svg per phase, and
# etl the kernel's .pdb and .dll (the PE image the PDB describes) beside
# trace.etl.
OUTPUTS = [
    ("report.txt", "the report: hot spots, locks, resources, threads, CPUs (less, any editor)",
     ["report", "{log}", "--kernel", "{kernel}", "-o", "{file}", "--with-summary"]),
    ("flamegraph.svg", "flame graph of the sampled stacks (any web browser)",
     ["flamegraph", "{log}", "--kernel", "{kernel}", "-o", "{file}"]),
    ("timeline.svg", "per-CPU timeline: threads, waits, samples, phases; timeline-<phase>.svg per phase "
     "(any web browser)", ["timeline", "{log}", "--kernel", "{kernel}", "-o", "{file}"]),
    ("trace.perfetto-trace", "interactive timeline in Perfetto's own format, its CPU tracks and thread states, "
     "about a fourteenth of trace.json (open it in https://ui.perfetto.dev)",
     ["perfetto", "{log}", "--kernel", "{kernel}", "-o", "{file}"]),
    ("trace.json", "interactive timeline with every record's fields (open it in https://ui.perfetto.dev or "
     "chrome://tracing)", ["perfetto", "{log}", "--kernel", "{kernel}", "-o", "{file}"]),
    ("trace.txt", "one line per record (less, grep)", ["decode", "{log}", "-o", "{file}"]),
    ("trace.jsonl", "JSON Lines, one object per record (jq, Python)", ["decode", "--json", "{log}", "-o", "{file}"]),
    ("trace.etl", "Windows ETL with processes, threads and the kernel image (Windows Performance Analyzer, xperf, "
     "TraceEvent)", ["etl", "{log}", "--kernel", "{kernel}", "-o", "{file}"]),
    ("ctf/", "CTF 1.8 trace, the records as they are (babeltrace2 {file})", ["ctf", "{log}", "-o", "{file}"]),
    ("ctf-lttng/", "CTF in LTTng's kernel conventions (Trace Compass: Control Flow, Resources; babeltrace2)",
     ["ctf", "--lttng", "{log}", "-o", "{file}"]),
]

# A big trace (docs/running.md, "A big trace"): above this many MiB of
# trace, `make run` leaves out the files of a line or an object per record,
# several times the trace's size and more than a browser opens (trace.json
# takes about 370 bytes a record, trace.txt 250), unless OUTPUTS=all.
BIG_TRACE_MB = 256
PER_RECORD_OUTPUTS = ("trace.json", "trace.txt", "trace.jsonl")
# Every other file is made in memory that does not grow with the trace
# (docs/trace-and-tool.md: the report, the pictures, trace.etl, both CTF
# traces and the protobuf trace, which sorts on disk what it cannot hold),
# so no size leaves them out.

# In every folder `run` writes: the next run may empty it.
RUN_MARK = ".kprof-run"
# The names a run writes (a folder from before RUN_MARK is known by them).
RUN_NAMES = ["serial.log", "trace.bin", "timeline-*.svg", "*.pdb", "*.dll"] + [n.rstrip("/") for n, _, _ in OUTPUTS]


def fresh_out(out):
    """Make `out` an empty folder for one run's files (make it, or empty
    it) and mark it as a run's.  A folder is emptied only if a run wrote
    it: it holds RUN_MARK, or only names a run writes; any other is
    refused and nothing in it is touched.  Only what is inside `out` is
    removed: a symbolic link in it is deleted, never followed."""
    if os.path.lexists(out) and not os.path.isdir(out):
        raise RunError("%s is not a folder; the run's files need a folder of their own" % out)
    os.makedirs(out, exist_ok=True)
    names = sorted(os.listdir(out))
    if RUN_MARK not in names:
        foreign = [n for n in names if not any(fnmatch.fnmatchcase(n, p) for p in RUN_NAMES)]
        if foreign:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise RunError("%s holds %s, which no run wrote; a run empties its folder first, so move %s away or "
                           "write the run elsewhere" % (out, shown, "it" if len(foreign) == 1 else "them"))
    for name in names:
        path = os.path.join(out, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    with open(os.path.join(out, RUN_MARK), "w") as f:
        f.write("the files of one kprof run (tools/qemu.py); the next run into this folder empties it first\n")


def convert_trace(kprof, log, out, kernel, source=None, outputs="auto", big_mb=BIG_TRACE_MB):
    """Turn the frames in the trace (source: the serial log unless a trace
    file from the stick is given) into the files people open, print the
    report's summary, and list every file with what opens it.  With
    outputs "auto", a trace of more than big_mb MiB gets every file but
    PER_RECORD_OUTPUTS, and the run says so.  The report's run prints the summary too
    (--with-summary): the log's model is built once for both."""
    if not kprof or not os.path.exists(kprof):
        return
    serial = log
    log = source or serial
    if not has_frames(log):
        print("kprof: no trace in this run (no frames in the serial log)")
        return
    size = os.path.getsize(log)
    big = outputs == "auto" and size > big_mb << 20
    if big:
        print("kprof: a big trace (%.0f MiB, more than %d): %s left out, a line or an object per record (several "
              "times the trace's size, and no browser opens a JSON that big); OUTPUTS=all writes them, or "
              "build/kprof decode / perfetto --format json on %s" % (size / 1048576.0, big_mb,
                                                                       ", ".join(PER_RECORD_OUTPUTS), log))
    left_out = PER_RECORD_OUTPUTS if big else ()
    outputs = [(name, what.format(file=os.path.join(out, name.rstrip("/"))),
                [a.format(log=log, kernel=kernel, file=os.path.join(out, name.rstrip("/"))) for a in args])
               for name, what, args in OUTPUTS if name not in left_out]
    summary = None
    written = [(serial, "the serial output: console text and trace frames (kprof decode, kprof report)")]
    if log != serial:
        written.append((log, "the trace file from the USB stick, the files below are made from it"))
    short = None
    for name, what, args in outputs:
        proc = subprocess.run([kprof] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            print("kprof: %s: %s failed: %s" % (name, " ".join(args[:1]), proc.stderr.decode().strip()))
            continue
        if "--with-summary" in args:
            short = proc.stdout
        summary = proc.stderr.decode().strip()
        written.append((os.path.join(out, name), what))
        pdb = os.path.join(out, os.path.splitext(os.path.basename(kernel))[0] + ".pdb")
        if args[0] == "etl" and os.path.exists(pdb):    # kprof etl --kernel writes them (when LLVM is there)
            written.append((pdb, "the kernel's symbols for trace.etl (WPA: put %s on the symbol path)" % out))
            written.append((pdb[:-4] + ".dll", "the PE image the PDB describes (its headers are trace.etl's "
                                                "kernel image)"))
    if short is None:  # the report failed (said above): its summary alone, if that can be made
        report = subprocess.run([kprof, "report", log, "--kernel", kernel, "--summary", "--quiet"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        short = report.stdout if report.returncode == 0 else None
    if short:
        print("\n" + short.decode(errors="replace").rstrip())
    if summary:
        print("\n" + summary)
    print("\nkprof: files in %s:" % out)
    for path, what in written:
        print("  %-28s %s" % (path, what))


def fresh_runs(out, n):
    """Make `out` the folder of a set of n runs, 1 .. n, each a run's
    folder (fresh_out).  Run folders of an earlier, bigger set are removed
    (they would join this set); anything that is not a run's folder is
    refused and nothing is touched."""
    if os.path.lexists(out) and not os.path.isdir(out):
        raise RunError("%s is not a folder; a set of runs needs a folder of its own" % out)
    os.makedirs(out, exist_ok=True)
    names = sorted(os.listdir(out))
    foreign = [name for name in names if not (name.isdigit() and os.path.isdir(os.path.join(out, name))
                                              and not os.path.islink(os.path.join(out, name))
                                              and os.path.exists(os.path.join(out, name, RUN_MARK)))]
    if foreign:
        shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
        raise RunError("%s holds %s, which is not a run's folder; a set of runs replaces its runs, so move %s "
                       "away or write the set elsewhere" % (out, shown, "it" if len(foreign) == 1 else "them"))
    for name in names:
        if int(name) > n or int(name) < 1 or name != str(int(name)):
            shutil.rmtree(os.path.join(out, name))
    for i in range(1, n + 1):
        fresh_out(os.path.join(out, str(i)))


def main(argv=None):
    opts = parser().parse_args(argv)
    if not opts.repeat:
        return run_into(opts)
    try:
        fresh_runs(opts.out, opts.repeat)
    except (RunError, OSError) as e:
        print("kprof: %s" % e, file=sys.stderr)
        return EXIT_OTHER
    top, status = opts.out, 0
    for i in range(1, opts.repeat + 1):
        opts.out = os.path.join(top, str(i))
        print("kprof: run %d of %d into %s" % (i, opts.repeat, opts.out), flush=True)
        one = run_into(opts)
        status = status or one
    print("kprof: %d runs in %s (kprof compare reads the folder as a set)" % (opts.repeat, top))
    return status


# make run's line of trace received: every MiB, or this often when less
# comes (a slow link, e.g. under KVM, where each serial byte is a VM exit).
PROGRESS_S, PAUSE_S = 30, 5


def run_into(opts):
    """One run into opts.out, emptied first."""
    try:
        fresh_out(opts.out)
    except (RunError, OSError) as e:
        print("kprof: %s" % e, file=sys.stderr)
        return EXIT_OTHER
    log = os.path.join(opts.out, "serial.log")
    opts.cmdline = run_cmdline(opts.cmdline, opts.scenario)
    if not opts.mem:
        opts.mem = default_mem(opts.cpus)
    if not opts.stall:
        opts.stall = default_stall(opts.cpus)
    where = opts.boot
    if opts.boot == "usb":
        where = "usb (a stick on %s%s)" % (opts.usb_hc, ", behind a hub" if opts.usb_hub == "1" else "")
    print("kprof: booting %s with %d CPU%s and %s of memory (%s), command line: %s" % (
        where, opts.cpus, "" if opts.cpus == 1 else "s", opts.mem, opts.accel, opts.cmdline or "(none)"),
        flush=True)
    frames = FrameFilter()
    # The trace bytes and the time the rate counts from, when frames last
    # came, and whether the terminal is at the start of a line.
    rate = {"bytes": 0, "since": 0.0, "last": 0.0, "bol": True}

    def echo(data):
        # The terminal gets plain text; serial.log keeps every byte.  The
        # trace frames are counted instead, with a line every MiB, or
        # every PROGRESS_S on a slow link, at the rate since the last one
        # (counted from the first frame after a pause of PAUSE_S: the
        # kernel's dump starts after the workload, not at the run header).
        before = frames.frame_bytes
        text = frames.feed(data)
        sys.stdout.buffer.write(text)
        if text:
            rate["bol"] = text.endswith(b"\n")
        now = time.monotonic()
        if frames.frame_bytes != before:
            if now - rate["last"] > PAUSE_S:
                rate["bytes"], rate["since"] = before, now
            rate["last"] = now
        got = frames.frame_bytes - rate["bytes"]
        if got >= 1 << 20 or (got >= 64 << 10 and now - rate["since"] >= PROGRESS_S):
            sys.stdout.buffer.write(b"%skprof: receiving the trace: %d KiB, %.1f KiB/s\n" % (
                b"" if rate["bol"] else b"\n", frames.frame_bytes >> 10,
                got / 1024.0 / max(now - rate["since"], 1e-3)))
            rate["bytes"], rate["since"], rate["bol"] = frames.frame_bytes, now, True
        sys.stdout.buffer.flush()

    if opts.boot == "usb":
        opts.stick_out = os.path.join(opts.out, "trace.bin")
    try:
        res = run(opts, echo=echo, say=lambda m: print(m, flush=True))
    except RunError as e:
        print("kprof: %s" % e, file=sys.stderr)
        return EXIT_CONFIG if isinstance(e, ConfigError) else EXIT_OTHER
    with open(log, "wb") as f:
        f.write(res.output)
    banner = "%.2f s" % res.banner_s if res.banner_s is not None else "never"
    print("\nkprof: %s; boot to banner %s, whole run %.2f s (%s)" % (
        res.outcome, banner, res.elapsed_s, res.accel.upper()))
    print("kprof: serial output saved in %s" % log)
    convert_trace(opts.kprof, log, opts.out, opts.kernel, choose_trace(opts.kprof, log, res), opts.outputs,
                  opts.big_trace_mb)
    return res.status


if __name__ == "__main__":
    sys.exit(main())
