# tests/unit/kernel/debug/unit.mk - symbol lookup (kernel/debug/ksyms.c) on a
# synthetic table (included by tests/unit/unit.mk).

UNIT_TESTS += tests/unit/kernel/debug/test_ksyms.c
unit_ksyms_SRCS := kernel/debug/ksyms.c
