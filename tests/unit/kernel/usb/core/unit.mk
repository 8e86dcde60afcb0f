# tests/unit/kernel/usb/core/unit.mk - the USB core (included by
# tests/unit/unit.mk): enumeration along the boot path, through hubs,
# against the fake controller, hubs and disk (USBSTOR_*, tests/unit/unit.mk).

UNIT_TESTS += tests/unit/kernel/usb/core/test_usb_enum.c
unit_usb_enum_SRCS := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)

$(BUILD)/tests/unit/kernel/usb/core/test_usb_enum: $(USBSTOR_HDRS)
