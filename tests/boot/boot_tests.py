"""boot_tests.py - the boot tests: configurations and what each must show.

A test is a BootTest with a check(ctx) function; ctx (run_boot_tests.Context)
has the exit status and serial text and raises Failure on a mismatch.
"""

import collections
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import damagelib  # noqa: E402
import lockcheck  # noqa: E402
import losscheck  # noqa: E402
import namecheck  # noqa: E402
import noisecheck  # noqa: E402
import profilecheck  # noqa: E402
import rescheck  # noqa: E402
import schedcheck  # noqa: E402
import tracecheck  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stickcheck  # noqa: E402
import sticktrace  # noqa: E402

SUCCESS, FAILURE, PANIC, CONFIG, LOADER, TRACE_SPLIT = 0, 1, 2, 3, 4, 5


class Failure(Exception):
    """A boot test's expectation did not hold."""


class BootTest:
    def __init__(self, name, doc, check, boot="direct", cpus=1, cmdline="", accel="tcg", machine="q35",
                 cpu="", mem="512M", timeout=60, smp="", usb_hc="qemu-xhci", usb_hub="0", prepare_disk=None,
                 usb_readonly=False, qemu_args=(), usb_write_error=None, usb_write_throttle=None, on_output=None,
                 kernel="default"):
        self.name, self.doc, self.check = name, doc, check
        self.qemu_args = list(qemu_args)  # extra QEMU arguments (devices)
        self.boot, self.cpus, self.smp, self.cmdline, self.accel = boot, cpus, smp, cmdline, accel
        self.machine, self.cpu, self.mem = machine, cpu, mem
        # Seconds with nothing on the serial port that fail the test (the
        # runner's --stall; run_boot_tests.py caps the whole run at ten
        # times that): a hang fails this long after the last output.
        self.timeout = timeout
        # BOOT=usb: the controller, the hub, and a change to the run's copy
        # of the image before QEMU starts (prepare_disk(path)).
        self.usb_hc, self.usb_hub, self.prepare_disk = usb_hc, usb_hub, prepare_disk
        self.usb_readonly = usb_readonly  # BOOT=usb: the stick attached readonly=on
        # BOOT=usb: (sector, once) for QEMU's blkdebug, (bytes a second,
        # burst bytes) for QEMU's throttling of the stick's writes, and a
        # maker of a function called with the output so far and the monitor
        # (mid-run acts)
        self.usb_write_error, self.usb_write_throttle = usb_write_error, usb_write_throttle
        self.on_output = on_output
        # "workloads": boots the kernel built with the example workloads
        # from outside the tree (run_boot_tests.py --workloads-kernel).
        self.kernel = kernel


BANNER = r"^kprof \d+\.\d+\.\d+ \(build \S+, \d{4}-\d\d-\d\d\) booted by (\S+)"


def check_healthy_boot(ctx, loader, cmdline_source):
    """What every successful boot must print, in this order."""
    ctx.expect_status(SUCCESS)
    m = ctx.expect(BANNER, "the kernel banner")
    if not m.group(1).startswith(loader):
        raise_failure("banner names loader %r, expected %r" % (m.group(1), loader))
    ctx.expect(r"^console: serial 16550 at I/O 0x3f8, 115200 baud", "the serial console line")
    # Memory: ranges, per-type totals with usable RAM and the kernel, and
    # the page allocator's view, which must agree with ~512 MiB of RAM.
    m = ctx.expect(r"^memory: (\d+) ranges from the loader, RAM up to 0x([0-9a-f]+)$", "memory ranges")
    if int(m.group(1)) < 3:
        raise_failure("only %s memory ranges" % m.group(1))
    ctx.expect(r"^memory: usable \d+\.\d MiB.*kernel \d+\.\d MiB", "memory totals with usable and kernel")
    m = ctx.expect(r"^memory: (\d+) of (\d+) pages free \((\d+)\.\d MiB\)", "page allocator summary")
    free, total = int(m.group(1)), int(m.group(2))
    if not (0 < free <= total and 400 <= int(m.group(3)) <= 512):
        raise_failure("implausible page counts: %d free of %d" % (free, total))
    ctx.expect(r"^cpu: (GenuineIntel|AuthenticAMD) \"[^\"]+\" family 0x[0-9a-f]+ model 0x[0-9a-f]+ stepping \d+",
               "the CPU vendor and model")
    ctx.expect(r"^cmdline: \"[^\"]*\" \(%s\)$" % re.escape(cmdline_source), "the command line and its source")
    ctx.expect(r"^acpi: RSDP revision \d+ \(OEM \"[^\"]*\"\), [RX]SDT with \d+ tables: .*APIC", "the ACPI tables")
    ctx.expect(r"^kprof: run ended: success \(exit status 0x10\)$", "the success line")
    ctx.reject(r"exception|STOP:|unexpected interrupt|has no handler|apic: error", "an exception or bug check")


def check_cpus(ctx, online, listed=None, extra=""):
    """Every CPU online with its APIC id and measured rates; time checks."""
    listed = listed or online
    m = ctx.expect(r"^time: TSC calibration error against the (HPET|ACPI PM timer) over 100 ms: "
                   r"[+-]\d+\.\d{4}% \(([+-]\d+) ppm\)$", "the TSC calibration error")
    if abs(int(m.group(2))) > 10000:
        raise_failure("TSC calibration error %s ppm exceeds 1%%" % m.group(2))
    ctx.expect(r"^clock: \d+ Hz tick at IRQL 13 \(vector 0xd0\), timer in (TSC-deadline|one-shot|periodic) mode$",
               "the clock line")
    ids = {}
    for cpu, apic, tsc, ppm, timer in re.findall(
            r"^cpu (\d+): APIC id (\d+) online, TSC (\d+\.\d{3}) MHz \(([+-]\d+) ppm from the boot CPU's\), "
            r"APIC timer (\d+\.\d{3}) MHz$", ctx.text, re.M):
        cpu = int(cpu)
        if cpu in ids:
            raise_failure("cpu %d reported twice" % cpu)
        ids[cpu] = int(apic)
        if abs(int(ppm)) > 10000 or float(tsc) <= 0 or float(timer) <= 0:
            raise_failure("cpu %d: implausible rates: TSC %s MHz (%s ppm), timer %s MHz" % (cpu, tsc, ppm, timer))
    if sorted(ids) != list(range(online)):
        raise_failure("expected CPUs 0..%d online, saw %s" % (online - 1, sorted(ids)))
    if len(set(ids.values())) != online:
        raise_failure("APIC ids are not unique: %s" % ids)
    ctx.expect(r"^smp: %d of %d listed CPUs online in \d+ ms%s$" % (online, listed, re.escape(extra)),
               "the SMP summary")
    ctx.expect(r"^check: DPCs: %d of %d CPUs ran the DPC targeted at them, at IRQL 2 in DPC context$"
               % (online, online), "a DPC on every CPU")
    m = ctx.expect(r"^check: clock ticks in 200 ms: (\d+) to (\d+) per CPU over %d CPUs, (\d+) to (\d+) with the "
                   r"periods they came late \(expected (\d+)\)$" % online, "clock ticks on every CPU")
    lo, hi, alo, want = int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(5))
    # As the kernel judges it in a VM (kernel/workloads/boot.c): every CPU took a
    # tick (in the window, or, when the host ran a vCPU not at all in it, within
    # the 5 s after) and none ran faster than twice the rate; how many ticks a
    # vCPU gets is the host's choice (printed, not judged).
    if lo == 0:
        ctx.expect(r"^check: clock: the CPUs without a tick in the window each took one within \d+ ms after it ",
                   "a first tick on every CPU that took none in the window")
    if hi > want * 2 + 2:
        raise_failure("clock ticks %d..%d, %d.. with late periods, expected about %d" % (lo, hi, alo, want))
    ctx.expect(r"^check: a 20 ms one-shot timer fired \d+ us late$", "the one-shot timer")
    ctx.expect(r"^check: empty interrupt round trip \(self-IPI at IRQL 14\): \d+ cycles median, \d+ average", "the IPI cost")
    ctx.expect(r"^scenario boot: machine is up, every check passed$", "the scenario verdict")


def smp_test(online, listed=None, extra=""):
    def check(ctx):
        check_direct(ctx)
        check_cpus(ctx, online, listed, extra)
    return check


def raise_failure(msg):
    raise Failure(msg)


def check_uefi(online):
    def check(ctx):
        check_healthy_boot(ctx, "kprof-uefi", "\\kprof\\cmdline.txt")
        ctx.expect(r"kprof-uefi: ", "the loader's progress lines")
        ctx.expect(r"^console: .*framebuffer \d+x\d+ (RGBX|BGRX) at 0x", "the GOP framebuffer console")
        check_cpus(ctx, online)
    return check


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


def check_uefi_disk(ctx):
    check_uefi(4)(ctx)
    ctx.expect(r"^kprof-uefi: stick: booted from a disk, not a USB stick: the trace goes to the serial port only$",
               "the loader: not a USB boot")
    ctx.expect(r"^stick: none \(not booted from a USB stick\)", "the kernel: no stick")


def check_direct(ctx):
    check_healthy_boot(ctx, "pvh", "direct-boot command line" if ctx.result.command.count("-append") else
                       "none: defaults")
    ctx.expect(r"^stick: none \(not booted from a USB stick\): the trace goes to the serial port only$",
               "no stick under PVH")


def check_fault(ctx):
    ctx.expect_status(PANIC)
    ctx.expect(r"^\*\*\* kprof: CPU 0: exception 14 \(#PF page fault\), error code 0x2$", "the page-fault report")
    ctx.expect(r"faulting address \(CR2\) 0x00000000dead0008", "CR2")
    ctx.expect(r"page fault: page not present, write, kernel mode", "the decoded error code")
    ctx.expect(r"RIP ffffffff8[0-9a-f]{7}  RSP [0-9a-f]{16}", "the register dump")
    ctx.expect(r"^\*\*\* STOP: 0x00000050 .*\n\*\*\* PAGE_FAULT_IN_NONPAGED_AREA$", "the stop code")
    # The backtrace names the whole chain, innermost first.
    ctx.expect_in_order([r"^Backtrace \(frame pointers",
                         r"^  #0  0x[0-9a-f]{16} selftest_fault_write\+0x[0-9a-f]+$",
                         r"^  #1  0x[0-9a-f]{16} selftest_fault_middle\+0x[0-9a-f]+$",
                         r"^  #2  0x[0-9a-f]{16} selftest_fault_outer\+0x[0-9a-f]+$",
                         r"^  #3  0x[0-9a-f]{16} selftest_run\+0x[0-9a-f]+$",
                         r"^  #4  0x[0-9a-f]{16} kernel_main\+0x[0-9a-f]+$",
                         r"^kprof: run ended: panic \(exit status 0x12\)$"], "symbolized backtrace")


def check_stack_overflow(ctx):
    ctx.expect_status(PANIC)
    ctx.expect(r"exception 8 \(#DF double fault\)", "a double fault on its own stack")
    ctx.expect(r"^\*\*\* UNEXPECTED_KERNEL_MODE_TRAP$", "the stop code")
    ctx.expect(r"^  #1  0x[0-9a-f]{16} selftest_recurse\S*\+0x[0-9a-f]+  \(x\d+, through #\d+\)$",
               "the recursion, folded")


def check_ud(ctx):
    ctx.expect_status(PANIC)
    ctx.expect(r"exception 6 \(#UD invalid opcode\)", "the #UD report")
    ctx.expect(r"^  #0  0x[0-9a-f]{16} selftest_run\+0x[0-9a-f]+$", "the faulting function")


def check_panic(ctx):
    ctx.expect_status(PANIC)
    ctx.expect(r"^\*\*\* STOP: 0x000000E2 \(0x0000006b70726f66,", "the stop code and parameter")
    ctx.expect(r"^\*\*\* MANUALLY_INITIATED_CRASH$", "the stop code name")
    ctx.expect_in_order([r"^  #0  0x[0-9a-f]{16} selftest_run\+", r"^  #1  0x[0-9a-f]{16} kernel_main\+"],
                        "the caller of the bug check")


def documented_keys():
    """Every key docs/cmdline.md lists (generated from the kernel's and the
    architecture's key tables), in its order: the rows `| `key=` | ...`."""
    doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "cmdline.md")
    with open(doc, encoding="utf-8") as f:
        keys = re.findall(r"^\| `([^`=]+)=` \|", f.read(), re.M)
    if len(keys) < 2:
        raise Failure("%s lists %d keys: not the page the key tables generate" % (doc, len(keys)))
    return keys


