# tests/unit/tools/kprof/export/unit.mk - the host tool's exporters
# (included by tests/unit/unit.mk):
#   spill   the protobuf writer's external sort
#           (tools/kprof/export/perfetto/proto/spill.c) against qsort of
#           every element, over budgets from one element to all of them

UNIT_TESTS += tests/unit/tools/kprof/export/test_spill.c
unit_spill_SRCS := tools/kprof/export/perfetto/proto/spill.c tools/kprof/util/alloc.c

$(BUILD)/tests/unit/tools/kprof/export/test_spill: tools/kprof/export/perfetto/proto/spill.h \
	tools/kprof/export/protobuf/pb.h
