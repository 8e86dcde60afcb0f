# unit-size.mk - size_format() (kernel/lib/size.c), the one formatter of
# "2.6 MB"-style sizes on the console, against the exact strings each
# message printed before it existed.

unit_size_SRCS := kernel/lib/size.c kernel/lib/printf.c

$(BUILD)/tests/unit/test_size: kernel/lib/size.h

UNIT_NAMES += size
