"""boot_usb.py - the boot tests' checks of the USB stack and the stick:
probing, the trace file (found, refused, read-only, fragmented, remade),
write errors, time-outs and the recovery ladder, a stick unplugged, DMA
regions."""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stickcheck  # noqa: E402
import sticktrace  # noqa: E402

from boot_common import (  # noqa: E402
    Failure, SUCCESS, TRACE_SPLIT, check_complete_trace, check_healthy_boot, raise_failure)
from boot_machine import check_uefi  # noqa: E402


def check_stick(ports, remade=None):
    """BOOT=usb: the loader and the kernel report the stick where QEMU put it
    (xHCI at 00:05.0, tools/qemu.py; the port chain `ports`), the image's
    identity (GPT: the disk GUID; MBR: disk signature, partition, FAT volume
    serial: sfdisk and minfo) and size, and the trace file's sectors as the
    ESP's boot sector and mshowfat place them (stickcheck.py); of the
    image, or of the run's copy as `remade` (a stickcheck.Remade) made it."""
    def check(ctx):
        facts = remade.facts if remade else stickcheck.image_facts(ctx.image)
        if remade:  # an MBR or table-less stick is never called "not a GPT disk" or unsupported
            ctx.reject(r"not a GPT disk|not a stick kprof can write to|not a USB mass-storage stick",
                       "a GPT-only refusal")
        ctx.expect(r"^kprof-uefi: stick: xHCI 0000:00:05\.0 port %s, %d blocks of 512 bytes, %s$" % (
            re.escape(" > ".join(ports)), facts["blocks"], re.escape(facts["identity"])), "the loader's stick line")
        m = ctx.expect(stickcheck.stick_line_pattern(ports), "the kernel's stick line")
        identity, blocks, mib, n = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
        extents = [(int(a), int(b)) for a, b in re.findall(r"LBA (\d+) \((\d+) blocks\)", m.group(5))]
        if identity != facts["identity"] or blocks != facts["blocks"]:
            raise_failure("stick: %s, %d blocks; the image (sfdisk, minfo) says %s, %d" % (
                identity, blocks, facts["identity"], facts["blocks"]))
        if mib << 20 != facts["size"] or n != len(extents) or extents != facts["extents"]:
            raise_failure("stick: trace file %d MiB in %s; the image holds %d bytes in %s" % (
                mib, extents, facts["size"], facts["extents"]))
        check_stick_untouched(ctx)
    return check


def check_stick_untouched(ctx):
    """Nothing on the stick outside the trace file changed in the run
    (tools/qemu.py compares the run's image with its copy from before)."""
    if ctx.result.stick_changed is None:
        raise_failure("stick: the image was not compared after the run")
    if ctx.result.stick_changed:
        raise_failure("stick: the run changed the image outside \\kprof\\trace.bin at bytes %s" %
                      ctx.result.stick_changed)


def check_usb(online, ports, remade=None):
    def check(ctx):
        check_uefi(online)(ctx)
        check_stick(ports, remade)(ctx)
    return check


def check_stick_trace(ctx):
    """trace.out=both: the stick's trace.bin holds the serial log's trace,
    record for record, and the kernel said it was saved."""
    ctx.expect(r"^trace: writing to \\kprof\\trace\.bin on the USB stick \(262144 KiB, in writes of 1024 KiB\)$",
               "the stick opened at trace start")
    m = ctx.expect(r"^trace: (\d+) records sent, 0 lost", "the serial trace's end")
    ctx.expect(r"^trace: %s records, [\d.]+ [KM]B saved to \\kprof\\trace\.bin on the USB stick \d+\.\d\d s after the "
               r"workload; power off and move the stick to your computer$" % m.group(1), "the saved line")
    ctx.expect(r"^trace: output \d+ ms after the workload ended: serial ([\d.]+ MB) in \d+ ms \(.*\), USB stick \1 in "
               r"\d+ ms \(([\d.]+ MB/s|under 1 ms)\)$", "the output line: the same bytes to both sinks")
    problems = sticktrace.same_trace(ctx.kprof, ctx.log_path, ctx.stick_file)
    if problems:
        raise_failure("stick vs serial: " + "; ".join(problems[:4]))


