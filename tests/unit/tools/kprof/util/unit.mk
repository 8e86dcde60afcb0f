# tests/unit/tools/kprof/util/unit.mk - the host tool's helpers (included
# by tests/unit/unit.mk):
#   sort   kp_sort_nearly (tools/kprof/util/sort.h), the in-place sort of
#          nearly ordered arrays, against a stable sort of every element

UNIT_TESTS += tests/unit/tools/kprof/util/test_sort.c
unit_sort_SRCS := tools/kprof/util/alloc.c

$(BUILD)/tests/unit/tools/kprof/util/test_sort: tools/kprof/util/sort.h
