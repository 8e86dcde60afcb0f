# tests/unit/tools/kprof/export/protobuf/unit.mk - the Protocol Buffers
# encoder (included by tests/unit/unit.mk):
#   pb   tools/kprof/export/protobuf/pb.c against the wire format's own
#        worked examples, nesting past a one-byte length, packed fields

UNIT_TESTS += tests/unit/tools/kprof/export/protobuf/test_pb.c
unit_pb_SRCS := tools/kprof/export/protobuf/pb.c tools/kprof/util/alloc.c

$(BUILD)/tests/unit/tools/kprof/export/protobuf/test_pb: tools/kprof/export/protobuf/pb.h
