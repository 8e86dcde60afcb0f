# tests/unit/kernel/acpi/unit.mk - the ACPI table walk and parsers
# (kernel/acpi/) on synthetic tables (included by tests/unit/unit.mk).

UNIT_TESTS += tests/unit/kernel/acpi/test_acpi.c
unit_acpi_SRCS := kernel/acpi/tables.c kernel/acpi/fadt.c kernel/acpi/hpet.c kernel/acpi/spcr.c \
	kernel/acpi/mcfg.c kernel/lib/printf.c