def check_usb_both(online, ports, remade=None):
    """A healthy USB boot with trace.out=both whose stick holds the serial trace."""
    def check(ctx):
        check_usb(online, ports, remade)(ctx)
        check_stick_trace(ctx)
    return check


def check_usb_found_by_scan(ports, hint):
    """usb.stick_port= names a root port where nothing is: the kernel finds
    the stick by its identity where QEMU put it (the port chain `ports`),
    says so in one line, and the trace on it still equals serial."""
    def check(ctx):
        check_usb_both(1, ports)(ctx)
        ctx.expect(r"^stick: looking for the disk with the boot disk's disk GUID [0-9a-f-]{36} on every xHCI "
                   r"controller$", "the search's first line")
        ctx.expect(r"^stick: not at %s; found by its identity at port %s \(controller 0000:00:05\.0\)$" % (
            re.escape(hint), re.escape(" > ".join(ports))), "the line saying where the stick was found")
        ctx.reject(r"^stick: no disk with the boot disk's", "the search failing")
    return check


MBR_STICK = stickcheck.Remade(stickcheck.remake_as_mbr)
HAND_STICK = stickcheck.Remade(stickcheck.remake_by_hand)
SUPERFLOPPY_STICK = stickcheck.Remade(stickcheck.remake_superfloppy)


def check_usb_readonly(ctx):
    """readonly=on: one clear line, the stick untouched, the whole trace
    on serial, exit 0."""
    check_healthy_boot(ctx, "kprof-uefi", "\\kprof\\cmdline.txt")
    ctx.expect(r"^stick: QEMU QEMU HARDDISK, \d+ blocks of 512 bytes, write protected$", "MODE SENSE's WP bit seen")
    ctx.expect_in_order([r"^trace: USB stick: it is write-protected \(MODE SENSE: write-protect bit set; a lock switch "
                         r"on the stick\?\): \\kprof\\trace\.bin is not written$",
                         r"^trace: the USB stick is not written; the trace goes to serial$",
                         r"^trace: \d+ records sent, 0 lost"], "the write-protected stick's lines")
    ctx.reject(r"saved to \\kprof", "a saved line")
    check_stick_untouched(ctx)
    if ctx.result.stick_used:
        raise_failure("the read-only stick's trace.bin holds %d written bytes" % ctx.result.stick_used)
    check_complete_trace(ctx)


SMALL_FILE_KIB = 256


def check_usb_file_small(ctx):
    """A trace file too small: what fits is kept and decodes, the rest is
    counted as lost, by the kernel and the decoder alike; serial whole."""
    ctx.expect_status(SUCCESS)
    ctx.expect(r"^scenario tracetest: done on 2 CPUs$", "the scenario's end")
    ctx.expect(r"^trace: writing to \\kprof\\trace\.bin on the USB stick \(%d KiB, in writes of %d KiB\)$"
               % (SMALL_FILE_KIB, SMALL_FILE_KIB), "the small file opened")
    m = ctx.expect(r"^trace: (\d+) of (\d+) records, [\d.]+ [KM]B saved to \\kprof\\trace\.bin on the USB stick "
                   r"\d+\.\d\d s after the workload, which is full: (\d+) records did not fit in its 262 KB \(a bigger file keeps them: "
                   r"docs/usb-stick\.md\); power off and move the stick to your computer", "the full file's line")
    kept, total, lost = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if kept + lost != total:
        raise_failure("the kernel says %d of %d kept and %d did not fit" % (kept, total, lost))
    check_stick_untouched(ctx)
    problems = sticktrace.file_too_small(ctx.kprof, ctx.log_path, ctx.stick_file, kept, lost)
    if problems:
        raise_failure("full file: " + "; ".join(problems[:4]))


