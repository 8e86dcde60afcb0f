"""boot_tests.py - the boot tests: configurations and what each must show.

A test is a BootTest with a check(ctx) function; ctx (run_boot_tests.Context)
has the exit status and serial text and raises Failure on a mismatch.

The checks live beside it by area: boot_common.py (BootTest, Failure, the
exit statuses, the whole-trace checks), boot_machine.py (boot, faults, the
command line), boot_usb.py (the USB stack and the stick), boot_workloads.py
(the workloads and their traces).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stickcheck  # noqa: E402
from boot_common import BootTest, smp_test, under_kvm  # noqa: E402
from boot_machine import (  # noqa: E402
    LONG_CMDLINE, check_bad_key, check_bad_value, check_cpuid_refused, check_fault, check_frame_byte_refused,
    check_irql_misuse, check_panic, check_panic_flushes_trace, check_pmc_time_refused,
    check_pvh_cmdline_too_long, check_stack_overflow, check_three_groups_refused, check_trace_out_usb_refused,
    check_ud, check_uefi_bad_value, check_uefi_cmdline_too_long, check_uefi_disk)
from boot_usb import (  # noqa: E402
    HAND_STICK, MBR_STICK, SMALL_FILE_KIB, SUPERFLOPPY_STICK, TIMEOUT_KEYS, TRACE_FILE_LBA,
    check_probe_then_trace, check_split_after_ladder, check_usb_both, check_usb_dma_below_4g,
    check_usb_file_small, check_usb_found_by_scan, check_usb_fragmented, check_usb_handoff, check_usb_probe,
    check_usb_readonly, check_usb_refused, check_usb_unplugged, check_usb_write_error_once,
    check_usb_write_timeout, check_usb_write_timeouts, fragment_stick, monitor_on, unplug_on, usb_stick_args)
from boot_workloads import (  # noqa: E402
    NOISE_STOP, check_clock_fault, check_drops, check_events, check_locks, check_mix, check_noise,
    check_profile, check_resources, check_sched, check_spinlock_key_refused, check_trace_buffer_refused,
    check_trace_buffer_shrunk, check_tracetest, check_workloads_doc, check_workloads_example,
    check_workloads_refused)


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
    BootTest("direct", "direct boot (PVH, no firmware), 1 CPU", smp_test(1), boot="direct", cmdline="scenario=boot",
             modules=("arch/x86_64/serial",)),
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
             cmdline="cpus=2 timer=periodic tick_hz=250", modules=("arch/x86_64/apic",)),
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
             cmdline="selftest=fault", modules=("arch/x86_64/entry",)),
    BootTest("stack-overflow", "selftest=stack: guard page, double fault on IST", check_stack_overflow,
             cmdline="selftest=stack", modules=("arch/x86_64/entry",)),
    BootTest("invalid-opcode", "selftest=ud: #UD report", check_ud, cmdline="selftest=ud", modules=("arch/x86_64/entry",)),
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