def check_bad_key(ctx):
    """The unknown key's refusal lists every key, however many: the list
    goes on over indented lines, none of them cut by the console."""
    ctx.expect_status(CONFIG)
    m = ctx.expect(r"^cmdline: unknown key 'bogus' in 'bogus=1'; accepted keys:(.*)\n((?:cmdline:   .*\n)*)",
                   "the unknown-key message and its list")
    text = m.group(1) + "," + "".join(line[len("cmdline:   "):] + "," for line in m.group(2).splitlines())
    listed = [k.strip() for k in text.split(",") if k.strip()]
    want = documented_keys()
    missing = [k for k in want if k not in listed]
    twice = sorted({k for k in listed if listed.count(k) > 1})
    extra = [k for k in listed if k not in want]
    if missing or twice or extra:
        raise Failure("the accepted keys on the console are not docs/cmdline.md's %d keys: missing %s, more than "
                      "once %s, not documented %s (listed: %s)" % (len(want), missing, twice, extra, listed))
    if listed != want:
        raise Failure("the accepted keys are not in the tables' order: %s" % listed)
    ctx.expect(r"^cmdline: 1 error; nothing was run", "the refusal")
    ctx.expect(r"^kprof: run ended: configuration rejected \(exit status 0x13\)$", "the run's end")
    ctx.reject(r"^scenario ", "the scenario running")


def check_frame_byte_refused(ctx):
    """A refused key holding the frame marker byte 0xFE is echoed with '?'
    in its place: console text never carries 0xFE (docs/wire-format.md)."""
    ctx.expect_status(CONFIG)
    ctx.expect(r"^cmdline: unknown key 'bog\?us' in 'bog\?us=1'", "the unknown-key message, 0xFE shown as '?'")
    with open(ctx.log_path, "rb") as f:
        raw = f.read()
    if b"\xfe" in raw:
        raise Failure("the serial output holds a 0xFE byte at offset %d (no frame was sent)" % raw.index(b"\xfe"))


def check_bad_value(ctx):
    ctx.expect_status(CONFIG)
    ctx.expect(r"^cmdline: cpus=x: not a number; accepted: a whole number from 1 to 256 or 'all'$",
               "the bad-value message")
    ctx.reject(r"^scenario ", "the scenario running")


def check_irql_misuse(ctx):
    ctx.expect_status(PANIC)
    ctx.expect(r"^\*\*\* STOP: 0x0000000A \(0x0000000000000000, 0x0000000000000002,", "the stop code")
    ctx.expect(r"^\*\*\* IRQL_NOT_LESS_OR_EQUAL$", "the stop code name")
    ctx.expect(r"^\*\*\* ke_lower_irql: lowering from IRQL 0 to the higher IRQL 2$", "the explanation")
    ctx.expect(r"^  #0  0x[0-9a-f]{16} ke_lower_irql\+", "where it was detected")


def check_cpuid_refused(ctx):
    ctx.expect_status(CONFIG)
    ctx.expect(r"^cmdline: tsc_source=cpuid: this machine does not have it", "the refusal")


def under_kvm(check):
    """The same check as under TCG, on a run that really was under KVM (the
    runner skips the test when KVM is unusable or the run fell back to TCG),
    with what KVM gives this kernel: the x2APIC and the TSC-deadline timer."""
    def run(ctx):
        if ctx.result.accel != "kvm":
            raise_failure("ran under %s, not KVM" % ctx.result.accel)
        ctx.expect(r"^apic: x2APIC \(MSR access\)", "x2APIC under KVM")
        ctx.expect(r"timer in TSC-deadline mode$", "TSC-deadline under KVM")
        check(ctx)
    return run


