#!/usr/bin/python3
"""run_boot_tests.py - boot kprof in QEMU and assert on what it reports.

Each test boots one configuration through tools/qemu.py (the same code
`make run` uses), stopped when nothing comes from the serial port for the
test's time-out (BootTest.timeout, the runner's --stall) or at ten times
that in all (the runner's --timeout cap, for a kernel that loops
printing), captures the serial port, checks the
exit status and the output, and prints how long the boot took to reach the
kernel banner.  The serial log is kept (under BUILD/test-logs/) only when
the test fails.

    run_boot_tests.py --kernel build/kernel.elf --image build/kprof.img [--only NAME...]
        [--workloads-kernel K --workloads-image I]

The tests of workloads built from outside the tree (BootTest.kernel ==
"workloads") boot the kernel and image given by --workloads-kernel and
--workloads-image (make boot-tests builds them with WORKLOADS=, in a
build folder of their own); without those they are skipped, saying so.
"""

import argparse
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
sys.path.insert(0, HERE)

import qemu  # noqa: E402
import boot_common  # noqa: E402
import boot_tests  # noqa: E402


Failure = boot_common.Failure

# A test's cap in all, in multiples of its time-out without output: a run
# that keeps sending is slow, not hung (KVM here runs workloads 6 to 25
# times their length), but one that never ends fails all the same.
CAP_FACTOR = 10


class Context:
    """What a test's check function gets: the run's output and helpers."""

    def __init__(self, result, log_path, build, image, stick_file=None):
        self.result = result
        self.stick_file = stick_file          # BOOT=usb: trace.bin copied out of the run's image
        self.text = qemu.clean_for_terminal(result.output).decode("utf-8", "replace")
        self.log_path = log_path              # the raw serial log, for the decoder
        self.build = build
        self.kprof = os.path.join(build, "kprof")
        self.image = image                    # the image the run's copy was made from

    def expect(self, pattern, what=None, flags=re.M):
        m = re.search(pattern, self.text, flags)
        if not m:
            raise Failure("expected %s (pattern %r) in the serial output" % (what or "a line", pattern))
        return m

    def reject(self, pattern, what=None, flags=re.M):
        m = re.search(pattern, self.text, flags)
        if m:
            raise Failure("did not expect %s, found %r" % (what or "this", m.group(0)))

    def expect_in_order(self, patterns, what):
        pos = 0
        for p in patterns:
            m = re.compile(p, re.M).search(self.text, pos)
            if not m:
                raise Failure("%s: %r not found after offset %d" % (what, p, pos))
            pos = m.end()

    def expect_status(self, status):
        if self.result.status != status:
            raise Failure("exit: expected status %d, got %d (%s)" % (
                status, self.result.status, self.result.outcome))


def run_test(t, opts):
    with tempfile.TemporaryDirectory(prefix="kprof-boottest-") as tmp:
        return run_test_in(t, opts, tmp)