def check_usb_refused(loader_says, kernel_says):
    """A stick the kernel cannot write to: the loader says why and what to
    do, the kernel says the trace goes to serial only, the run succeeds,
    and nothing on the stick changed."""
    def check(ctx):
        check_healthy_boot(ctx, "kprof-uefi", "\\kprof\\cmdline.txt")
        ctx.expect(r"^kprof-uefi: stick: %s; the trace goes to the serial port only$" % loader_says,
                   "the loader's refusal")
        if kernel_says:
            ctx.expect(r"^stick: xHCI 0000:00:05\.0 port 1: %s; the trace goes to the serial port only "
                       r"\(the loader said why\)$" % kernel_says, "the kernel's stick line")
        else:  # not a controller kprof drives: the kernel does not name a place
            ctx.expect(r"^stick: booted from USB, but not a stick kprof can write to; the trace goes to the "
                       r"serial port only \(the loader said why\)$", "the kernel's stick line")
        check_stick_untouched(ctx)
    return check


FRAGMENTS = {}  # pieces of the fragmented trace file, as fragment_trace_file made it


def fragment_stick(disk):
    FRAGMENTS["pieces"] = stickcheck.fragment_trace_file(disk, 20)


def check_usb_fragmented(ctx):
    check_usb_refused(r"\\kprof\\trace\.bin is in %d pieces, more than the 16 the kernel accepts: rebuild "
                      r"the image with make image, .*" % FRAGMENTS["pieces"],
                      "the trace file is in too many pieces")(ctx)


# usb.probe=on: the xHCI driver (kernel/usb/xhci/xhci_*.c) takes the controller,
# resets every root port and hub port, reads each device descriptor and,
# for the stick, runs INQUIRY, READ CAPACITY and 1 MiB READs over
# Bulk-Only (bulk OUT then IN), checked against LBA 1 read alone.  Under
# direct boot the stick is the kprof image attached read-only; under
# BOOT=usb it is the image OVMF booted from, whose controller EDK2 halted
# and reset at ExitBootServices.
def usb_stick_args(hc, hub=False):
    args = ["-device", "%s,id=xhci" % hc,
            "-drive", "if=none,id=stick,format=raw,readonly=on,file={image}"]
    if hub:
        return args + ["-device", "usb-hub,bus=xhci.0,port=1",
                       "-device", "usb-storage,bus=xhci.0,port=1.1,drive=stick"]
    return args + ["-device", "usb-storage,bus=xhci.0,drive=stick"]


