# tests/unit/tools/cmdline-doc/unit.mk - the command-line page's generator
# (included by tests/unit/unit.mk):
#   cmdline_doc   docs/cmdline.md is what tools/cmdline-doc/cmdline_doc.c
#                 writes from the tables (regenerate it with `make docs`),
#                 over the command line's parser and every table
#                 (CMDLINE_UNIT_*, tests/unit/unit.mk)

UNIT_TESTS += tests/unit/tools/cmdline-doc/test_cmdline_doc.c
unit_cmdline_doc_SRCS := $(CMDLINE_UNIT_SRCS) tools/cmdline-doc/cmdline_doc.c

$(BUILD)/tests/unit/tools/cmdline-doc/test_cmdline_doc: UNIT_CFLAGS += $(CMDLINE_UNIT_CFLAGS) -DCMDLINE_DOC_NO_MAIN \
	-DKPROF_CMDLINE_DOC='"$(CURDIR)/docs/cmdline.md"'
$(BUILD)/tests/unit/tools/cmdline-doc/test_cmdline_doc: $(CMDLINE_UNIT_HDRS) tools/cmdline-doc/cmdline_doc.h
