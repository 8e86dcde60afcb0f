# unit-acpi.mk - host unit tests of the ACPI table parsers (included by unit.mk).

unit_acpi_SRCS := kernel/acpi/tables.c kernel/acpi/fadt.c kernel/acpi/hpet.c kernel/acpi/spcr.c \
	kernel/acpi/mcfg.c kernel/lib/printf.c
unit_madt_SRCS := arch/x86_64/madt.c kernel/acpi/tables.c kernel/lib/printf.c

UNIT_NAMES += acpi madt