def run_test_in(t, opts, tmp):
    kernel, image = opts.kernel, opts.image
    if t.kernel == "workloads":
        if not (opts.workloads_kernel and opts.workloads_image):
            return None, None, "needs a kernel built with the example workloads (--workloads-kernel, " \
                "--workloads-image; make boot-tests builds one)"
        kernel, image = opts.workloads_kernel, opts.workloads_image
    # BOOT=usb: the stick's trace file is copied out after the run (as
    # make run does) for the tests that read it (ctx.stick_file).
    stick_out = os.path.join(tmp, "trace.bin") if t.boot == "usb" else None
    qopts = argparse.Namespace(
        boot=t.boot, cpus=t.cpus, smp=t.smp, cmdline=t.cmdline, accel=t.accel, machine=t.machine, cpu=t.cpu,
        mem=t.mem, kernel=kernel, image=image, stall=t.timeout, timeout=t.timeout * CAP_FACTOR, usb_hc=t.usb_hc, usb_hub=t.usb_hub,
        usb_readonly=t.usb_readonly, stick_out=stick_out, prepare_disk=t.prepare_disk,
        usb_write_error=t.usb_write_error, usb_write_throttle=t.usb_write_throttle, on_output=t.on_output() if t.on_output else None,
        qemu_args=[a.replace("{image}", image) for a in t.qemu_args])
    said = []

    def say(m):
        said.append(m)
        print("    " + m, flush=True)

    res = qemu.run(qopts, say=say)
    if t.accel == "kvm" and res.accel != "kvm":
        # The run fell back to TCG: it says nothing about KVM, so the test
        # is skipped (with the runner's reason), never passed.
        return res, None, "KVM unusable: " + (said[-1] if said else "the run fell back to TCG")
    error = None
    log_path = os.path.join(tmp, "serial.log")
    with open(log_path, "wb") as f:
        f.write(res.output)
    ctx = Context(res, log_path, opts.build, image, res.stick_file)
    ctx.kernel = kernel                       # the kernel ELF booted (its symbols, for kprof report)
    try:
        t.check(ctx)
    except Failure as e:
        error = str(e)
    return res, error, None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--image", required=True)
    ap.add_argument("--build", default="build")
    ap.add_argument("--only", nargs="*", help="run only these tests")
    ap.add_argument("--workloads-kernel", help="the kernel built with WORKLOADS= (the workloads-* tests)")
    ap.add_argument("--workloads-image", help="its disk image")
    ap.add_argument("--list", action="store_true")
    opts = ap.parse_args()

    tests = boot_tests.TESTS
    if opts.list:
        for t in tests:
            print("%-22s %s" % (t.name, t.doc))
        return 0
    if opts.only:
        unknown = set(opts.only) - {t.name for t in tests}
        if unknown:
            print("unknown test(s): %s; known: %s" % (", ".join(sorted(unknown)),
                                                     ", ".join(t.name for t in tests)))
            return 2
        tests = [t for t in tests if t.name in opts.only]

    logdir = os.path.join(opts.build, "test-logs")
    os.makedirs(logdir, exist_ok=True)
    failed = []
    banner_times = {}
    start = time.monotonic()
    skipped = []
    for t in tests:
        print("boot test %-22s %s" % (t.name, t.doc), flush=True)
        if t.accel == "kvm":
            ok, why = qemu.kvm_usable()
            if not ok:
                skipped.append(t.name)
                print("  SKIP %-22s skipped: KVM unusable: %s" % (t.name, why), flush=True)
                continue
        res, error, skip = run_test(t, opts)
        if skip:
            skipped.append(t.name)
            print("  SKIP %-22s skipped: %s" % (t.name, skip), flush=True)
            continue
        banner = "%.2f s" % res.banner_s if res.banner_s is not None else "never"
        log = os.path.join(logdir, t.name + ".log")
        if error:
            with open(log, "wb") as f:
                f.write(res.output)
            failed.append(t.name)
            print("  FAIL %s: %s" % (t.name, error))
            print("       %s; boot to banner %s; serial log kept in %s" % (res.outcome, banner, log))
            print("       qemu: %s" % " ".join(res.command))
        else:
            if os.path.exists(log):
                os.unlink(log)
            print("  PASS %-22s boot to banner %-7s whole run %.2f s (%s)" % (
                t.name, banner, res.elapsed_s, res.accel), flush=True)
            if res.banner_s is not None:
                banner_times.setdefault(t.boot, []).append(res.banner_s)

    summary = ", ".join("%s %.2f s" % (b, min(v)) for b, v in sorted(banner_times.items()))
    print("boot tests: %d run, %d passed, %d failed, %d skipped in %.0f s; fastest boot to banner: %s" % (
        len(tests) - len(skipped), len(tests) - len(failed) - len(skipped), len(failed), len(skipped),
        time.monotonic() - start, summary or "n/a"))
    if skipped:
        print("boot tests skipped: %s" % ", ".join(skipped))
    if failed:
        print("boot tests failed: %s" % ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
