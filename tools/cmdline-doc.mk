# cmdline-doc.mk - `make docs`: docs/cmdline.md from the key tables
# (included by the Makefile).
#
# $(BUILD)/cmdline-doc is tools/cmdline_doc.c compiled for the host with
# the kernel's own key tables, rules and parser, so the page says what the
# kernel does.  The unit test cmdline_doc (tests/unit/unit-cmdline.mk)
# fails when docs/cmdline.md is not what this writes.

CMDLINE_DOC_SRCS := tools/cmdline_doc.c kernel/init/cmdline.c kernel/init/cmdline_report.c \
	kernel/init/cmdline_keys.c kernel/init/cmdline_rules.c arch/x86_64/cmdline_keys.c kernel/lib/printf.c
CMDLINE_DOC      := $(BUILD)/cmdline-doc

$(CMDLINE_DOC): $(CMDLINE_DOC_SRCS) $(wildcard kernel/init/*.h tools/cmdline_doc.h) $(VERSION_H)
	@mkdir -p $(dir $@)
	$(quiet) HOSTCC $@
	$(Q)$(HOST_CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -I. -Iinclude \
		-Iarch/x86_64/include -I$(BUILD)/include -o $@ $(CMDLINE_DOC_SRCS)

.PHONY: docs
docs: $(CMDLINE_DOC)
	$(quiet) GEN docs/cmdline.md
	$(Q)$(CMDLINE_DOC) docs/cmdline.md
