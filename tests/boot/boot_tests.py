"""boot_tests.py - the boot tests: configurations and what each must show.

A test is a BootTest with a check(ctx) function; ctx (run_boot_tests.Context)
has the exit status and serial text and raises Failure on a mismatch.
"""

import re

SUCCESS, FAILURE, PANIC, CONFIG, LOADER = 0, 1, 2, 3, 4


class Failure(Exception):
    """A boot test's expectation did not hold."""


class BootTest:
    def __init__(self, name, doc, check, boot="direct", cpus=1, cmdline="", accel="tcg", machine="q35",
                 cpu="", mem="512M", timeout=60):
        self.name, self.doc, self.check = name, doc, check
        self.boot, self.cpus, self.cmdline, self.accel = boot, cpus, cmdline, accel
        self.machine, self.cpu, self.mem, self.timeout = machine, cpu, mem, timeout


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
    ctx.expect(r"^acpi: RSDP at 0x[0-9a-f]+$", "the ACPI RSDP address")
    ctx.expect(r"^cmdline: \"[^\"]*\" \(%s\)$" % re.escape(cmdline_source), "the command line and its source")
    ctx.expect(r"^kprof: run ended: success \(exit status 0x10\)$", "the success line")
    ctx.reject(r"exception|STOP:|unexpected interrupt", "an exception or bug check")


def raise_failure(msg):
    raise Failure(msg)


def check_uefi(ctx):
    check_healthy_boot(ctx, "kprof-uefi", "\\kprof\\cmdline.txt")
    ctx.expect(r"kprof-uefi: ", "the loader's progress lines")
    ctx.expect(r"^console: .*framebuffer \d+x\d+ (RGBX|BGRX) at 0x", "the GOP framebuffer console")


def check_direct(ctx):
    check_healthy_boot(ctx, "pvh", "direct-boot command line")


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


def check_bad_key(ctx):
    ctx.expect_status(CONFIG)
    ctx.expect(r"^cmdline: unknown key 'bogus' in 'bogus=1'; accepted keys: scenario, cpus, selftest",
               "the unknown-key message")
    ctx.expect(r"^cmdline: 1 error; nothing was run", "the refusal")
    ctx.reject(r"^scenario ", "the scenario running")


def check_bad_value(ctx):
    ctx.expect_status(CONFIG)
    ctx.expect(r"^cmdline: cpus=x: not a number; accepted: a whole number from 1 to 256 or 'all'$",
               "the bad-value message")
    ctx.reject(r"^scenario ", "the scenario running")


def check_uefi_bad_value(ctx):
    check_bad_value(ctx)
    ctx.expect(r"^cmdline: \"cpus=x\" \(\\kprof\\cmdline.txt\)$", "the command line read from the ESP")


TESTS = [
    BootTest("direct", "direct boot (PVH, no firmware)", check_direct, boot="direct", cmdline="scenario=boot"),
    BootTest("uefi-disk", "UEFI (OVMF) from the GPT disk image", check_uefi, boot="uefi", cmdline="scenario=boot",
             timeout=90),
    BootTest("uefi-usb", "UEFI from the same image as a USB stick (xHCI)", check_uefi, boot="usb",
             cmdline="scenario=boot", timeout=90),
    BootTest("fault", "selftest=fault: page fault with a symbolized backtrace", check_fault,
             cmdline="selftest=fault"),
    BootTest("stack-overflow", "selftest=stack: guard page, double fault on IST", check_stack_overflow,
             cmdline="selftest=stack"),
    BootTest("invalid-opcode", "selftest=ud: #UD report", check_ud, cmdline="selftest=ud"),
    BootTest("bugcheck", "selftest=panic: bug check with caller backtrace", check_panic, cmdline="selftest=panic"),
    BootTest("bad-key", "bogus=1 is refused", check_bad_key, cmdline="bogus=1"),
    BootTest("bad-value", "cpus=x is refused", check_bad_value, cmdline="cpus=x"),
    BootTest("uefi-bad-value", "cpus=x from \\kprof\\cmdline.txt is refused", check_uefi_bad_value, boot="uefi",
             cmdline="cpus=x", timeout=90),
]
