# tests/unit/kernel/lib/unit.mk - the kernel's library (included by
# tests/unit/unit.mk):
#   printf   kernel/lib/printf.c against the host C library's snprintf
#   size     size_format() (kernel/lib/size.c), the one formatter of
#            "2.6 MB"-style sizes on the console, against the exact strings
#            each message printed before it existed
#   stats    quickselect and medians (kernel/lib/stats.c) against a sorted copy

UNIT_TESTS += $(addprefix tests/unit/kernel/lib/test_,printf.c size.c stats.c)

unit_printf_SRCS := kernel/lib/printf.c
unit_size_SRCS   := kernel/lib/size.c kernel/lib/printf.c
unit_stats_SRCS  := kernel/lib/stats.c

$(BUILD)/tests/unit/kernel/lib/test_size: kernel/lib/size.h
