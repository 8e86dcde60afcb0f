"""boot_common.py - what every boot test's check uses: the BootTest
descriptor, Failure, the exit statuses, the healthy-boot, direct-boot and
CPU checks, and the whole-trace checks (kprof check --strict, the ETL and
CTF files read back by independent readers).  The checks by area are beside
it (boot_machine.py, boot_usb.py, boot_workloads.py); boot_tests.py is the
table of tests."""

import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import damagelib  # noqa: E402
import tlown  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

SUCCESS, FAILURE, PANIC, CONFIG, LOADER, TRACE_SPLIT = 0, 1, 2, 3, 4, 5


class Failure(Exception):
    """A boot test's expectation did not hold."""


class BootTest:
    def __init__(self, name, doc, check, boot="direct", cpus=1, cmdline="", accel="tcg", machine="q35",
                 cpu="", mem="512M", timeout=60, smp="", usb_hc="qemu-xhci", usb_hub="0", prepare_disk=None,
                 usb_readonly=False, qemu_args=(), usb_write_error=None, usb_write_throttle=None, on_output=None,
                 kernel="default", modules=()):
        self.name, self.doc, self.check = name, doc, check
        # The modules (source folders) it tests that its name does not say:
        # the table of module and test (tools/test-table.py) reads them.
        self.modules = tuple(modules)
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
    # As the kernel judges it in a VM (kernel/workloads/scenarios/boot.c): every CPU took a
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
        etl, proc = tlown.write_etl(ctx.kprof, ctx.log_path, tmp)
        if proc.returncode != 0:
            raise_failure("kprof etl failed with status %d: %s" % (proc.returncode, proc.stderr.decode()[-300:]))
        events, rc, err = tlown.read_etl(etl)
        # The ETL file holds the log's Windows records plus the events the
        # writer makes (rundown, Thread/Process Start, CollectionStart/End):
        # count the copies.  kprof's own records (group 0xFE) are TraceLogging
        # events, but for KprofThread, KprofRecordsLost and KprofEventType.
        made = {0x0005, 0x0008, 0x0020, 0x0301, 0x0303, 0x0501, 0x0503, 0x0B0A, 0x0F49, 0x0F4A, 0x1403, 0x1421}
        etl_records = sum(1 for e in events if e["hook"] not in made)
        tl_events, tl_rc, tl_err = tlown.read_etl(etl, tl=True)
        etl_own = len(tl_events)
        dec = subprocess.run([ctx.kprof, "decode", "--json", ctx.log_path], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True)
        recs = [json.loads(line) for line in dec.stdout.splitlines()]
        windows = sum(1 for d in recs if "hook" in d and d["hook"] >> 8 != 0xFE)
        own = sum(1 for d in recs if "hook" in d and tlown.carried(d))
        if rc != 0 or tl_rc != 0 or etl_records != windows or etl_own != own:
            raise_failure("ETL read back by etl_reader.py: exit %d, %d records copied, decoder %d Windows records "
                          "(of %d), %d TraceLogging events, decoder %d own records: %s"
                          % (rc or tl_rc, etl_records, windows, records, etl_own, own, (err + tl_err)[-300:]))
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
    on this link ("trace: chunks go raw from here", kernel/trace/out/chunk.h),
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



def check_direct(ctx):
    check_healthy_boot(ctx, "pvh", "direct-boot command line" if ctx.result.command.count("-append") else
                       "none: defaults")
    ctx.expect(r"^stick: none \(not booted from a USB stick\): the trace goes to the serial port only$",
               "no stick under PVH")
