# unit-send-policy.mk - when the stream-mode trace logger sends and at which
# priority (kernel/trace/out/send_policy.c).

unit_send_policy_SRCS := kernel/trace/out/send_policy.c

$(BUILD)/tests/unit/test_send_policy: kernel/trace/out/send_policy.h kernel/trace/tracebuf.h

UNIT_NAMES += send_policy
