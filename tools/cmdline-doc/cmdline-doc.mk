# cmdline-doc.mk - `make docs`: docs/cmdline.md from the key tables
# (included by the Makefile).
#
# $(BUILD)/cmdline-doc is tools/cmdline-doc/cmdline_doc.c compiled for the host with
# the kernel's own key tables, rules and parser, so the page says what the
# kernel does.  The unit test cmdline_doc (tests/unit/tools/cmdline-doc/unit.mk)
# fails when docs/cmdline.md is not what this writes.

# Every subsystem's table of keys: the *_keys.c files (each registers its
# table with CMDLINE_TABLE, kernel/lib/cmdline_key.h); the unit tests of
# the command line link the same list (CMDLINE_UNIT_SRCS, tests/unit/unit.mk).
CMDLINE_KEY_SRCS := $(sort $(shell find kernel -name '*_keys.c')) arch/x86_64/cmdline_keys.c
CMDLINE_PARSER_SRCS := kernel/workloads/registry.c kernel/init/cmdline.c kernel/init/cmdline_report.c kernel/init/cmdline_tables.c \
	kernel/init/cmdline_rules.c kernel/lib/printf.c $(CMDLINE_KEY_SRCS)
CMDLINE_DOC_SRCS := tools/cmdline-doc/cmdline_doc.c $(CMDLINE_PARSER_SRCS)
CMDLINE_DOC      := $(BUILD)/cmdline-doc

$(CMDLINE_DOC): $(CMDLINE_DOC_SRCS) $(wildcard kernel/init/*.h kernel/*/*_keys.h kernel/*/*/*_keys.h tools/cmdline-doc/cmdline_doc.h) \
	kernel/lib/cmdline_key.h $(VERSION_H)
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(HOST_CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -I. -Iinclude \
		-Iarch/x86_64/include -I$(BUILD)/include -o $@ $(CMDLINE_DOC_SRCS)

# WORKLOADS=DIR...: the same generator linked with the folders' files of
# keys writes $(BUILD)/cmdline.md, the page with their keys too
# (docs/cmdline.md keeps the kernel's own; docs/workloads.md).
WORKLOADS_DOC_GEN := $(BUILD)/cmdline-doc-workloads
$(WORKLOADS_DOC_GEN): $(CMDLINE_DOC_SRCS) $(WORKLOAD_KEY_SRCS) $(WORKLOADS_OK) $(WORKLOADS_CFG) \
	$(wildcard kernel/init/*.h kernel/*/*_keys.h kernel/*/*/*_keys.h tools/cmdline-doc/cmdline_doc.h) kernel/lib/cmdline_key.h $(VERSION_H)
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(HOST_CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -I. -Iinclude \
		-Iarch/x86_64/include -I$(BUILD)/include $(addprefix -I,$(WORKLOAD_DIRS)) -o $@ $(CMDLINE_DOC_SRCS) \
		$(WORKLOAD_KEY_SRCS)

.PHONY: docs
docs: $(CMDLINE_DOC) $(if $(WORKLOAD_KEY_SRCS),$(WORKLOADS_DOC_GEN))
	$(quiet) GEN docs/cmdline.md
	$(Q)$(CMDLINE_DOC) docs/cmdline.md
ifneq ($(WORKLOAD_KEY_SRCS),)
	$(quiet) GEN $(BUILD)/cmdline.md
	$(Q)$(WORKLOADS_DOC_GEN) $(BUILD)/cmdline.md
endif
