"""boot_machine.py - the boot tests' checks of the machine and the way in:
UEFI boot, faults and bug checks, command lines and values the kernel or
the loader refuses."""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from boot_common import (  # noqa: E402
    CONFIG, Failure, LOADER, PANIC, check_cpus, check_healthy_boot, kprof_json, raise_failure)


def check_uefi(online):
    def check(ctx):
        check_healthy_boot(ctx, "kprof-uefi", "\\kprof\\cmdline.txt")
        ctx.expect(r"kprof-uefi: ", "the loader's progress lines")
        ctx.expect(r"^console: .*framebuffer \d+x\d+ (RGBX|BGRX) at 0x", "the GOP framebuffer console")
        check_cpus(ctx, online)
    return check


def check_uefi_disk(ctx):
    check_uefi(4)(ctx)
    ctx.expect(r"^kprof-uefi: stick: booted from a disk, not a USB stick: the trace goes to the serial port only$",
               "the loader: not a USB boot")
    ctx.expect(r"^stick: none \(not booted from a USB stick\)", "the kernel: no stick")


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