def check_usb_probe(ids, path, speed, access="ECAM", hub_port=None, more=()):
    def check(ctx):
        ctx.expect_status(SUCCESS)
        ctx.expect(r"^usb\.probe: PCI configuration space through %s" % re.escape(access), "the PCI access method")
        ctx.expect(r"^xhci: [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d: %s, xHCI 1\.\d\d, BAR0 0x[0-9a-f]+ \(\d+ KiB\), "
                   r"\d+ slots, 8 ports, (32|64)-byte contexts" % ids, "the controller line")
        ctx.expect(r"^xhci: ports 1-4 speak USB 3\.00$", "the USB 3 ports (Supported Protocol capability)")
        ctx.expect(r"^xhci: ports 5-8 speak USB 2\.00$", "the USB 2 ports (Supported Protocol capability)")
        devices = 1 + len(more)
        for pattern, what in more:
            ctx.expect(pattern, what)
        if hub_port:
            devices += 1
            ctx.expect(r"^usb\.probe: \S+ port %s: full-speed device 0409:55aa class 09/00/00" % hub_port,
                       "the hub on a USB 2 root port")
            ctx.expect(r"^usb\.probe: \S+ port %s: hub with 8 ports$" % hub_port, "the hub's ports")
        ctx.expect(r"^usb\.probe: \S+ port %s: %s device 46f4:0001 class 00/00/00, USB [23]\.00, ep0 (8|64|512) bytes"
                   % (re.escape(path), speed), "the stick's device descriptor")
        ctx.expect(r"^usb\.probe: \S+ port %s: ep0 stalled on GET_DESCRIPTOR type 0x42; after recovery GET_STATUS: "
                   r"ok, 2 bytes$" % re.escape(path), "ep0 stall recovery")
        ctx.expect(r"^usb\.probe: \S+ port %s: mass storage \(bulk OUT 0x02, IN 0x81, (64|512|1024) bytes\): "
                   r"INQUIRY \"QEMU    \" \"QEMU HARDDISK   \" \"[^\"]{4}\", 36 bytes, CSW status 0 residue 0$"
                   % re.escape(path), "INQUIRY over bulk OUT and IN")
        ctx.expect(r"^usb\.probe: \S+ port %s: READ CAPACITY \(10\): \d+ blocks of 512 bytes \(\d+ MiB\)$"
                   % re.escape(path), "READ CAPACITY")
        ctx.expect(r"^usb\.probe: \S+ port %s: READ \(10\) 16 x 1024 KiB, buffer 64 KiB boundary \+ 512: 16384 KiB "
                   r"in \d+ ms \([\d.]+ MB/s\); LBA 1 read alone matches; GPT header \"EFI PART\" at LBA 1$"
                   % re.escape(path), "1 MiB reads in chained TRBs that lap the ring, and the GPT header")
        ctx.expect(r"^usb\.probe: 1 xHCI controller, %d devices?$" % devices, "the probe summary")
        ctx.reject(r"^xhci: .*(no completion|did not|not ready|not enabled|not usable|failed|kept the controller)",
                   "an xHCI timeout or failure")
        ctx.reject(r"^usb\.probe: .*(failed|not addressed|not usable)", "a probe failure")
        ctx.expect(r"^kprof: run ended: success \(exit status 0x10\)$", "the success line")
    return check


