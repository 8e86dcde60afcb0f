# tests/unit/kernel/init/unit.mk - the command line and the CPUs' bring-up
# (included by tests/unit/unit.mk):
#   cmdline        the parser (kernel/init/cmdline.c) against synthetic key
#                  tables, and the lists it wraps (cmdline_report.c)
#   cmdline_keys   every registered key table (the subsystems' and the
#                  x86-64 one), as they boot
#   cmdline_rules  the one pass: every rule between keys, all problems at once
#   cmdline_tables the registration (CMDLINE_TABLE) and its order, with
#                  synthetic tables
#   smp            CPU bring-up bookkeeping (kernel/init/smp.c), host
#                  threads as the CPUs started
# The tests of the command line compile the architecture's key table too
# (CMDLINE_UNIT_CFLAGS, tests/unit/unit.mk).

UNIT_TESTS += $(addprefix tests/unit/kernel/init/test_,cmdline.c cmdline_keys.c cmdline_rules.c cmdline_tables.c smp.c)

unit_cmdline_SRCS       := kernel/init/cmdline.c kernel/init/cmdline_tables.c kernel/init/cmdline_report.c kernel/lib/printf.c
unit_cmdline_keys_SRCS  := $(CMDLINE_UNIT_SRCS)
unit_cmdline_rules_SRCS := $(CMDLINE_UNIT_SRCS)
unit_cmdline_tables_SRCS := kernel/init/cmdline_tables.c kernel/init/cmdline.c kernel/init/cmdline_report.c \
	kernel/lib/printf.c
unit_smp_SRCS           := kernel/init/smp.c kernel/sched/readyq.c kernel/mm/pmm.c kernel/ke/dpc.c kernel/ke/irql.c \
	kernel/ke/time/time.c kernel/lib/muldiv.c kernel/lib/printf.c

INIT_CMDLINE_UNIT_BINS := $(addprefix $(BUILD)/tests/unit/kernel/init/test_,cmdline cmdline_keys cmdline_rules cmdline_tables)
$(INIT_CMDLINE_UNIT_BINS): UNIT_CFLAGS += $(CMDLINE_UNIT_CFLAGS)
$(INIT_CMDLINE_UNIT_BINS): $(CMDLINE_UNIT_HDRS)
