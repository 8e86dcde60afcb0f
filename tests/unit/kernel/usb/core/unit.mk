# tests/unit/kernel/usb/core/unit.mk - the USB core (included by
# tests/unit/unit.mk):
#   hub   enumeration along the boot path, through hubs (kernel/usb/core/hub.c
#         mainly; usb.c, usb_enum.c, usb_config.c and
#         kernel/usb/storage/stick_path.c with it), against the fake
#         controller, hubs and disk (USBSTOR_*, tests/unit/unit.mk)

UNIT_TESTS += tests/unit/kernel/usb/core/test_hub.c
unit_hub_SRCS := $(USBSTOR_KERNEL_SRCS) $(USBSTOR_FAKE_SRCS)

$(BUILD)/tests/unit/kernel/usb/core/test_hub: $(USBSTOR_HDRS)
