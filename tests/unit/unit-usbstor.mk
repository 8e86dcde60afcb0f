# unit-usbstor.mk - the USB stick stack's two upper layers, whole:
# kernel/usb/core/ (enumeration, hubs, descriptors, status words) and
# kernel/usb/storage/ (Bulk-Only Transport, SCSI, the stick and its trace
# file), against a fake xHCI controller behind kernel/usb/hci.h with fake
# hubs and a fake Bulk-Only disk (tests/unit/support/fake_hci.c, fake_hub.c,
# fake_bot.c), over the kernel's own page allocator and heap on fake RAM,
# with the disk identity and GPT header checks the loader and the stick
# share (boot/common/diskid.c, gpt.c).  test_stick_scan: the stick by its
# identity (MBR as well as GPT) and the search of every port and hub.

USBSTOR_KERNEL_SRCS := $(wildcard kernel/usb/core/*.c kernel/usb/storage/*.c) boot/common/diskid.c boot/common/gpt.c \
	kernel/mm/pmm.c kernel/mm/heap.c kernel/lib/printf.c kernel/lib/codec/crc32.c
USBSTOR_FAKE_SRCS := tests/unit/support/fake_hci.c tests/unit/support/fake_hub.c tests/unit/support/fake_bot.c
USBSTOR_HDRS := $(wildcard kernel/usb/*.h kernel/usb/core/*.h kernel/usb/storage/*.h) boot/common/diskid.h tests/unit/support/fake_hci.h tests/unit/support/usbstor_fixture.h

unit_usb_enum_SRCS := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)
unit_bot_SRCS      := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)
unit_stick_SRCS    := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)
unit_stick_recover_SRCS := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)
unit_stick_scan_SRCS := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)

$(addprefix $(BUILD)/tests/unit/test_,usb_enum bot stick stick_recover stick_scan): $(USBSTOR_HDRS)

UNIT_NAMES += usb_enum bot stick stick_recover stick_scan
