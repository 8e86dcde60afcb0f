# tests/unit/kernel/usb/storage/unit.mk - the USB stick (included by
# tests/unit/unit.mk): kernel/usb/storage/ (Bulk-Only Transport, SCSI, the
# stick and its trace file) with the whole of kernel/usb/core/, against a
# fake xHCI controller behind kernel/usb/hci.h with fake hubs and a fake
# Bulk-Only disk (USBSTOR_*, tests/unit/unit.mk):
#   bot            the Bulk-Only Transport state machine and its recovery
#   stick          the stick as the trace's block device
#   stick_recover  the stick's recovery ladder
#   stick_scan     the stick by its identity (MBR as well as GPT) and the
#                  search of every port and hub

UNIT_TESTS += $(addprefix tests/unit/kernel/usb/storage/test_,bot.c stick.c stick_recover.c stick_scan.c)

unit_bot_SRCS      := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)
unit_stick_SRCS    := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)
unit_stick_recover_SRCS := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)
unit_stick_scan_SRCS := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)

$(addprefix $(BUILD)/tests/unit/kernel/usb/storage/test_,bot stick stick_recover stick_scan): $(USBSTOR_HDRS)