def check_usb_handoff(ctx):
    """Every USB controller on PCI taken from the firmware at boot, one
    line each: the EHCI (QEMU's usb-ehci, ICH4 8086:24cd, legacy support
    capability at EECP 0x68, nothing owning it under direct boot) halted,
    the xHCI's legacy support (qemu-xhci has none), UHCI and OHCI reported;
    then the run goes on as ever."""
    ctx.expect_status(SUCCESS)
    addr = r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d"
    ctx.expect(r"^usb: %s EHCI 8086:24cd: not the firmware's \(legacy SMIs off; halted\)$" % addr,
               "the EHCI hand-off line")
    ctx.expect(r"^usb: %s xHCI 1b36:000d: no legacy support capability \(nothing to take\)$" % addr,
               "the xHCI line")
    ctx.expect(r"^usb: %s UHCI 8086:7020: left to the firmware \(no hand-off for UHCI: its legacy SMIs may "
               r"still run\)$" % addr, "the UHCI line")
    ctx.expect(r"^usb: %s OHCI 106b:003f: left to the firmware \(no hand-off for OHCI: its legacy SMIs may "
               r"still run\)$" % addr, "the OHCI line")
    ctx.reject(r"^usb: .*(did not|could not|left alone)", "a hand-off that failed")
    ctx.expect(r"^kprof: run ended: success \(exit status 0x10\)$", "the success line")
    # SMIs: QEMU's virtual CPUs keep no count (TCG reads 0 for MSR 0x34,
    # which must not pass for "no SMIs"): said once, then one KprofSmiCount
    # record per CPU without KPROF_SMI_COUNTED, and the report says so.
    ctx.expect(r"^smi: not counted on this CPU \(a virtual CPU, under a hypervisor\)$", "the SMI line")
    out = subprocess.run([ctx.kprof, "decode", "--json", "--quiet", ctx.log_path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True).stdout
    smi = [r for r in map(json.loads, out.splitlines()) if r.get("event") == "KprofSmiCount"]
    if sorted(r["cpu"] for r in smi) != [0, 1] or any(r["Flags"] != 0 or r["EndCount"] for r in smi):
        raise_failure("want one uncounted KprofSmiCount record per CPU (2), got %s" % smi)
    kernel = os.path.join(ctx.build, "kernel.elf")
    rep = subprocess.run([ctx.kprof, "report", ctx.log_path, "--kernel", kernel, "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True).stdout
    stalls = rep[rep.rfind("\nstalled:"):].replace("\n    ", " ")
    for cpu in (0, 1):
        if not re.search(r"^  cpu %d: .*SMIs: not counted on this CPU$" % cpu, stalls, re.M):
            raise_failure("the report's stall lines lack cpu %d's \"SMIs: not counted on this CPU\": %s"
                          % (cpu, stalls[:1200]))


def check_probe_then_trace(ctx):
    """usb.probe=on, then in the same boot the trace's own open of the
    stick (a second enumeration: the probe's slot is replaced); and
    trace.out=auto from a stick: the trace on the stick alone, not one
    frame on serial, the end line naming only the stick."""
    check_usb_probe("1b36:000d", "1", "SuperSpeed")(ctx)
    check_stick_only(ctx)


def check_stick_only(ctx):
    """The whole trace on the stick, none of it on serial."""
    ctx.expect(r"^trace: writing to \\kprof\\trace\.bin on the USB stick \(262144 KiB, in writes of 1024 KiB\)$",
               "the stick opened at trace start")
    m = ctx.expect(r"^trace: (\d+) records sent, 0 lost", "the kernel's record count")
    ctx.expect(r"^trace: %s records, [\d.]+ [KM]B saved to \\kprof\\trace\.bin on the USB stick \d+\.\d\d s after the "
               r"workload; power off and move the stick to your computer$" % m.group(1), "the saved line")
    ctx.expect(r"^trace: output \d+ ms after the workload ended: USB stick [\d.]+ MB in \d+ ms \([^)]*\)$",
               "the end line naming the stick alone")
    ctx.reject(r"serial carries", "serial taking over")
    check_stick_untouched(ctx)
    problems = sticktrace.stick_only(ctx.kprof, ctx.log_path, ctx.stick_file, int(m.group(1)))
    if problems:
        raise_failure("stick only: " + "; ".join(problems[:4]))


# The trace file starts at LBA 6192 (docs/usb-stick.md); QEMU's blkdebug
# fails writes that cover a chosen sector of the disk.
TRACE_FILE_LBA = 6192


def check_recovered_write(ctx, failed, why, by=r"Bulk-Only reset recovery", before=()):
    """The first stage's write fails (before: lines that come first, in
    order; failed: the stick's line saying how; why: the trace's words for
    it): reset recovery, the stage written again once the rung by (a
    pattern) brought the stick back, the whole trace on the stick,
    success."""
    ctx.expect_status(SUCCESS)
    ctx.expect_in_order(list(before) + [failed,
                         r"^trace: USB stick: writing \d+ bytes at offset 0 of \\kprof\\trace\.bin failed: %s; "
                         r"recovering \(Bulk-Only reset recovery\)$" % why,
                         r"^stick: Bulk-Only reset recovery",
                         r"^trace: USB stick: recovered by %s; writing \d+ bytes at offset 0 "
                         r"of \\kprof\\trace\.bin done again$" % by], "the failed write, the recovery, the write again")
    check_stick_only(ctx)


def check_usb_write_error_once(ctx):
    """One write fails (EIO once, 32 KiB into the file): reset recovery,
    the stage written again, the whole trace on the stick, success."""
    check_recovered_write(ctx, r"^stick: WRITE\(10\) at LBA \d+ failed: sense b/00/06",
                          r"error \(sense key b, asc 00, ascq 06\)")


# usb-write-timeout(s): how long the kernel waits for a CSW
# (usb.csw_timeout_ms=), and the line of each wait that ran out: QEMU's
# usb-storage takes a WRITE's data at once and holds its status back
# until the throttled disk has the data.
TIMEOUT_KEYS = "usb.data_timeout_ms=%d usb.csw_timeout_ms=%d"


def csw_timed_out(ms):
    return (r"^xhci: bulk IN transfer of 13 bytes on slot \d+ endpoint 0x81 \(port 1\) got no completion in %d ms$"
            % ms)


def check_usb_write_timeout(ms):
    """One stage's write gets no status within ms (the stick's disk
    throttled): recovery, the throttle lifted (the boot test's monitor,
    on the trace's line saying the stage failed), the stage written again,
    the whole trace on the stick, success.  Usually the first rung
    recovers; a later one when a loaded host delays the monitor past the
    next time-out, which is the harness's timing, not the kernel's."""
    def check(ctx):
        check_recovered_write(ctx, r"^stick: WRITE\(10\) at LBA \d+ failed: timeout$",
                              r"timeout \(sense key 0, asc 00, ascq 00\)",
                              by=r"(?:Bulk-Only reset recovery|port reset and new address|controller reset)",
                              before=[csw_timed_out(ms), r"^stick: Bulk-Only reset recovery \(no CSW\)$"])
    return check


def check_usb_write_timeouts(ms):
    """Every write after the first 1.5 MiB gets no status within ms (the
    stick's disk throttled for good): each rung's write times out again,
    then the split after the ladder, as with persistent write errors."""
    def check(ctx):
        m = ctx.expect(r"^trace: USB stick: writing \d+ bytes at offset (\d+) of \\kprof\\trace\.bin failed: timeout "
                       r"\(sense key 0, asc 00, ascq 00\); recovering \(Bulk-Only reset recovery\)$",
                       "the first stage that timed out")
        if int(m.group(1)) == 0:
            raise_failure("the first stage timed out: the stick should hold the first 1.5 MiB")
        rungs = ["Bulk-Only reset recovery", "port reset and new address", "controller reset"]
        ctx.expect_in_order([csw_timed_out(ms), r"^stick: WRITE\(10\) at LBA \d+ failed: timeout$"] + [
            r"failed: timeout \(sense key 0, asc 00, ascq 00\); %s$" % then
            for then in ["recovering \\(%s\\)" % r for r in rungs] + ["nothing more is written to it"]],
            "a time-out at every rung")
        check_split_after_ladder(ctx)
    return check


def monitor_on(pattern, command):
    """on_output for a boot test: once the serial output matches pattern,
    send command to QEMU's monitor."""
    def make():
        state = {"done": False, "tail": b""}

        def on_output(chunks, monitor):
            if state["done"]:
                return
            state["tail"] = (state["tail"] + chunks[-1])[-8192:]  # a line may come in pieces
            if re.search(pattern, state["tail"], re.M):
                state["done"] = True
                monitor.command(command)
        return on_output
    return make


def unplug_on(pattern):
    """device_del the stick (tools/qemu.py names it stickdev) once the
    serial output matches pattern."""
    return monitor_on(pattern, "device_del stickdev")


def check_usb_unplugged(ctx):
    """The stick pulled mid-run: every rung fails (the port rung, finding
    nothing on the stick's port, looks for it by its identity everywhere
    and finds it nowhere), serial takes over with what the stick does not
    hold whole, the run ends (no hang), and every record the kernel sent
    is in the file or on serial, what serial lacks counted by its decoder;
    0x15 if the stick holds part, else success."""
    ctx.expect_in_order([r"^phase: \[2\] locks starts", r"recovering \(Bulk-Only reset recovery\)$",
                         r"^stick: the boot disk is no longer at port 1 of controller 0000:00:05\.0 after the reset: "
                         r"looking for it by its identity$",
                         r"^stick: no disk with the boot disk's disk GUID \S+ on 1 xHCI controller \(0 devices\): "
                         r"nothing written$",
                         r"recovering \(controller reset\)$",
                         r"; nothing more is written to it$",
                         r"^trace: serial carries the trace from here on"], "the failed ladder, serial taking over")
    m = ctx.expect(r"^trace: (\d+) records sent, 0 lost", "the kernel's record count")
    sent = int(m.group(1))
    if ctx.result.status == TRACE_SPLIT:
        problems = sticktrace.split_trace(ctx.kprof, ctx.log_path, ctx.stick_file, sent)
    else:
        ctx.expect_status(SUCCESS)
        ctx.expect(r"^trace: the whole trace went to serial$", "serial has it all")
        problems = sticktrace.serial_whole(ctx.kprof, ctx.log_path, sent)
    if problems:
        raise_failure("unplugged: " + "; ".join(problems[:4]))


def check_split_after_ladder(ctx):
    """The stick fails for good mid-file (usb-write-errors: every write
    over one sector 1.5 MiB into the file fails): the ladder climbed (reset
    recovery, port reset, controller reset, each proving the disk again),
    then serial carries the rest from the first frame the stick does not
    hold whole; together they hold every record, each record serial lacks
    is counted as missing there; status 0x15."""
    ctx.expect_status(TRACE_SPLIT)
    rungs = ["Bulk-Only reset recovery", "port reset and new address", "controller reset"]
    ctx.expect_in_order([r"recovering \(%s\)$" % r for r in rungs] + [
        r"^stick: disk GUID \S+ is the boot disk's$",
        r"; nothing more is written to it$",
        r"^trace: serial carries the trace from here on, starting with the \d+ bytes of frames the stick did not hold "
        r"whole$",
        r"^trace: \d+ records sent, 0 lost",
        r"^trace: not saved to \\kprof\\trace\.bin on the USB stick \(see above\)$",
        r"^trace: the USB stick holds the trace up to where it failed and serial the rest",
        r"^kprof: run ended: trace split between the stick and serial \(exit status 0x15\)$"],
        "the ladder, the fall-back, the split")
    m = ctx.expect(r"^trace: (\d+) records sent, 0 lost", "the kernel's record count")
    check_stick_untouched(ctx)
    problems = sticktrace.split_trace(ctx.kprof, ctx.log_path, ctx.stick_file, int(m.group(1)))
    if problems:
        raise_failure("split trace: " + "; ".join(problems[:4]))


def check_dma_regions(ctx):
    """usb.dma32=on usb.dmalog=on: the controller taken as 32-bit, and
    every region it was given (rings, contexts, DCBAA, ERST, scratchpads,
    every transfer buffer: descriptors, CBWs, CSWs, the stick's staging
    pages) below 4 GiB."""
    ctx.expect(r"^xhci: [0-9a-f:.]+: AC64 not trusted \(usb\.dma32=on\): DMA kept below 4 GiB$",
               "the 32-bit addressing line")
    regions = re.findall(r"^xhci: DMA (pages|buffer) 0x([0-9a-f]+)-0x([0-9a-f]+)$", ctx.text, re.M)
    pages = [r for r in regions if r[0] == "pages"]
    buffers = [r for r in regions if r[0] == "buffer"]
    # DCBAA, command ring, event ring, ERST; per device: input and output
    # contexts and ep0's ring, then the bulk rings.
    if len(pages) < 8 or len(buffers) < 3:
        raise Failure("expected at least 8 controller regions and 3 transfer buffers in the DMA lines, got %d "
                      "and %d" % (len(pages), len(buffers)))
    high = ["%s 0x%s-0x%s" % r for r in regions if int(r[2], 16) >= 1 << 32 or int(r[1], 16) > int(r[2], 16)]
    if high:
        raise Failure("%d of %d DMA regions not below 4 GiB, first: %s" % (len(high), len(regions), high[0]))


def check_usb_dma_below_4g(ctx):
    """6 GiB of guest memory and mm.high_first=on: every page not asked for
    below 4 GiB comes from above it.  With usb.dma32=on (the path a
    quirk-table controller takes) the stick still holds the serial trace
    and no DMA region lies above 4 GiB."""
    ctx.expect_status(SUCCESS)
    ctx.expect(r"^memory: usable 61\d\d\.\d MiB", "6 GiB of RAM")
    ctx.expect(r"^stick: xHCI 0000:00:05\.0 port 1, disk GUID ", "the loader's stick line")
    check_stick_trace(ctx)
    check_dma_regions(ctx)
