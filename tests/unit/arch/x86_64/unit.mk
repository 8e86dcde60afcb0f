# tests/unit/arch/x86_64/unit.mk - the unit tests of arch/x86_64/ (included
# by tests/unit/unit.mk):
#   madt   the MADT parser (arch/x86_64/madt.c) on synthetic tables

UNIT_TESTS += tests/unit/arch/x86_64/test_madt.c
unit_madt_SRCS := arch/x86_64/madt.c kernel/acpi/tables.c kernel/lib/printf.c
