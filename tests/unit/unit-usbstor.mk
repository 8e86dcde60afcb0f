# unit-usbstor.mk - the USB stick stack (kernel/usb: enumeration, hubs,
# Bulk-Only Transport, SCSI, the stick and its trace file) against a fake
# xHCI controller with fake hubs and a fake Bulk-Only disk behind it
# (tests/unit/fake_hci.c, fake_hub.c, fake_bot.c), over the kernel's own
# page allocator and heap on fake RAM.  test_stick_scan: the stick by its
# identity (MBR as well as GPT) and the search of every port and hub.

USBSTOR_KERNEL_SRCS := kernel/usb/usb.c kernel/usb/usb_config.c kernel/usb/usb_path.c kernel/usb/hub.c \
	kernel/usb/bot.c kernel/usb/scsi.c kernel/usb/scsi_sense.c kernel/usb/stick.c kernel/usb/stick_file.c \
	kernel/usb/stick_scan.c kernel/usb/xhci_status.c boot/common/diskid.c boot/common/gpt.c \
	kernel/mm/pmm.c kernel/mm/heap.c kernel/lib/printf.c kernel/lib/crc32.c
USBSTOR_FAKE_SRCS := tests/unit/fake_hci.c tests/unit/fake_hub.c tests/unit/fake_bot.c
USBSTOR_HDRS := $(wildcard kernel/usb/*.h) boot/common/diskid.h tests/unit/fake_hci.h tests/unit/usbstor_fixture.h

unit_usb_enum_SRCS := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)
unit_bot_SRCS      := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)
unit_stick_SRCS    := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)
unit_stick_scan_SRCS := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)

$(BUILD)/tests/unit/test_usb_enum $(BUILD)/tests/unit/test_bot $(BUILD)/tests/unit/test_stick \
	$(BUILD)/tests/unit/test_stick_scan: $(USBSTOR_HDRS)

UNIT_NAMES += usb_enum bot stick stick_scan