def kprof_json(ctx, *args):
    """Run the host tool on the test's serial log; (stdout, summary dict)."""
    with tempfile.TemporaryDirectory() as tmp:
        summary = os.path.join(tmp, "summary.json")
        proc = subprocess.run([ctx.kprof] + list(args) + ["--summary-json", summary, ctx.log_path],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if not os.path.exists(summary):
            raise_failure("kprof %s failed: %s" % (" ".join(args), proc.stderr.decode()))
        with open(summary) as f:
            return proc, json.load(f)


def check_etl_ctf(ctx, records):
    """The ETL file and the CTF trace of the log hold every record."""
    with tempfile.TemporaryDirectory() as tmp:
        etl = os.path.join(tmp, "trace.etl")
        subprocess.run([ctx.kprof, "etl", ctx.log_path, "-o", etl, "--quiet"], check=True)
        reader = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "etl_reader.py")
        out = subprocess.run(["/usr/bin/python3", reader, etl, "--json"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        # The ETL file holds the log's Windows records plus the events the
        # writer makes (rundown, Thread/Process Start, CollectionStart/End):
        # count the copies.  kprof's own records (group 0xFE) are TraceLogging
        # events, but for KprofThread, KprofRecordsLost and KprofEventType.
        made = {0x0005, 0x0008, 0x0020, 0x0301, 0x0303, 0x0501, 0x0503, 0x0B0A, 0x0F49, 0x0F4A, 0x1403, 0x1421}
        etl_records = sum(1 for line in out.stdout.splitlines() if json.loads(line)["hook"] not in made)
        tl = subprocess.run(["/usr/bin/python3", reader, etl, "--json", "--tl"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
        etl_own = len(tl.stdout.splitlines())
        dec = subprocess.run([ctx.kprof, "decode", "--json", ctx.log_path], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True)
        hooks = [json.loads(line)["hook"] for line in dec.stdout.splitlines() if "hook" in json.loads(line)]
        windows = sum(1 for h in hooks if h >> 8 != 0xFE)
        own = sum(1 for h in hooks if h >> 8 == 0xFE and h not in (0xFE04, 0xFE06, 0xFE09))
        if out.returncode != 0 or tl.returncode != 0 or etl_records != windows or etl_own != own:
            raise_failure("ETL read back by etl_reader.py: exit %d, %d records copied, decoder %d Windows records "
                          "(of %d), %d TraceLogging events, decoder %d own records: %s"
                          % (out.returncode, etl_records, windows, records, etl_own, own,
                             (out.stderr + tl.stderr).decode()[-300:]))
        ctf = os.path.join(tmp, "ctf")
        subprocess.run([ctx.kprof, "ctf", ctx.log_path, "-o", ctf, "--quiet"], check=True)
        out = subprocess.run(["babeltrace2", ctf], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        ctf_events = len(out.stdout.splitlines())
        if out.returncode != 0 or ctf_events != records:
            raise_failure("babeltrace2: exit %d, %d events, decoder %d records: %s"
                          % (out.returncode, ctf_events, records, out.stderr.decode()[-300:]))


def check_complete_trace(ctx):
    """Nothing lost or damaged, and the ETL and CTF files hold every record."""
    proc, summary = kprof_json(ctx, "check", "--strict")
    if proc.returncode != 0 or summary["issues"] or summary["lost_total"]:
        raise_failure("kprof check --strict: exit %d, issues %s" % (proc.returncode, summary["issues"]))
    check_etl_ctf(ctx, summary["records"])


def check_chunk_encodings(ctx, compressed):
    """trace.compress=on (the default): most chunks are delta + LZ4 with
    the tracetest rule (encoding 2; older kernels wrote 1); off: every chunk
    is raw (encoding 0).  Where the kernel says compression stopped paying
    on this link ("trace: chunks go raw from here", kernel/trace/chunk.h),
    the chunks after it are raw: some of each then."""
    with open(ctx.log_path, "rb") as f:
        enc = damagelib.chunk_encodings(f.read())
    if compressed and re.search(r"^trace: chunks go raw from here: compressing \d+ KiB cost \d+ cycles a byte it "
                                r"saved, the link takes \d+ a byte", ctx.text, re.M):
        if not (enc.get(2) and enc.get(0)) or enc.get(1):
            raise_failure("chunks by encoding %s after compression stopped: expected some 2 then raw (0), no 1" % enc)
        return
    ok = (enc.get(2, 0) > enc.get(0, 0) and not enc.get(1)) if compressed else (enc.get(0, 0) > 0 and set(enc) == {0})
    if not ok:
        raise_failure("chunks by encoding %s, expected %s" % (enc, "mostly 2 (delta + LZ4), no 1" if compressed
                                                                  else "all 0 (raw)"))


def check_tracetest(cpus, expect_losses, compressed=True):
    def check(ctx):
        ctx.expect_status(SUCCESS)
        check_chunk_encodings(ctx, compressed)
        ctx.expect(r"^scenario tracetest: done on %d CPUs$" % cpus, "the scenario's end")
        problems = tracecheck.check(ctx.kprof, ctx.log_path, expect_losses=expect_losses, quiet=True)
        if problems:
            raise_failure("tracecheck: " + "; ".join(problems[:5]))
        if expect_losses:
            proc, summary = kprof_json(ctx, "check", "--strict")
            if proc.returncode != 1 or not summary["lost_total"]:
                raise_failure("--strict should fail on a trace with losses (exit %d, %d lost)"
                              % (proc.returncode, summary["lost_total"]))
            return
        check_complete_trace(ctx)
    return check


def check_sched(cpus, spinners_may_starve=False):
    """spinners_may_starve (the KVM test): no yield is allowed, since the
    spinners (priorities 1 to 4, below every other role) get no CPU before
    the deadline where a switch costs 7 ms and the higher roles' wake-ups
    fill both CPUs (KVM with software paging, docs/running.md); the timed
    waits must still have timed out."""
    def check(ctx):
        check_direct(ctx)
        ctx.expect(r"^scenario sched: done$", "the scenario's end")
        m = ctx.expect(r"^sched: (\d+) threads on %d CPUs: (\d+) items produced, (\d+) consumed; timed waits (\d+) "
                       r"timed out, (\d+) satisfied; (\d+) yields; (\d+) context switches$" % cpus, "the summary")
        if int(m.group(4)) == 0 or (int(m.group(6)) == 0 and not spinners_may_starve):
            raise_failure("no timed wait timed out, or no thread yielded: the mix did not run")
        if int(m.group(6)) == 0:
            print("    sched: no spinner yielded (allowed here: they got no CPU before the deadline)", flush=True)
        if int(m.group(2)) != int(m.group(3)) or int(m.group(2)) == 0:
            raise_failure("%s items produced, %s consumed: every item made before the time ran out must be taken"
                          % (m.group(2), m.group(3)))
        m = ctx.expect(r"^sched: thread switch \(.*\): (\d+) cycles median, (\d+) best; empty interrupt round "
                       r"trip on the same CPU: (\d+) cycles median, (\d+) best \(\d+ rounds\)$", "the switch and interrupt costs")
        switch, irq = int(m.group(1)), int(m.group(3))
        if not (0 < int(m.group(2)) <= switch and 0 < int(m.group(4)) <= irq):
            raise_failure("implausible costs: switch %d, interrupt %d" % (switch, irq))
        ctx.expect(r"^sched: priority inversion: the high thread waited \d+ us", "the inversion's outcome")
        figures = {}
        problems = schedcheck.check(ctx.kprof, ctx.log_path, quiet=True, figures=figures)
        if "idle_ready_us" in figures:  # a measurement, printed; schedcheck fails only past a tick + 400 us
            print("    sched: longest ready while a CPU it may run on idled: %.0f us (thread %s, cpu %s; "
                  "stalls not counted)" % (figures["idle_ready_us"], figures["idle_ready_thread"],
                                           figures["idle_ready_cpu"]), flush=True)
        if problems:
            raise_failure("schedcheck: " + "; ".join(problems[:5]))
        check_complete_trace(ctx)
    return check


def perfetto_user_events(ctx, tmp):
    """The user events kprof perfetto draws for the run, counted by (ph,
    name): "i" instants, "X" slices (a Begin/End pair), "C" counters."""
    trace = os.path.join(tmp, "trace.json")
    subprocess.run([ctx.kprof, "perfetto", ctx.log_path, "-o", trace, "--quiet"], check=True)
    with open(trace) as f:
        doc = json.load(f)
    by = {}
    for e in doc["traceEvents"]:
        if e.get("cat") == "user":
            by[(e["ph"], e["name"])] = by.get((e["ph"], e["name"]), 0) + 1
    return by


def check_events(cpus):
    """scenario=events: the workload's own event types decoded from the trace
    (kernel/workloads/events.c says what every field holds), in JSON Lines,
    CTF (babeltrace2 prints the fields), trace.json, the report's counts and
    kprof assert."""
    def check(ctx):
        ctx.expect_status(SUCCESS)
        ctx.expect(r"^scenario events: 100 rounds of ev_request, ev_transfer and ev_depth on %d CPUs$" % cpus,
                   "the scenario's end")
        check_complete_trace(ctx)
        dec = subprocess.run([ctx.kprof, "decode", "--json", ctx.log_path], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True)
        recs = [json.loads(line) for line in dec.stdout.splitlines()]
        counts = {}
        seen, bad, spans = set(), [], {}
        for r in recs:
            counts[r["event"]] = counts.get(r["event"], 0) + 1
            if r["event"] == "ev_request":
                c, i = r["cpu"], r["Bytes"] - r["cpu"] * 1000
                want = {"Bytes": c * 1000 + i, "Buffer": "0x%016x" % (0xffff800000000000 + i * 64),
                        "Who": ("cpu%d-worker-number-%d" % (c, i))[:12], "Mode": i % 3, "Delta": i - 50}
                if {k: r.get(k) for k in want} != want or (c, i) in seen:
                    bad.append(r)
                seen.add((c, i))
            elif r["event"] == "ev_transfer":
                key = (r["cpu"], r["Id"])
                spans[key] = spans.get(key, 0) + (1 if r["Phase"] == 1 else -1 if r["Phase"] == 2 else 99)
        if bad or seen != {(c, i) for c in range(cpus) for i in range(100)}:
            raise_failure("ev_request fields or rounds wrong: %s" % (bad[:2] or sorted(seen)[:3]))
        want = {"ev_request": 100 * cpus, "ev_transfer": 250 * cpus, "ev_depth": 100 * cpus, "KprofEventType": 3}
        if any(counts.get(k) != n for k, n in want.items()) or "KprofUserEvent" in counts:
            raise_failure("events by type %s, want %s and none raw" % (counts, want))
        if len(spans) != 125 * cpus or any(v != 0 for v in spans.values()):
            raise_failure("ev_transfer: every Begin closed by its End (%d spans, unbalanced %s)"
                          % (len(spans), [k for k, v in spans.items() if v][:3]))
        with tempfile.TemporaryDirectory() as tmp:
            ctf = os.path.join(tmp, "ctf")
            subprocess.run([ctx.kprof, "ctf", ctx.log_path, "-o", ctf, "--quiet"], check=True)
            out = subprocess.run(["babeltrace2", ctf], stdout=subprocess.PIPE, universal_newlines=True).stdout
            line = 'Bytes = 1007, Buffer = 0xFFFF8000000001C0, Who = "cpu1-worker-", Mode = ( "write" : container = 1 )'
            if line not in out or out.count(" ev_depth: ") != 100 * cpus:
                raise_failure("babeltrace2 does not print the user events' fields (%r)" % line)
            by = perfetto_user_events(ctx, tmp)
            if by != {("i", "ev_request"): 100 * cpus, ("X", "ev_transfer"): 125 * cpus, ("C", "ev_depth"): 100 * cpus}:
                raise_failure("trace.json: user events drawn as %s" % by)
            rules = os.path.join(tmp, "events.rules")
            with open(rules, "w") as f:
                f.write('event "ev_request" count == %d\nevent "ev_transfer" count == %d\n'
                        'event "ev_depth" count == %d\n' % (100 * cpus, 250 * cpus, 100 * cpus))
            proc = subprocess.run([ctx.kprof, "assert", rules, ctx.log_path, "--quiet"], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, universal_newlines=True)
            if proc.returncode != 0:
                raise_failure("kprof assert on the events (exit %d): %s" % (proc.returncode, proc.stdout[-300:]))
    return check


def check_resources(cpus, holders_may_starve=False):
    """holders_may_starve (the KVM test): the priority-4 holders (the long
    holder of slow0, whose holds the timed writer times out behind, and the
    boost holder) may get no CPU before the deadline where an interrupt
    costs about a millisecond and the higher roles fill both CPUs (KVM with
    software paging, docs/running.md; the kernel does not boost starved
    threads, docs/resources.md).  Allowed only when the summary says the
    long holder never ran (its highest priority seen is 0); then the
    boost line, which needs it, is not required, and one time-out of
    either kind stands for both (see below).  Every record rule (rescheck)
    still holds."""
    def check(ctx):
        check_direct(ctx)
        ctx.expect(r"^scenario resources: done$", "the scenario's end")
        m = ctx.expect(r"^resources: \d+ threads on %d CPUs: (\d+) exclusive and (\d+) shared holds; time-outs: "
                       r"(\d+) exclusive, (\d+) shared; (\d+) excessive waits; \d+ owner boosts; the long holder "
                       r"\(priority 4\) ran at up to priority (\d+)$" % cpus, "the summary")
        starved = holders_may_starve and int(m.group(6)) == 0
        n = [int(m.group(i)) for i in range(1, 6)]
        # starved: the slow resource is never held, so its timed waiters
        # cannot time out; the data resources' timed waiters time out only
        # behind a writer held past their 200-300 us, which a few dozen
        # holds (a loaded host's KVM run: 55 exclusive) may not give for
        # both kinds.  One time-out of either kind is still required.
        ok = all((n[0], n[1], n[2] + n[3], n[4])) if starved else all(n)
        if not ok:
            raise_failure("holds, time-outs of each kind and excessive waits must all have happened: %s"
                          % m.group(0))
        if starved:
            print("    resources: the priority-4 holders got no CPU before the deadline (allowed here): a "
                  "time-out of either kind required, no owner boost", flush=True)
        else:
            ctx.expect(r"^resources: boost: a holder of priority 4 was at priority 14 after its waiters' slices "
                       r"ended$", "the owner boost")
        problems = rescheck.check(ctx.kprof, ctx.log_path, quiet=True)
        if problems:
            raise_failure("rescheck: " + "; ".join(problems[:5]))
        check_names(ctx)
        check_thread_names(ctx)
        check_complete_trace(ctx)
    return check


def check_names(ctx):
    """Every lock and resource the console lists has its KprofObjectName
    record: address, kind and name, before its first use."""
    problems = namecheck.check(ctx.kprof, ctx.log_path, quiet=True)
    if problems:
        raise_failure("namecheck: " + "; ".join(problems[:5]))


def check_thread_names(ctx):
    """Every thread the resources workload lists ("thread N role R") has a
    KprofThread record naming it R whole (slow-timed-writer has 17
    characters: version 1 records cut names at 15)."""
    roles = dict((int(t), r) for t, r in re.findall(r"^resources: thread (\d+) role (\S+) ", ctx.text, re.M))
    proc = subprocess.run([ctx.kprof, "decode", "--json", "--quiet", ctx.log_path], stdout=subprocess.PIPE)
    names = {}
    for line in proc.stdout.decode(errors="replace").splitlines():
        if '"KprofThread"' in line:
            r = json.loads(line)
            names[r["ThreadId"]] = r["ThreadName"]
    wrong = [(t, r, names.get(t)) for t, r in roles.items() if names.get(t) != r]
    if not roles or wrong or not any(len(r) > 15 for r in roles.values()):
        raise_failure("thread names not whole in KprofThread records (id, console, record): %s" % wrong[:5])


def check_locks(cpus):
    def check(ctx):
        check_direct(ctx)
        ctx.expect(r"^scenario locks: done$", "the scenario's end")
        ctx.expect(r"^locks: guarded counts: .*: mutual exclusion held$", "the guarded counts")
        for what, status in (("AcquireSampleRate=999", "STATUS_INVALID_PARAMETER"),
                             ("SpinThreshold=0", "STATUS_INVALID_PARAMETER"),
                             ("ContentionSampleRate=0", "STATUS_INVALID_PARAMETER"),
                             ("HoldThreshold=999999", "STATUS_INVALID_PARAMETER"),
                             ("EventTraceInformationClass=4", "STATUS_INVALID_INFO_CLASS"),
                             ("length 12", "STATUS_INFO_LENGTH_MISMATCH")):
            ctx.expect(r"^locks: NtSetSystemInformation\(%s\): %s \(0x[0-9A-F]{8}\), values unchanged$"
                       % (re.escape(what), status), "the refusal of " + what)
        ctx.expect(r"^locks: after the calls: NtQuerySystemInformation STATUS_SUCCESS, 20 bytes: spin threshold 1, "
                   r"acquire sample rate 1000, contention sample rate 1, hold threshold 1000000$",
                   "the defaults still in force")
        problems = lockcheck.check(ctx.kprof, ctx.log_path, quiet=True)
        if problems:
            raise_failure("lockcheck: " + "; ".join(problems[:5]))
        check_names(ctx)
        check_complete_trace(ctx)
    return check


def check_spinlock_key_refused(ctx):
    ctx.expect_status(CONFIG)
    ctx.expect(r"^cmdline: spinlock.spin_threshold=1 spinlock.acquire_sample_rate=10 .*: refused by "
               r"NtSetSystemInformation with STATUS_INVALID_PARAMETER \(0xC000000D\); accepted: .*"
               r"acquire_sample_rate >= 1000", "the refusal naming the keys and the minimums")
    ctx.reject(r"^scenario ", "a scenario that ran anyway")


def check_pmc(ctx):
    """trace=pmc with the default TotalCycles: without a PMU (TCG, KVM
    without PMU passthrough) reported unsupported and the run goes on; with
    one (KVM's -cpu host on a host with a PMU) PmcInterrupt samples in the
    trace."""
    if not re.search(r"^pmu: no performance counters: ", ctx.text, re.M):
        ctx.expect(r"^pmc: TotalCycles every \d+ events on every CPU \(PmcInterrupt records\)$",
                   "the PMC profile started on the PMU found")
        dec = subprocess.run([ctx.kprof, "decode", "--json", ctx.log_path], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True)
        if not any(json.loads(line).get("hook") == 0x0F2F for line in dec.stdout.splitlines()):
            raise_failure("a PMU was found but the trace holds no PmcInterrupt (0x0F2F) sample")
        return
    ctx.expect(r"^pmc: TotalCycles is not supported here: STATUS_NOT_SUPPORTED: no performance counters: .+; "
               r"the run goes on without it$", "the PMC request reported unsupported")


def check_profile(cpus, judge_accuracy=True):
    """judge_accuracy False (the KVM test): the 10,000-sample accuracy goal
    is printed, not judged (profilecheck.py); everything counted is."""
    def check(ctx):
        check_direct(ctx)
        ctx.expect(r"^scenario profile: done$", "the scenario's end")
        check_pmc(ctx)
        m = ctx.expect(r"^profile: interrupt cost \(self-IPI at IRQL 14, medians of \d+ and \d+\): empty (\d+) cycles; "
                       r"profile interrupt (\d+) cycles .*; without them (\d+) cycles = ([\d.]+)x the empty "
                       r"interrupt", "the profile interrupt's cost next to an empty interrupt's")
        if not 0 < int(m.group(1)) <= int(m.group(2)):
            raise_failure("implausible interrupt costs: %s" % m.group(0))
        ctx.expect(r"^check: per-process object \(profA\) counted (\d+) samples of prof_work_a; profA's threads "
                   r"took \1 there", "the per-process object counting only its process")
        ctx.expect(r"^check: guard-page object: [1-9]\d* samples exactly at RangeLimit", "samples at RangeLimit")
        problems = profilecheck.check(ctx.kprof, ctx.log_path, os.path.join(ctx.build, "kernel.elf"), quiet=True,
                                      judge_accuracy=judge_accuracy)
        if problems:
            raise_failure("profilecheck: " + "; ".join(problems[:5]))
        check_complete_trace(ctx)
    return check


def check_time(ctx, cpus):
    """Time never goes back (docs/cpus-and-time.md): the boot measured the
    TSC's skew from CPU 0 (each other CPU, in ns with its uncertainty), the
    watchdog checked the TSC against the reference clock and said its
    verdict at the end (under TCG the TSC and the HPET both follow the host
    clock: stable), and no CPU's stamps go back in the trace (kprof check
    reports time-back otherwise: check_complete_trace) nor in the JSON."""
    # A host too loaded to run both CPUs of a pair within 2 s measures none:
    # that is said, not hidden (then the report has no skew either).
    m = ctx.expect(r"^time: TSC skew (?:from cpu 0 at boot: largest [+-](\d+) ns \(cpu (\d+), \+-(\d+) ns\), "
                   r"uncertainty up to \d+ ns, (\d+) of (\d+) CPUs measured by ping-pong|: not measured: no other "
                   r"CPU answered within 2000 ms$)", "the boot's TSC skew line")
    skew_cpus = int(m.group(4)) if m.group(4) else 0
    if m.group(4) and (int(m.group(5)) != cpus - 1 or not 1 <= skew_cpus <= cpus - 1):
        raise_failure("the skew line measured %s of %s CPUs, expected up to %d of %d"
                      % (m.group(4), m.group(5), cpus - 1, cpus - 1))
    ctx.expect(r"^time: watchdog: each CPU's TSC checked against the (HPET|ACPI PM timer) every 500 ms "
               r"\(margin 500 us \+ 500 ppm\); a read of the \1 takes \d+ ns, so stamps stay on the TSC$",
               "the watchdog's start line")
    m = ctx.expect(r"^time: watchdog: TSC (?:stable against the (?:HPET|ACPI PM timer): (\d+) checks, the largest "
                   r"difference \d+ us|UNSTABLE: on cpu \d+ it advanced -?\d+ us while the (?:HPET|ACPI PM timer) "
                   r"did \d+ us \(margin \d+ us\))", "the watchdog's verdict")
    if m.group(1) is not None and int(m.group(1)) < 1:
        raise_failure("the watchdog made no check in the whole run")
    proc = subprocess.run([ctx.kprof, "decode", "--json", "--quiet", ctx.log_path], stdout=subprocess.PIPE)
    last, back, unstable = {}, [], 0
    for line in proc.stdout.decode(errors="replace").splitlines():
        r = json.loads(line)
        if r["TimeStamp"] < last.get(r["cpu"], 0):
            back.append((r["cpu"], r["TimeStamp"], last[r["cpu"]]))
        last[r["cpu"]] = r["TimeStamp"]
        unstable += r["event"] == "KprofClockCheck" and r["Unstable"] == 1
    if back:
        raise_failure("time stamps go back in the JSON: %s" % back[:3])
    # Under TCG the guest's TSC can run ahead of the HPET (QEMU keeps its
    # TSC from going back by moving it forward): the verdict must then be
    # in the trace and in the report's first lines, as said on the console.
    if (m.group(1) is None) != (unstable > 0):
        raise_failure("the console's verdict (%s) and the trace's KprofClockCheck records (%d unstable) disagree"
                      % (m.group(0), unstable))
    report = subprocess.run([ctx.kprof, "report", ctx.log_path, "--kernel", os.path.join(ctx.build, "kernel.elf"),
                             "--quiet"], stdout=subprocess.PIPE).stdout.decode(errors="replace").replace("\n  ", " ")
    want = (r"^time +TSC skew from cpu 0 at boot: largest [+-]\d+ ns \(cpu \d+, \+-\d+ ns\), %d CPUs? measured.*"
            % skew_cpus if skew_cpus else r"^time +") + \
        r"watchdog against the (?:HPET|ACPI PM timer) every 500 ms \(a read: \d+ ns\): %s" \
        % ("TSC UNSTABLE" if unstable else "no check found the TSC unstable")
    if not re.search(want, re.sub(r"\s+", " ", report.split("\nclock ")[0]).replace(" time ", "\ntime "), re.M):
        raise_failure("the report's first lines do not give the skew and the watchdog's verdict (%r)" % want)


def check_clock_fault(cpus, ppm):
    """clock.fault_ppm=: the watchdog is made to see every TSC run `ppm`
    fast, so it must find the TSC unstable and correct the stamps (docs/
    cpus-and-time.md).  The correction is one line for all CPUs, slewed:
    the dispatcher's rules still hold across CPUs (a thread never seems to
    run on two CPUs at once: per-CPU steps at each CPU's own check broke
    that), no CPU's stamps stand still (a step down held them at one value:
    two records of a CPU never share a stamp), and the checks' Adjust grows
    with the fault.

    Of schedcheck's rules this test asserts those that join records of
    different CPUs by time alone (chain, exclusive, fields): what a
    correction that differs between CPUs breaks.  The priority and
    time-out rules are sched-4's: they allow one tick plus the recorded
    stalls, and on a loaded host a virtual CPU descheduled between two of
    its ticks leaves no record of the time before the late one's due time
    (docs/testing.md, "Still open"); this test runs them and prints what
    they found."""
    def check(ctx):
        ctx.expect(r"^time: watchdog: clock.fault_ppm=%d: a fault for tests, the watchdog sees every TSC run %d ppm "
                   r"fast$" % (ppm, ppm), "the fault's line")
        check_direct(ctx)
        ctx.expect(r"^scenario sched: done$", "the scenario's end")
        problems = schedcheck.check(ctx.kprof, ctx.log_path, quiet=True)
        joined = [p for p in problems if p.startswith(("chain:", "exclusive:", "fields:", "the trace is not complete"))]
        if joined:
            raise_failure("schedcheck: " + "; ".join(joined[:5]))
        if problems:
            print("    sched (not asserted here, sched-4's rules): %s" % "; ".join(problems[:2]), flush=True)
        check_complete_trace(ctx)
        check_time(ctx, cpus)
        ctx.expect(r"^time: watchdog: TSC UNSTABLE: ", "the watchdog's verdict: unstable")
        proc = subprocess.run([ctx.kprof, "decode", "--json", "--quiet", ctx.log_path], stdout=subprocess.PIPE)
        last, still, checks = {}, [], collections.defaultdict(list)
        for line in proc.stdout.decode(errors="replace").splitlines():
            r = json.loads(line)
            if r["TimeStamp"] == last.get(r["cpu"]):
                still.append((r["cpu"], r["TimeStamp"], r["event"]))
            last[r["cpu"]] = r["TimeStamp"]
            if r["event"] == "KprofClockCheck":
                checks[r["cpu"]].append(r)
        if still:
            raise_failure("%d records share their CPU's stamp with the record before (stamps held still): %s"
                          % (len(still), still[:3]))
        for cpu, rs in sorted(checks.items()):
            if len(rs) < 2 or not all(r["Corrected"] == 1 for r in rs):
                raise_failure("cpu %d: %d KprofClockCheck records, not all Corrected: %s" % (cpu, len(rs), rs[:2]))
            # each interval's fault is ppm of it: Adjust moves down by at
            # least that (QEMU's own TSC drift adds to it)
            for a, b in zip(rs, rs[1:]):
                want = (b["TscNs"] * ppm) // 1000000
                got_ns = (a["Adjust"] - b["Adjust"]) * 10**9 // ctx_tsc_hz(ctx)
                if got_ns < want * 8 // 10:
                    raise_failure("cpu %d: the correction moved %d ns over an interval of %d ns, expected at least "
                                  "%d ns (%d ppm)" % (cpu, got_ns, b["TscNs"], want * 8 // 10, ppm))
        print("    clock: %d checks on %d CPUs, all corrected; no CPU's stamps held still" %
              (sum(len(v) for v in checks.values()), len(checks)), flush=True)
    return check


def ctx_tsc_hz(ctx):
    """The run's TSC rate from its console line."""
    m = ctx.expect(r"^time: TSC (\d+\.\d+) MHz", "the TSC rate")
    return int(float(m.group(1)) * 1e6)


def check_mix(ctx):
    """make run's default: every workload in turn, then the report names
    the hottest functions of the profile workload and the most contended
    lock of the locks workload."""
    check_direct(ctx)
    for w in ("profile", "locks", "resources", "sched"):
        ctx.expect(r"^scenario %s: done$" % w, "the %s workload's end" % w)
    ctx.expect(r"^scenario mix: done$", "the mix's end")
    check_complete_trace(ctx)
    check_time(ctx, 2)
    kernel = os.path.join(ctx.build, "kernel.elf")
    proc = subprocess.run([ctx.kprof, "report", ctx.log_path, "--kernel", kernel, "--quiet"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise_failure("kprof report failed: %s" % proc.stderr.decode(errors="replace").strip())
    report = proc.stdout.decode(errors="replace").replace("\n  ", " ")  # headlines wrap, unwrapped
    hot = re.search(r"^== Hot spots =+\n.*?(?=^== )", report, re.S | re.M)
    if not hot or "prof_work_a" not in hot.group(0):
        raise_failure("the report's hot spots do not name prof_work_a, the profile workload's hottest function")
    # The headline names the most contended lock and its release site,
    # whole, as function+offset.  Which lock leads depends on the host: the
    # locks workload's (released in locks_worker or locks_do_op) on a quiet
    # one, but a starved run can put a resource workload's lock first.
    if not re.search(r"^most contended: \S+ \(\w+ at 0x[0-9a-f]{16}\): .*released most at\s+[a-z_]\w*\+0x[0-9a-f]+\b",
                     report, re.M):
        raise_failure("the report does not name the most contended lock and where it is released")
    # Every lock and resource of the mix is named in the trace, so no
    # section falls back to an address.
    unnamed = re.findall(r"^ ?\d+ (?:lock|resource) 0x[0-9a-f]{16}.*$", report, re.M)
    if unnamed:
        raise_failure("the report shows locks or resources without names: %s" % [u[:80] for u in unnamed[:3]])
    # ExpResourceListLock is named at boot, before the trace: by the rundown.
    proc = subprocess.run([ctx.kprof, "decode", "--quiet", ctx.log_path], stdout=subprocess.PIPE)
    if not re.search(r"KprofObjectName .*Kind=1 \(QueuedSpinLock\) Rundown=1 Name=\"ExpResourceListLock\"",
                     proc.stdout.decode(errors="replace")):
        raise_failure("no rundown record names ExpResourceListLock, the lock named before the trace started")
    check_names(ctx)
    check_trace_json(ctx, kernel)
    check_mix_phases(ctx)
    check_etl_symbols(ctx, kernel)
    check_mix_assert(ctx, kernel)
    check_fidelity(ctx, kernel, 2)


def lateness_floor(b):
    """include/kprof/lateness.h, as docs/wire-format.md states it: bucket 0
    holds 0..63 cycles; bucket b >= 1 the half octave from 2^m (+ 2^(m-1)
    for an even b), m = 6 + (b - 1) // 2."""
    if b == 0:
        return 0
    m = 6 + (b - 1) // 2
    return (1 << m) + ((1 << (m - 1)) if (b - 1) % 2 else 0)


def check_fidelity(ctx, kernel, cpus):
    """The run's fidelity statement (docs/report.md): one KprofFidelity
    record per CPU whose lateness buckets add up to its clock interrupts
    and whose latest interrupt lies in its highest non-empty bucket, the
    round trip in CPU 0's record only; the summary JSON's p50/p99/max agree
    with percentiles computed here from the decoded buckets; the report's
    first section is the fidelity section and its verdict line is in the
    --summary that make run prints."""
    with tempfile.TemporaryDirectory() as tmp:
        summary = os.path.join(tmp, "summary.json")
        out = subprocess.run([ctx.kprof, "decode", "--json", "--quiet", "--summary-json", summary, ctx.log_path],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True).stdout
        with open(summary) as f:
            fid = json.load(f)["fidelity"]
    recs = [r for r in map(json.loads, out.splitlines()) if r.get("event") == "KprofFidelity"]
    if sorted(r["cpu"] for r in recs) != list(range(cpus)):
        raise_failure("want one KprofFidelity record per CPU (%d), got %s" % (cpus, [r["cpu"] for r in recs]))
    buckets = [0] * 64
    for r in recs:
        b = r["LateBuckets"]
        if len(b) != 64 or sum(b) != r["ClockInterrupts"] or not r["ClockInterrupts"]:
            raise_failure("cpu %d: %d lateness buckets adding up to %d, for %d clock interrupts"
                          % (r["cpu"], len(b), sum(b), r["ClockInterrupts"]))
        top = max(i for i, n in enumerate(b) if n)
        if not lateness_floor(top) <= r["LateMaxCycles"] < (lateness_floor(top + 1) if top < 63 else 1 << 64):
            raise_failure("cpu %d: the latest interrupt (%d cycles) is not in the highest bucket used (%d)"
                          % (r["cpu"], r["LateMaxCycles"], top))
        if not 0 < r["StampBestCycles"] <= r["StampCycles"]:
            raise_failure("cpu %d: time stamp %d cycles, quickest %d" % (r["cpu"], r["StampCycles"],
                                                                      r["StampBestCycles"]))
        if (r["RoundTripCycles"] > 0) != (r["cpu"] == 0):
            raise_failure("cpu %d: RoundTripCycles %d (want it in CPU 0's record only)" % (r["cpu"],
                                                                                         r["RoundTripCycles"]))
        buckets = [x + y for x, y in zip(buckets, b)]
    n = sum(buckets)
    late_max = max(r["LateMaxCycles"] for r in recs)
    hz = fid["tsc_hz"]

    def pct(q):
        need, seen = max(1, -(-n * q // 100)), 0
        for i, c in enumerate(buckets):
            seen += c
            if seen >= need:
                return min(lateness_floor(i + 1) - 1 if i < 63 else late_max, late_max)
        return late_max

    for key, want in (("late_p50_ns", pct(50)), ("late_p99_ns", pct(99)), ("late_max_ns", late_max)):
        if abs(fid[key] - want * 1e9 / hz) > 1:
            raise_failure("summary JSON %s = %s, from the decoded buckets %.0f" % (key, fid[key], want * 1e9 / hz))
    if fid["clock_interrupts"] != n or fid["cpus_recorded"] != cpus or fid["stamp_cycles"] != max(
            r["StampCycles"] for r in recs):
        raise_failure("summary JSON fidelity %s against the records" % fid)
    report = subprocess.run([ctx.kprof, "report", ctx.log_path, "--kernel", kernel, "--quiet"],
                            stdout=subprocess.PIPE, text=True).stdout.replace("\n" + " " * 22, " ")
    sections = re.findall(r"^== (\S+)", report, re.M)
    if not sections or sections[0] != "fidelity:":
        raise_failure("the report's first section is %s, not fidelity" % sections[:1])
    if not re.search(r"^clock interrupt late +p50 <= .*over %d interrupts$" % n, report, re.M):
        raise_failure("the fidelity section's clock interrupt line does not count %d interrupts" % n)
    short = subprocess.run([ctx.kprof, "report", ctx.log_path, "--kernel", kernel, "--summary", "--quiet"],
                           stdout=subprocess.PIPE, text=True).stdout
    if not re.search(r"^fidelity +durations exact to ", short, re.M):
        raise_failure("the --summary (make run's) has no fidelity verdict line")


# What a CI would assert on make run's trace (docs/assert.md): nothing lost
# or damaged, each workload's own figures present under their names.
MIX_RULES = """\
lost == 0
damaged == 0
samples "prof_work_a" > 0       # the profile workload's hottest function
lock "hot0" traced > 0          # the locks workload's locks, by name
lock "ex0" traced > 0
thread "main" in > 0
cpu busy > 0%
"""


def check_mix_assert(ctx, kernel):
    """kprof assert on the mix's trace: every rule passes (exit status 0).
    Under KVM with software paging the locks workload makes about 100
    ordinary acquisitions in its second (a loaded host's clean-clone run:
    103), an uncontended one is traced 1 in 1000 (the acquire sample rate)
    and two workers rarely contend there, so a lock may have no traced
    record at all (hot0 had none in one such run): the rules naming the
    locks workload's locks are left out there, and said so.  Under TCG the
    workload makes thousands."""
    text = MIX_RULES
    if ctx.result.accel == "kvm":
        text = "".join(l for l in MIX_RULES.splitlines(True) if not l.startswith("lock "))
        print("    mix: the rules on the locks workload's locks left out under KVM (few acquisitions, 1 in 1000 "
              "traced)", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        rules = os.path.join(tmp, "mix.rules")
        with open(rules, "w") as f:
            f.write(text)
        proc = subprocess.run([ctx.kprof, "assert", rules, ctx.log_path, "--kernel", kernel, "--quiet"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if proc.returncode != 0:
        raise_failure("kprof assert on the mix (exit %d): %s" % (
            proc.returncode, [l for l in proc.stdout.splitlines() if not l.startswith("PASS")][:4]))


def check_etl_symbols(ctx, kernel):
    """make run's trace.etl and kernel.pdb: every sample IP and stack frame
    named through the Image event and the PDB as WPA does, as addr2line
    names it (tests/tools/etl_symbols.py, run by Debian's python3 for its
    python3-construct as check_etl_ctf does; llvm and lld are in the run
    profile, tools/deps.sh)."""
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "etl_symbols.py")
    proc = subprocess.run(["/usr/bin/python3", tool, ctx.kprof, ctx.log_path, kernel], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True)
    if proc.returncode != 0:
        raise_failure("the ETL's kernel addresses through its PDB (etl_symbols.py, exit %d): %s" % (
            proc.returncode, proc.stdout.strip()[-600:]))


def check_trace_json(ctx, kernel):
    """make run's trace.json loaded in Chrome DevTools' trace engine keeps
    every slice and flow (tests/tools/test_perfetto_import; it skips
    without node or the package)."""
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "trace.json")
        proc = subprocess.run([ctx.kprof, "perfetto", ctx.log_path, "--kernel", kernel, "-o", js, "--quiet"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if proc.returncode != 0:
            raise_failure("kprof perfetto failed: %s" % proc.stderr.decode(errors="replace").strip())
        test = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools", "test_perfetto_import")
        proc = subprocess.run([sys.executable, test, ctx.build, js, ctx.log_path],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if proc.returncode not in (0, 77):
            fails = [l for l in proc.stdout.decode(errors="replace").splitlines() if "FAIL" in l]
            raise_failure("trace.json in DevTools' trace engine: %s" % fails[:3])


MIX_PHASES = ("profile", "locks", "resources", "sched")


def check_mix_phases(ctx):
    """The mix's KprofPhase records: the scenario (index 0) around its four
    workloads (1..4), each started and ended once, one after another, and
    each phase as long as the console says ("phase: [i] NAME ends after N
    us", which the kernel computes from the two records' own TimeStamps):
    within 2 us, the kernel's whole microseconds against the decoder's
    nanoseconds, however long the host kept the vCPU from running."""
    proc = subprocess.run([ctx.kprof, "decode", "--json", "--quiet", ctx.log_path], stdout=subprocess.PIPE)
    recs = [json.loads(line) for line in proc.stdout.splitlines()]
    phases = sorted((r for r in recs if r.get("event") == "KprofPhase"), key=lambda r: r["TimeStamp"])
    got = [(r["Index"], r["Name"], r["End"]) for r in phases]
    want = [(0, "mix", 0)] + [(i + 1, n, e) for i, n in enumerate(MIX_PHASES) for e in (0, 1)] + [(0, "mix", 1)]
    if got != want:
        raise_failure("the KprofPhase records are not the mix's phases in order: %s" % got)
    console = {(int(i), n): int(us) for i, n, us in
               re.findall(r"^phase: \[(\d+)\] (\S+) ends after (\d+) us$", ctx.text, re.M)}
    starts = {(r["Index"], r["Name"]): r for r in phases if not r["End"]}
    for r in phases:
        if not r["End"]:
            continue
        key = (r["Index"], r["Name"])
        if key not in console:
            raise_failure("no console line says how long phase %s lasted" % (key,))
        s = starts[key]
        # the records' own clock: t is seconds since the trace started
        us = (r["t"] - s["t"]) * 1e6
        if abs(us - console[key]) > 2:
            raise_failure("phase %s: %.1f us between its records, %d us on the console" % (key, us, console[key]))


def check_workloads_example(ctx):
    """examples/ticketlock, built from outside the tree into the kernel:
    the console names it (its descriptor) and gives both locks' rates and
    hand-off times; its KprofPhase records are the scenario around its two
    phases, ticket then queued; the kernel's queued lock it names is traced
    (KprofObjectName "ticketlock.queued", SpinLock records at its address)
    and only inside the queued phase, which the ticket lock's phase leaves
    untouched; the timeline names the scenario from the run info (the wire
    gives it no number).  Its own events (ticketlock_handoff, one per
    hand-off the console counts; ticketlock_run, a span per thread and
    phase) in decode, JSON Lines, CTF (babeltrace2 prints the fields),
    trace.json and the report's section 10."""
    ctx.expect_status(SUCCESS)
    ctx.expect(r"^scenario: ticketlock: a ticket lock of its own against the kernel's queued spin lock$",
               "the descriptor's name and description")
    handoffs = {}
    for kind in ("ticket", "queued"):
        m = ctx.expect(r"^ticketlock: %s acquisitions: (\d+) per second \((\d+) in \d+ ms\)$" % kind,
                       "the %s lock's rate" % kind)
        if int(m.group(2)) < 100:
            raise_failure("the %s lock was taken %s times: not contention" % (kind, m.group(2)))
        m = ctx.expect(r"^ticketlock: %s hand-off: n=(\d+)(?: of (\d+))? min \d+ median \d+ p99 \d+ max \d+ "
                       r"mean \d+ ns$" % kind, "the %s lock's hand-off times" % kind)
        handoffs[kind] = int(m.group(2) or m.group(1))
        if handoffs[kind] == 0:
            raise_failure("no hand-off of the %s lock was measured" % kind)
    ctx.expect(r"^ticketlock: done$", "the guarded counters checked")
    nthreads = int(ctx.expect(r"^ticketlock: (\d+) threads, ", "the thread count").group(1))
    check_complete_trace(ctx)
    proc = subprocess.run([ctx.kprof, "decode", "--json", "--quiet", ctx.log_path], stdout=subprocess.PIPE)
    recs = [json.loads(line) for line in proc.stdout.splitlines()]
    # JSON Lines: one ticketlock_handoff per hand-off the console counted,
    # each lock's; a ticketlock_run Begin and End per thread and lock.
    got = {"ticket": 0, "queued": 0}
    runs = {}
    for r in recs:
        if r["event"] == "ticketlock_handoff":
            got[("ticket", "queued")[r["Lock"]]] += 1
        elif r["event"] == "ticketlock_run":
            runs[(r["Lock"], r["Thread"], r["Phase"])] = runs.get((r["Lock"], r["Thread"], r["Phase"]), 0) + 1
    if got != handoffs:
        raise_failure("ticketlock_handoff events by lock %s, the console counted %s" % (got, handoffs))
    want_runs = {(k, t, ph): 1 for k in (0, 1) for t in range(nthreads) for ph in (1, 2)}
    if runs != want_runs:
        raise_failure("ticketlock_run events %s, want a Begin and an End per thread and lock" % runs)
    text = subprocess.run([ctx.kprof, "decode", "--quiet", ctx.log_path], stdout=subprocess.PIPE,
                          universal_newlines=True).stdout
    lines = re.findall(r"^\[\+[\d.]+\] cpu \d+ ticketlock_handoff v1 ts=\d+ Lock=([01]) \((ticket|queued)\) "
                       r"HandoffNs=\d+$", text, re.M)
    if len(lines) != sum(handoffs.values()) or any(("ticket", "queued")[int(n)] != k for n, k in lines):
        raise_failure("kprof decode shows %d ticketlock_handoff lines with their fields, want %d"
                      % (len(lines), sum(handoffs.values())))
    phases = sorted((r for r in recs if r.get("event") == "KprofPhase"), key=lambda r: r["TimeStamp"])
    got = [(r["Index"], r["Name"], r["End"]) for r in phases]
    want = [(0, "ticketlock", 0), (1, "ticket", 0), (1, "ticket", 1), (2, "queued", 0), (2, "queued", 1),
            (0, "ticketlock", 1)]
    if got != want:
        raise_failure("the KprofPhase records are not the example's phases in order: %s" % got)
    names = [r["Object"] for r in recs if r.get("event") == "KprofObjectName" and r["Name"] == "ticketlock.queued"]
    if len(names) != 1:
        raise_failure("%d KprofObjectName records name ticketlock.queued, not 1" % len(names))
    held = [r["AcquireTime"] for r in recs if r.get("event") == "SpinLock" and r["SpinLockAddress"] == names[0]]
    if not held:
        raise_failure("no SpinLock record of ticketlock.queued (%s): the kernel's lock was not traced" % names[0])
    start, end = phases[3]["TimeStamp"], phases[4]["TimeStamp"]
    outside = [t for t in held if not start <= t <= end]
    if outside:
        raise_failure("%d of %d acquisitions of ticketlock.queued lie outside its phase" % (len(outside), len(held)))
    with tempfile.TemporaryDirectory() as tmp:
        svg = os.path.join(tmp, "t.svg")
        subprocess.run([ctx.kprof, "timeline", ctx.log_path, "-o", svg, "--quiet"], check=False)
        if not os.path.exists(svg) or "scenario ticketlock" not in open(svg).read():
            raise_failure("the timeline does not name the scenario ticketlock (from the run info)")
        ctf = os.path.join(tmp, "ctf")
        subprocess.run([ctx.kprof, "ctf", ctx.log_path, "-o", ctf, "--quiet"], check=True)
        out = subprocess.run(["babeltrace2", ctf], stdout=subprocess.PIPE, universal_newlines=True).stdout
        for kind in ("ticket", "queued"):
            n = len(re.findall(r' ticketlock_handoff: \{ cpu_id = \d+ \}, \{ Lock = \( "%s" : container = \d \), '
                               r'HandoffNs = \d+ \}$' % kind, out, re.M))
            if n != handoffs[kind]:
                raise_failure("babeltrace2 prints %d ticketlock_handoff events of the %s lock with their fields, "
                              "want %d" % (n, kind, handoffs[kind]))
        by = perfetto_user_events(ctx, tmp)
        want = {("i", "ticketlock_handoff"): sum(handoffs.values()), ("X", "ticketlock_run"): 2 * nthreads}
        if by != want:
            raise_failure("trace.json: the example's events drawn as %s, want %s" % (by, want))
        report = subprocess.run([ctx.kprof, "report", ctx.log_path, "--kernel", ctx.kernel, "--quiet"],
                                stdout=subprocess.PIPE,
                                universal_newlines=True).stdout
        for name, kind, n in (("ticketlock_handoff", "instant", sum(handoffs.values())),
                              ("ticketlock_run", "span", 4 * nthreads)):
            if not re.search(r"^  \d+ +%s +%s +%d$" % (name, kind, n), report, re.M):
                raise_failure("the report's section 10 does not count %d %s events" % (n, name))


def check_workloads_doc(ctx):
    """The workload docs/workloads.md shows whole (build/doc-workload/relay/relay.c,
    copied out of the page by make workloads-example), 2 producers of 50 items: the console
    names it and counts every item taken; in the trace, each producer's
    50 items as relay_handed instants with their Producer and Item, a
    relay_handling span (a Begin, then its End on the same CPU) around each
    item taken, a relay_waiting counter per item that never exceeds what
    was handed on and ends at 0; both relay-producer threads named, and
    each one's last switch away is its end (Terminated, state 4) before the
    workload's thread ends the run.  trace.json draws the three kinds;
    kprof assert counts them."""
    producers, items = 2, 50
    ctx.expect_status(SUCCESS)
    ctx.expect(r"^scenario: relay: producer threads hand items on through a semaphore$", "the descriptor")
    ctx.expect(r"^relay: %d producers, %d items taken, 0 lost$" % (producers, producers * items), "every item taken")
    check_complete_trace(ctx)
    proc = subprocess.run([ctx.kprof, "decode", "--json", "--quiet", ctx.log_path], stdout=subprocess.PIPE)
    recs = [json.loads(line) for line in proc.stdout.splitlines()]
    handed = sorted((r["Producer"], r["Item"]) for r in recs if r["event"] == "relay_handed")
    if handed != [(p, i) for p in range(producers) for i in range(items)]:
        raise_failure("relay_handed: %d events, not each producer's %d items once: %s" % (len(handed), items,
                                                                                         handed[:4]))
    open_spans, spans = {}, 0
    for r in recs:
        if r["event"] != "relay_handling":
            continue
        if r["Phase"] == 1 and r["Item"] not in open_spans:
            open_spans[r["Item"]] = r["cpu"]
        elif r["Phase"] == 2 and open_spans.pop(r["Item"], None) == r["cpu"]:
            spans += 1
        else:
            raise_failure("relay_handling: %s is not a Begin, then its End on the same CPU" % r)
    if spans != producers * items or open_spans:
        raise_failure("relay_handling: %d whole spans (want %d), %d left open" % (spans, producers * items,
                                                                                  len(open_spans)))
    waiting = [r["Waiting"] for r in recs if r["event"] == "relay_waiting"]
    if len(waiting) != producers * items or waiting[-1] != 0 or max(waiting) > producers * items:
        raise_failure("relay_waiting: %d values (want %d), last %s, max %s" % (
            len(waiting), producers * items, waiting[-1:] or None, max(waiting or [0])))
    ids = {r["ThreadId"] for r in recs if r["event"] == "KprofThread" and r["ThreadName"] == "relay-producer"}
    if len(ids) != producers:
        raise_failure("%d threads named relay-producer, want %d" % (len(ids), producers))
    for tid in sorted(ids):
        away = [r for r in recs if r["event"] == "CSwitch" and r["OldThreadId"] == tid]
        if not away or away[-1]["OldThreadState"] != 4:
            raise_failure("thread %d (relay-producer): its last switch away is not its end (state %s)"
                          % (tid, away[-1]["OldThreadState"] if away else None))
    with tempfile.TemporaryDirectory() as tmp:
        by = perfetto_user_events(ctx, tmp)
        want = {("i", "relay_handed"): producers * items, ("X", "relay_handling"): producers * items,
                ("C", "relay_waiting"): producers * items}
        if by != want:
            raise_failure("trace.json: the workload's events drawn as %s, want %s" % (by, want))
        rules = os.path.join(tmp, "relay.rules")
        with open(rules, "w") as f:
            f.write('event "relay_handed" count == %d\nevent "relay_handling" count == %d\n'
                    'event "relay_waiting" field "Waiting" min == 0\n' % (producers * items, 2 * producers * items))
        proc = subprocess.run([ctx.kprof, "assert", rules, ctx.log_path, "--quiet"], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
        if proc.returncode != 0:
            raise_failure("kprof assert on the workload's events (exit %d): %s" % (proc.returncode,
                                                                                  proc.stdout[-300:]))


def check_workloads_refused(ctx):
    """scenario= takes any registered workload: an unknown one is refused
    with the accepted list naming the kernel's own and both example
    workloads, each from its own folder (they coexist); in the same pass
    the example's own rule refuses its think time."""
    ctx.expect_status(CONFIG)
    ctx.expect(r"^cmdline: ticketlock.hold_ns=200 \+ ticketlock.think_ns=1000000 leave fewer than 100 acquisitions "
               r"per thread in ticketlock.ms=50; accepted: hold_ns \+ think_ns <= ms \* 10000$",
               "the example's own rule")
    ctx.expect(r"^cmdline: 2 errors; nothing was run", "both problems in one pass")
    ctx.expect(r"^cmdline: scenario=nope: unknown value; accepted:", "the refusal")
    # The list goes on over "cmdline:   " lines.
    listed = re.search(r"^cmdline: scenario=nope: unknown value; accepted:(.*(?:\ncmdline:   .*)*)",
                       ctx.text, re.M).group(1)
    for name in ("boot", "mix", "pingpong", "ticketlock"):
        if not re.search(r"\b%s\b" % name, listed):
            raise_failure("the accepted list does not name %s: %r" % (name, listed))
    ctx.reject(r"^scenario: ", "the scenario running")


def check_drops(ctx):
    """Stream mode with tiny buffers: the kernel drops records, and every
    drop is placed in time (KprofRecordsLost records, the rest after a
    CPU's last record), adds up exactly to the CPU end frames' buffers-full
    counts, and reaches CTF, ETL, the report and the pictures
    (tests/tools/losscheck.py); --strict fails."""
    check_direct(ctx)
    ctx.expect(r"^scenario sched: done$", "the scenario's end")
    proc, summary = kprof_json(ctx, "check", "--strict")
    if proc.returncode != 1 or not summary["lost"]["buffers_full"]:
        raise_failure("--strict should fail on a trace with drops (exit %d, %d buffers full)"
                      % (proc.returncode, summary["lost"]["buffers_full"]))
    placed = sum(d["count"] for d in summary["drops"] if not d["tail"])
    if not placed:
        raise_failure("no KprofRecordsLost record: the drops were not placed between records")
    os.environ["KPROF_KERNEL"] = os.path.join(ctx.build, "kernel.elf")
    problems = losscheck.check(ctx.kprof, ctx.log_path, quiet=True)
    if problems:
        raise_failure("losscheck: " + "; ".join(problems[:5]))


def check_trace_buffer_refused(ctx):
    """A trace.buffer_kb the user gave that cannot fit on every CPU is
    refused at probe time, naming the key, the CPUs and what would fit."""
    ctx.expect_status(CONFIG)
    m = ctx.expect(r"^cmdline: trace.buffer_kb=262144: 2 CPUs x 256 MiB do not fit in the [\d.]+ MiB free "
                   r"\([\d.]+ MiB of it kept for the kernel\); accepted here: at most (\d+) \(or fewer CPUs, or "
                   r"more memory: MEM= with make run; or trace.buffer_fit=shrink\)$",
                   "the refusal naming trace.buffer_kb, the CPU count and the largest size that fits")
    if not 128 * 1024 < int(m.group(1)) < 262144 or int(m.group(1)) % 64:
        raise_failure("at most %s: not a whole number of sub-buffers between 128 and 256 MiB" % m.group(1))
    ctx.expect(r"^cmdline: 1 error; nothing was run", "the refusal")
    ctx.reject(r"^scenario ", "a scenario that ran anyway")


def check_trace_buffer_shrunk(cpus):
    """make run's default buffer (trace.buffer_fit=shrink) on a machine too
    small for it: every CPU gets a smaller one, the console says so, and
    nothing is lost (kprof check --strict), with records from every CPU."""
    def check(ctx):
        ctx.expect_status(SUCCESS)  # not check_direct: that expects 512 MiB
        m = ctx.expect(r"^trace: buffers sized down to fit: %d CPUs x 16 MiB do not fit in the [\d.]+ MiB free "
                       r"\([\d.]+ MiB of it kept for the kernel\), so each CPU gets [\d.]+ [KM]iB, "
                       r"trace.buffer_kb=(\d+) \(trace.buffer_fit=shrink: " % cpus, "the size chosen and why")
        ctx.expect(r"^trace: %d CPUs x %s KiB " % (cpus, m.group(1)), "the trace started with the smaller buffers")
        ctx.expect(r"^scenario locks: done$", "the scenario's end")
        check_complete_trace(ctx)
        _, summary = kprof_json(ctx, "check")
        if summary["cpus"] != cpus or any(not c["end"] for c in summary["per_cpu"]):
            raise_failure("the trace covers %d CPUs, %d ended; expected %d"
                          % (summary["cpus"], sum(1 for c in summary["per_cpu"] if c["end"]), cpus))
    return check


# Over BOOTINFO_CMDLINE_MAX - 1 (1023) bytes, ending in a key a cut would
# change (tick_hz=1000 cut to tick_hz=10).
LONG_CMDLINE = "scenario=boot " + " ".join(["cpus=all"] * 130) + " tick_hz=1000"


def check_pvh_cmdline_too_long(ctx):
    """Direct boot refuses an overlong command line as the UEFI loader does:
    the loader's error line, then the LOADER status; nothing parsed."""
    ctx.expect_status(LOADER)
    ctx.expect(r"^pvh: error: command line from direct-boot command line is %d bytes, longer than the limit of "
               r"1023 \(BOOTINFO_CMDLINE_MAX - 1\)$" % len(LONG_CMDLINE), "the refusal with the length and the limit")
    ctx.reject(r"^cmdline: ", "a command line that was parsed anyway")


def check_uefi_cmdline_too_long(ctx):
    """What the direct-boot refusal mirrors: the UEFI loader's own."""
    ctx.expect_status(LOADER)
    ctx.expect(r"^kprof-uefi: error: command line from \\kprof\\cmdline.txt is \d+ bytes, longer than the limit of "
               r"1023 \(BOOTINFO_CMDLINE_MAX - 1\)", "the loader's refusal")
    ctx.reject(r"^cmdline: ", "a command line that was parsed anyway")


def check_pmc_time_refused(ctx):
    ctx.expect_status(CONFIG)
    ctx.expect(r"^cmdline: pmc.sources: Time is the profile timer \(trace=profile\), not a counter; accepted: ",
               "the refusal naming the key and what is accepted")
    ctx.reject(r"^scenario ", "a scenario that ran anyway")


def check_trace_out_usb_refused(ctx):
    """trace.out=usb without a USB stick (direct boot): refused at probe
    time with the reason, before any scenario (docs/trace-out.md)."""
    ctx.expect_status(CONFIG)
    ctx.expect(r"^cmdline: trace.out=usb: the kernel was not booted from a USB stick; accepted here: "
               r"trace.out=serial \(or auto\)$", "the refusal naming trace.out, why, and what is accepted")
    ctx.expect(r"^cmdline: 1 error; nothing was run", "the refusal")
    ctx.reject(r"^scenario ", "a scenario that ran anyway")


def check_three_groups_refused(ctx):
    """Three bad keys of three groups (the clock's range, NtSetSystemInformation's
    spin-lock minimum, the trace ring's rule between keys): one pass reports
    all three before anything runs."""
    ctx.expect_status(CONFIG)
    ctx.expect(r"^cmdline: tick_hz=0: out of range; accepted: a whole number from 10 to 1000$",
               "the clock key's range")
    ctx.expect(r"^cmdline: spinlock.spin_threshold=0 .*: refused by NtSetSystemInformation with "
               r"STATUS_INVALID_PARAMETER \(0xC000000D\); accepted: spin_threshold >= 1, .*"
               r"below the minimum: spinlock.spin_threshold=0$", "the spin-lock minimum")
    ctx.expect(r"^cmdline: trace.buffer_kb=64: holds fewer than 2 sub-buffers of trace.subbuf_kb=64; accepted: "
               r"at least 128", "the trace buffer rule")
    ctx.expect(r"^cmdline: 3 errors; nothing was run \(docs/cmdline.md lists every key\)$", "the refusal")
    ctx.reject(r"^acpi: |^smp: |^scenario ", "the machine brought up or a scenario run after the refusal")


def check_panic_flushes_trace(ctx):
    check_panic(ctx)
    _, summary = kprof_json(ctx, "check")
    if summary["status"] != 0x12 or not summary["run_end"] or not summary["run_header"]:
        raise_failure("after a bug check the trace must still end with a run end frame of status 0x12: %s"
                      % {k: summary[k] for k in ("status", "run_end", "run_header")})


def check_uefi_bad_value(ctx):
    check_bad_value(ctx)
    ctx.expect(r"^cmdline: \"cpus=x\" \(\\kprof\\cmdline.txt\)$", "the command line read from the ESP")


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


def check_noise(stopper, cpus):
    """scenario=noise with the QEMU process stopped mid-window
    (tests/tools/noisecheck.py): a gap of the stop's length on every CPU
    at once, marked correlated, and nothing else that large."""
    inner = noisecheck.check_noise_stop(stopper, cpus)

    def check(ctx):
        check_direct(ctx)
        try:
            inner(ctx)
        except noisecheck.Failure as e:
            raise_failure(str(e))
    return check


# Stopped 0.5 s into pass 1's one window of 1.9 s with interrupts off,
# for 300 ms: on this 2-core host shared by several QEMUs the host's own
# scheduler takes a TCG virtual CPU away for up to ~140 ms (docs/noise.md),
# so a 50 ms stop would not be the only gap that large.
NOISE_STOP = noisecheck.MachineStop(rb"^noise: pass 1: every CPU at once", 0.5, 0.3)


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


TESTS = [
    BootTest("usb-probe-qemu-xhci", "usb.probe=on, direct boot: qemu-xhci, stick on a root port (SuperSpeed), "
             "INQUIRY over bulk", check_usb_probe("1b36:000d", "1", "SuperSpeed"),
             cmdline="scenario=boot usb.probe=on", qemu_args=usb_stick_args("qemu-xhci")),
    BootTest("usb-probe-nec-hub", "usb.probe=on, direct boot: nec-usb-xhci, stick behind usb-hub (full speed), "
             "and a full-speed device whose ep0 takes 64 bytes (Evaluate Context)",
             check_usb_probe("1033:0194", "5.1", "full-speed", hub_port="5", more=[
                 (r"^usb\.probe: \S+ port 6: full-speed device 46f4:0002 class 00/00/00, USB 1\.00, ep0 64 bytes",
                  "usb-audio on root port 6 with its ep0 at 64 bytes")]),
             cmdline="scenario=boot usb.probe=on",
             qemu_args=usb_stick_args("nec-usb-xhci", hub=True) + [
                 "-audiodev", "none,id=a0", "-device", "usb-audio,bus=xhci.0,port=2,audiodev=a0"]),
    BootTest("usb-probe-pc-legacy", "usb.probe=on on the pc machine (no MCFG): legacy PCI ports, nec-usb-xhci",
             check_usb_probe("1033:0194", "1", "SuperSpeed", access="legacy configuration ports"), machine="pc",
             cmdline="scenario=boot usb.probe=on", qemu_args=usb_stick_args("nec-usb-xhci")),
    BootTest("usb-probe-uefi", "usb.probe=on booted by OVMF from the USB stick (qemu-xhci halted and reset by "
             "the firmware): the boot stick answers; then the trace (trace.out=auto: the stick alone) opens the "
             "same stick again and holds the whole trace, serial none of it", check_probe_then_trace, boot="usb",
             cmdline="scenario=boot usb.probe=on", timeout=120),
    BootTest("usb-write-error", "one write to the stick fails (QEMU blkdebug, EIO once, 32 KiB into the file), "
             "trace.out=usb in dump mode: reset recovery, the write done again, the whole trace on the stick",
             check_usb_write_error_once, boot="usb", cpus=2,
             cmdline="scenario=tracetest trace=tracetest tracetest.records=5000 trace.out=usb trace.mode=dump",
             usb_write_error=(TRACE_FILE_LBA + 64, True), timeout=120),
    BootTest("usb-write-errors", "every write over one sector 1.5 MiB into the file fails: the recovery ladder, "
             "then serial carries the rest; stick and serial together hold every record; exit status 0x15",
             check_split_after_ladder, boot="usb", cpus=2,
             cmdline="scenario=tracetest trace=tracetest tracetest.records=40000 trace.buffer_kb=8192 "
                     "trace.compress=off trace.out=usb trace.mode=dump",
             usb_write_error=(TRACE_FILE_LBA + 3072, False), timeout=150),
    BootTest("usb-write-timeout", "the stick's disk throttled (QEMU's I/O throttling) from the second write of the "
             "file: its status never comes within usb.csw_timeout_ms=2000; after the stage's write failed, the "
             "throttle lifted (monitor): reset recovery, the stage written again, the whole trace on the stick",
             check_usb_write_timeout(2000), boot="usb", cpus=2,
             cmdline="scenario=tracetest trace=tracetest tracetest.records=5000 trace.compress=off trace.out=usb "
                     "trace.mode=dump "
                     + TIMEOUT_KEYS % (2000, 2000),
             usb_write_throttle=(30 << 10, 0), timeout=120,
             on_output=monitor_on(rb"^trace: USB stick: writing \d+ bytes at offset 0 of \\kprof\\trace\.bin failed: "
                                  rb"timeout .*; recovering", "block_set_io_throttle stick 0 0 0 0 0 0")),
    BootTest("usb-write-timeouts", "the stick's disk throttled for good after the first 1.5 MiB of the file "
             "(usb.csw_timeout_ms=1000): a time-out at every rung of the recovery ladder, then serial carries the "
             "rest; stick and serial together hold every record; exit status 0x15",
             check_usb_write_timeouts(1000), boot="usb", cpus=2,
             cmdline="scenario=tracetest trace=tracetest tracetest.records=20000 trace.compress=off trace.out=usb "
                     "trace.mode=dump " + TIMEOUT_KEYS % (1000, 1000),
             usb_write_throttle=(48 << 10, 1512 << 10), timeout=150),
    BootTest("usb-unplug", "the stick removed (QEMU device_del) while the locks workload runs, trace.out=usb in "
             "stream mode: the run ends, every record sent is in the file or on serial, the missing ones counted",
             check_usb_unplugged, boot="usb", cpus=2,
             cmdline="scenario=mix trace.out=usb trace.mode=stream trace.compress=off",
             on_output=unplug_on(rb"^phase: \[2\] locks starts"), timeout=240),
    BootTest("usb-handoff", "every USB controller taken from the firmware at boot: EHCI (usb-ehci) halted with "
             "its legacy SMIs off, xHCI, UHCI and OHCI each one line; the run succeeds; SMIs not counted on "
             "QEMU's CPUs, in the trace and the report", check_usb_handoff, cpus=2,
             cmdline="scenario=boot", qemu_args=["-device", "usb-ehci", "-device", "qemu-xhci",
                                                 "-device", "piix3-usb-uhci", "-device", "pci-ohci"]),
    BootTest("direct", "direct boot (PVH, no firmware), 1 CPU", smp_test(1), boot="direct", cmdline="scenario=boot"),
    BootTest("uefi-disk", "UEFI (OVMF) from the GPT disk image, 4 CPUs", check_uefi_disk, boot="uefi", cpus=4,
             cmdline="scenario=boot", timeout=90),
    BootTest("uefi-usb", "UEFI from the same image as a USB stick (qemu-xhci, root port), 2 CPUs: the stick's "
             "place, disk and trace file sectors reported; trace.out=both, stream mode: the stick's trace equals "
             "the serial one record for record", check_usb_both(2, ["1"]), boot="usb", cpus=2,
             cmdline="scenario=boot trace.out=both trace.mode=stream", timeout=90),
    BootTest("usb-dma-below-4g", "6 GiB of memory, pages above 4 GiB given first (mm.high_first=on); "
             "usb.dma32=on: every DMA region given to qemu-xhci (usb.dmalog=on lists them) is below 4 GiB and the "
             "stick's trace equals serial", check_usb_dma_below_4g, boot="usb", mem="6G",
             cmdline="scenario=boot trace.out=both trace.mode=stream mm.high_first=on usb.dma32=on usb.dmalog=on",
             timeout=120),
    BootTest("usb-nec", "a USB stick on nec-usb-xhci: the same stick line; trace.out=both in dump mode: the same "
             "records on the stick as on serial", check_usb_both(1, ["1"]), boot="usb", usb_hc="nec-usb-xhci",
             cmdline="scenario=boot trace.out=both trace.mode=dump", timeout=90),
    BootTest("usb-hub", "a USB stick behind a usb-hub (USB 2, xHCI port 5 > hub port 1); trace.out=both, stream "
             "mode: the same records on the stick as on serial", check_usb_both(1, ["5", "1"]),
             boot="usb", usb_hub="1", cmdline="scenario=boot trace.out=both", timeout=90),
    BootTest("usb-nec-hub", "nec-usb-xhci with the stick behind a usb-hub, trace.out=both in dump mode: the same "
             "records on the stick as on serial", check_usb_both(1, ["5", "1"]), boot="usb", usb_hub="1",
             usb_hc="nec-usb-xhci", cmdline="scenario=boot trace.out=both trace.mode=dump", timeout=90),
    BootTest("usb-mbr", "the image rebuilt with an MBR (mkimage.sh IMAGE_TABLE=mbr, the same files): the loader and "
             "the kernel name it by disk signature, partition and FAT volume serial; trace.out=both, stream mode: "
             "the same records on the stick as on serial", check_usb_both(1, ["1"], MBR_STICK), boot="usb",
             cmdline="scenario=boot trace.out=both", timeout=90, prepare_disk=MBR_STICK),
    BootTest("usb-mbr-by-hand", "a shop's MBR stick (sfdisk, mkfs.vfat defaults) prepared as docs/usb-stick.md's "
             "by-hand recipe says; trace.out=both in dump mode: the same records on the stick as on serial",
             check_usb_both(1, ["1"], HAND_STICK), boot="usb", cmdline="scenario=boot trace.out=both trace.mode=dump",
             timeout=90, prepare_disk=HAND_STICK),
    BootTest("usb-superfloppy", "a stick with no partition table (FAT32 on the whole disk, OVMF's path without HD "
             "node): named by its FAT volume serial; trace.out=both: the same records on the stick as on serial",
             check_usb_both(1, ["1"], SUPERFLOPPY_STICK), boot="usb", cmdline="scenario=boot trace.out=both",
             timeout=90, prepare_disk=SUPERFLOPPY_STICK),
    BootTest("usb-scan-hub", "usb.stick_port=2 (an empty root port) with the stick behind a usb-hub: the kernel "
             "finds it by its disk GUID at port 5 > 1 and says so in one line; trace.out=both: the same records on "
             "the stick as on serial",
             check_usb_found_by_scan(["5", "1"], "port 2 (usb.stick_port=2; the loader's port 5 > 1)"),
             boot="usb", usb_hub="1", cmdline="scenario=boot trace.out=both usb.stick_port=2", timeout=120),
    BootTest("usb-readonly", "a read-only stick (readonly=on): one clear line, nothing written, the whole trace on "
             "serial, exit 0", check_usb_readonly, boot="usb", usb_readonly=True, cmdline="scenario=boot",
             timeout=90),
    BootTest("usb-file-small", "a %d KiB trace file and a tracetest run that records more: what fits kept and "
             "decoded, the rest counted as not in the file (kernel = decoder), check --strict fails on the file, "
             "serial whole" % SMALL_FILE_KIB, check_usb_file_small, boot="usb", cpus=2,
             cmdline="scenario=tracetest trace=tracetest tracetest.records=5000 trace.buffer_kb=8192 trace.out=both",
             timeout=120, prepare_disk=lambda disk: stickcheck.shrink_trace_file(disk, SMALL_FILE_KIB)),
    BootTest("usb-no-trace-file", "a stick without \\kprof\\trace.bin: the loader says to rebuild the image, the "
             "trace goes to serial", check_usb_refused(r"no \\kprof\\trace\.bin on the stick: rebuild the image "
                                                       r"with make image .*", "no usable trace file"),
             boot="usb", cmdline="scenario=boot", timeout=90, prepare_disk=stickcheck.delete_trace_file),
    BootTest("usb-fragmented", "a trace file in 21 pieces: refused by the loader, the trace goes to serial",
             check_usb_fragmented, boot="usb", cmdline="scenario=boot", timeout=90, prepare_disk=fragment_stick),
    BootTest("usb-damaged-fat", "the trace file's cluster chain cut short in the FAT: named by the loader",
             check_usb_refused(r"the boot partition's FAT cannot be read: the cluster chain is shorter than the file "
                               r"size; check the stick \(fsck\.vfat, chkdsk\) or rebuild the image with make image",
                               "its file system could not be read"),
             boot="usb", cmdline="scenario=boot", timeout=90, prepare_disk=stickcheck.cut_trace_chain),
    BootTest("usb-ehci-refused", "a stick on EHCI (USB 2 only): the loader names the PCI class and what to do",
             check_usb_refused(r"the stick's USB controller at 00:05\.0 has PCI class 0x0C0320, not xHCI "
                               r"\(0x0c0330\): plug the stick into a USB 3 port, or enable xHCI in the firmware setup",
                               None), boot="usb", usb_hc="usb-ehci", cmdline="scenario=boot", timeout=90),
    BootTest("smp-2", "2 CPUs, q35", smp_test(2), cpus=2),
    BootTest("smp-8", "8 CPUs, q35", smp_test(8), cpus=8),
    # The profile timer at 10 ms rather than the default 1 ms: 64 emulated
    # CPUs on a 2-core host cannot also take 64,000 profile interrupts a
    # second and still keep their clock ticks (which the test checks).
    BootTest("smp-64", "64 CPUs, q35", smp_test(64), cpus=64, cmdline="profile.interval=100000", timeout=120),
    BootTest("q35-intel-4", "4 CPUs, q35, Intel model (Westmere)", smp_test(4), cpus=4, cpu="Westmere"),
    BootTest("q35-amd-4", "4 CPUs, q35, AMD model (EPYC)", smp_test(4), cpus=4, cpu="EPYC"),
    BootTest("pc-intel-4", "4 CPUs, pc (i440FX), Intel model", smp_test(4), cpus=4, machine="pc", cpu="Westmere"),
    BootTest("pc-amd-8", "8 CPUs, pc (i440FX), AMD model", smp_test(8), cpus=8, machine="pc", cpu="EPYC"),
    BootTest("periodic-timer", "cpus=2 of 4, timer=periodic tick_hz=250",
             smp_test(2, listed=4, extra=", 2 left off by cpus=2"), cpus=4,
             cmdline="cpus=2 timer=periodic tick_hz=250"),
    BootTest("pmtimer", "tsc_source=pmtimer on pc", smp_test(2), cpus=2, machine="pc", cmdline="tsc_source=pmtimer"),
    BootTest("disabled-cpus", "-smp 2,maxcpus=4: two CPUs disabled in the MADT",
             smp_test(2, listed=4, extra=", 2 disabled in firmware"), smp="2,maxcpus=4"),
    BootTest("irql-misuse", "selftest=irql: lowering to a higher IRQL bug-checks", check_irql_misuse,
             cmdline="selftest=irql"),
    BootTest("tsc-cpuid-refused", "tsc_source=cpuid on a CPU that does not state its rate", check_cpuid_refused,
             cmdline="tsc_source=cpuid"),
    BootTest("tracetest-4", "tracetest on 4 CPUs: every record checked, ETL and CTF read back",
             check_tracetest(4, False), cpus=4, cmdline="scenario=tracetest trace=tracetest tracetest.records=10000 trace.buffer_kb=8192",
             timeout=120),
    BootTest("tracetest-raw", "tracetest on 2 CPUs with trace.compress=off: raw chunks, every record checked",
             check_tracetest(2, False, compressed=False), cpus=2,
             cmdline="scenario=tracetest trace=tracetest tracetest.records=5000 trace.buffer_kb=8192 trace.compress=off",
             timeout=120),
    BootTest("tracetest-losses", "tracetest in dump mode with tiny buffers: every loss counted",
             check_tracetest(4, True), cpus=4,
             cmdline="scenario=tracetest trace=tracetest trace.mode=dump trace.buffer_kb=64 trace.subbuf_kb=16", timeout=120),
    BootTest("drops-stream", "stream mode with 8 KiB buffers: every drop placed in time, counted exactly, and in "
             "CTF, ETL, the report and the pictures", check_drops, cpus=2,
             cmdline="scenario=sched trace=cswitch,profile,stack,clock trace.buffer_kb=8 trace.subbuf_kb=4",
             timeout=120),
    BootTest("events-2", "scenario=events on 2 CPUs: the workload's own event types and every field decoded, in "
             "CTF (babeltrace2), the ETL file (etl_reader.py), trace.json and kprof assert", check_events(2), cpus=2,
             cmdline="scenario=events trace=cswitch"),
    BootTest("noise-stop", "scenario=noise on 2 CPUs, the QEMU process stopped (SIGSTOP) for 300 ms in pass 1: "
             "a gap of the stop's length on both CPUs at once, marked correlated, nothing else that large",
             check_noise(NOISE_STOP, 2), cpus=2,
             cmdline="scenario=noise noise.ms=2000 noise.window_ms=2000 noise.width_ms=1900",
             on_output=NOISE_STOP.make, timeout=120),
    BootTest("sched-4", "scenario=sched on 4 CPUs: every context switch checked against the dispatcher's rules",
             check_sched(4), cpus=4, cmdline="scenario=sched trace=cswitch,clock", timeout=120),
    BootTest("clock-fault-4", "scenario=sched on 4 CPUs with clock.fault_ppm=5000: the TSC found unstable, "
             "the stamps slewed, the rules that join CPUs by time still hold", check_clock_fault(4, 5000), cpus=4,
             cmdline="scenario=sched trace=cswitch,clock clock.fault_ppm=5000", timeout=120),
    BootTest("resources-4", "scenario=resources on 4 CPUs: ERESOURCE records counted, holds mutually exclusive, "
             "time-outs honoured", check_resources(4), cpus=4,
             cmdline="scenario=resources trace=resource resource.timeout_ms=20 trace.buffer_kb=8192", timeout=120),
    BootTest("locks-4", "scenario=locks on 4 CPUs: every SpinLock record and every sampling rule checked",
             check_locks(4), cpus=4, cmdline="scenario=locks trace=spinlock trace.buffer_kb=4096", timeout=120),
    BootTest("profile-2", "scenario=profile on 2 CPUs: buckets against samples, per-process and per-CPU objects, "
             "the guard page at RangeLimit, accuracy, no PMU", check_profile(2), cpus=2,
             cmdline="scenario=profile trace=profile,stack,pmc trace.mode=dump trace.buffer_kb=16384 "
                     "profile.interval=1221 profile.ms=2000", timeout=120),
    BootTest("mix-2", "scenario=mix (make run's default) on 2 CPUs, then kprof report names the hot functions "
             "and the most contended lock", check_mix, cpus=2,
             cmdline="scenario=mix trace.mode=dump trace.buffer_kb=16384 mix.ms=400", timeout=120),
    BootTest("trace-buffer-refused", "trace.buffer_kb=262144 on 2 CPUs in 512 MiB is refused at probe time",
             check_trace_buffer_refused, cpus=2,
             cmdline="scenario=locks locks.ms=200 trace.mode=dump trace.buffer_kb=262144"),
    BootTest("trace-buffer-shrunk", "make run's 16 MiB buffers on 8 CPUs in 128 MiB: sized down, said so, "
             "nothing lost", check_trace_buffer_shrunk(8), cpus=8, mem="128M",
             cmdline="scenario=locks locks.ms=200 trace.mode=dump trace.buffer_kb=16384 trace.buffer_fit=shrink",
             timeout=120),
    BootTest("pvh-cmdline-too-long", "direct boot refuses a command line over 1023 bytes, as the UEFI loader does",
             check_pvh_cmdline_too_long, cmdline=LONG_CMDLINE),
    BootTest("uefi-cmdline-too-long", "the UEFI loader refuses a command line over 1023 bytes",
             check_uefi_cmdline_too_long, boot="uefi", cmdline=LONG_CMDLINE, timeout=90),
    BootTest("trace-out-usb-refused", "trace.out=usb on a direct boot (no USB stick) is refused at probe time",
             check_trace_out_usb_refused, cmdline="trace.out=usb"),
    BootTest("pmc-time-refused", "pmc.sources=Time is refused (the profile timer is not a counter)",
             check_pmc_time_refused, cmdline="pmc.sources=Time,TotalCycles"),
    BootTest("spinlock-key-refused", "spinlock.acquire_sample_rate=10 is refused by NtSetSystemInformation",
             check_spinlock_key_refused, cmdline="spinlock.acquire_sample_rate=10"),
    BootTest("three-groups-refused", "tick_hz=0, spinlock.spin_threshold=0 and a trace buffer of one sub-buffer: "
             "all three refused in one pass", check_three_groups_refused,
             cmdline="tick_hz=0 spinlock.spin_threshold=0 trace.buffer_kb=64 trace.subbuf_kb=64"),
    BootTest("panic-trace", "a bug check still sends the trace and its end frames",
             check_panic_flushes_trace, cpus=2, cmdline="selftest=panic"),
    BootTest("fault", "selftest=fault: page fault with a symbolized backtrace", check_fault,
             cmdline="selftest=fault"),
    BootTest("stack-overflow", "selftest=stack: guard page, double fault on IST", check_stack_overflow,
             cmdline="selftest=stack"),
    BootTest("invalid-opcode", "selftest=ud: #UD report", check_ud, cmdline="selftest=ud"),
    BootTest("bugcheck", "selftest=panic: bug check with caller backtrace", check_panic, cmdline="selftest=panic"),
    BootTest("bad-key", "bogus=1 is refused, every key listed", check_bad_key, cmdline="bogus=1"),
    BootTest("frame-byte-refused", "a key with a 0xFE byte is refused and echoed without it",
             check_frame_byte_refused, cmdline="bog\udcfeus=1"),
    BootTest("bad-value", "cpus=x is refused", check_bad_value, cmdline="cpus=x"),
    BootTest("workloads-example", "examples/ticketlock built from outside the tree: ticket lock vs queued lock",
             check_workloads_example, cpus=2, cmdline="scenario=ticketlock ticketlock.ms=300", kernel="workloads"),
    BootTest("workloads-doc", "the workload docs/workloads.md shows whole, copied from the page: threads started, "
             "waited for and ended, a semaphore, an event of each kind", check_workloads_doc, cpus=2,
             cmdline="scenario=relay relay.items=50 relay.producers=2", kernel="workloads"),
    BootTest("workloads-refused", "two example folders built in: scenario= lists both; an unknown one refused",
             check_workloads_refused, cmdline="scenario=nope ticketlock.ms=50 ticketlock.think_ns=1000000",
             kernel="workloads"),
    BootTest("uefi-bad-value", "cpus=x from \\kprof\\cmdline.txt is refused", check_uefi_bad_value, boot="uefi",
             cmdline="cpus=x", timeout=90),
] + [
    # The scenario tests again under KVM, where /dev/kvm works (skipped with
    # the reason where not): the same checks on the records, shorter runs
    # and small buffers.  Direct boot: OVMF does not run under every KVM
    # (docs/running.md).  The profile interval is the paced default
    # (kernel/profile/pace.h), not the TCG tests' 122.1 us: an interrupt
    # costs about 0.7 ms under KVM with software paging.  locks.ms=4000:
    # there the interrupt handler takes its lock some 50 times a second and
    # 2.4% of takes are contended (traced), so a record from the interrupt
    # handler needs seconds (none in 1 of 2 runs of 500 ms; none in a 4 s
    # run on a loaded host, 248 takes): lockcheck judges its absence only
    # from 5 x the acquire sample rate of takes on.
    BootTest("kvm-" + name, "under KVM: " + doc, under_kvm(check), cpus=2, accel="kvm", cmdline=cmdline, timeout=300)
    for name, doc, check, cmdline in (
        ("mix-2", "scenario=mix on 2 CPUs, the report's hot functions and most contended lock", check_mix,
         "scenario=mix trace.mode=dump trace.buffer_kb=2048 mix.ms=1000"),
        ("locks-2", "scenario=locks on 2 CPUs, every SpinLock record and sampling rule", check_locks(2),
         "scenario=locks trace=spinlock trace.buffer_kb=1024 locks.ms=4000"),
        ("sched-2", "scenario=sched on 2 CPUs, every context switch against the dispatcher's rules",
         check_sched(2, spinners_may_starve=True),
         "scenario=sched trace=cswitch,clock trace.buffer_kb=1024"),
        ("resources-2", "scenario=resources on 2 CPUs, ERESOURCE records, holds and time-outs",
         check_resources(2, holders_may_starve=True),
         "scenario=resources trace=resource resource.timeout_ms=20 trace.buffer_kb=1024 resources.ms=1000"),
        ("profile-2", "scenario=profile on 2 CPUs, buckets against samples, the guard page, no PMU",
         check_profile(2, judge_accuracy=False), "scenario=profile trace=profile,stack,pmc trace.mode=dump "
                                                 "trace.buffer_kb=2048 profile.ms=500"),
        ("tracetest-2", "tracetest on 2 CPUs, every record checked, ETL and CTF read back",
         check_tracetest(2, False), "scenario=tracetest trace=tracetest tracetest.records=2000 trace.buffer_kb=1024"),
        ("events-2", "scenario=events on 2 CPUs, the workload's own event types in every output", check_events(2),
         "scenario=events trace=cswitch trace.buffer_kb=1024"),
    )
]
