# unit-cmdline.mk - the command line beyond the parser's own test
# (test_cmdline, synthetic tables, in unit.mk):
#   cmdline_keys   every registered key table (the subsystems' and the
#                  x86-64 one), as they boot
#   cmdline_rules  the one pass: every rule between keys, all problems at once
#   cmdline_doc    docs/cmdline.md is what tools/cmdline-doc/cmdline_doc.c writes from
#                  the tables (regenerate it with `make docs`)
#   cmdline_tables the registration (CMDLINE_TABLE) and its order, with
#                  synthetic tables
#   workload_registry the workloads' registry (WORKLOAD_DEFINE) and a
#                  workload's own keys and rule (WORKLOAD_KEYS), with
#                  synthetic workloads
# The architecture's table is compiled too, so <arch/cmdline.h> and
# <arch/dev/pmu.h> come from arch/x86_64/include, searched after the shadow
# headers (as in unit-pmu.mk).

CMDLINE_UNIT_SRCS := $(CMDLINE_PARSER_SRCS) # tools/cmdline-doc/cmdline-doc.mk: the parser and every table
unit_cmdline_keys_SRCS  := $(CMDLINE_UNIT_SRCS)
unit_cmdline_rules_SRCS := $(CMDLINE_UNIT_SRCS)
unit_cmdline_tables_SRCS := kernel/init/cmdline_tables.c kernel/init/cmdline.c kernel/init/cmdline_report.c \
	kernel/lib/printf.c
unit_cmdline_doc_SRCS   := $(CMDLINE_UNIT_SRCS) tools/cmdline-doc/cmdline_doc.c
unit_workload_registry_SRCS := $(CMDLINE_UNIT_SRCS)

CMDLINE_UNIT_BINS := $(addprefix $(BUILD)/tests/unit/test_,cmdline cmdline_keys cmdline_rules cmdline_doc \
	cmdline_tables workload_registry)
$(CMDLINE_UNIT_BINS): UNIT_CFLAGS += -Iarch/x86_64/include
$(CMDLINE_UNIT_BINS): $(wildcard kernel/init/*.h kernel/*/*_keys.h kernel/*/*/*_keys.h) arch/x86_64/include/arch/cmdline.h \
	kernel/lib/cmdline_key.h kernel/workloads/api/descriptor.h kernel/locks/spinlock_params.h kernel/profile/source.h kernel/trace/trace.h
$(BUILD)/tests/unit/test_cmdline_doc: UNIT_CFLAGS += -DCMDLINE_DOC_NO_MAIN \
	-DKPROF_CMDLINE_DOC='"$(CURDIR)/docs/cmdline.md"'
$(BUILD)/tests/unit/test_cmdline_doc: tools/cmdline-doc/cmdline_doc.h

UNIT_NAMES += cmdline_rules cmdline_doc cmdline_tables workload_registry
