# tests/unit/boot/uefi/unit.mk - the UEFI loader's own code (included by
# tests/unit/unit.mk):
#   uefi_mmap   the memory-map conversion (boot/uefi/mmap_convert.c): type
#               translation, descriptor stride, the loader's own ranges

UNIT_TESTS += tests/unit/boot/uefi/test_uefi_mmap.c
unit_uefi_mmap_SRCS := boot/uefi/mmap_convert.c boot/common/bootmap.c
