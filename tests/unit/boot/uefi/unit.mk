# tests/unit/boot/uefi/unit.mk - the UEFI loader's own code (included by
# tests/unit/unit.mk):
#   mmap_convert   the memory-map conversion (boot/uefi/mmap_convert.c): type
#                  translation, descriptor stride, the loader's own ranges

UNIT_TESTS += tests/unit/boot/uefi/test_mmap_convert.c
unit_mmap_convert_SRCS := boot/uefi/mmap_convert.c boot/common/bootmap.c
