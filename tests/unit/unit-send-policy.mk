# unit-send-policy.mk - when the stream-mode trace logger sends and at which
# priority (kernel/trace/send_policy.c).

unit_send_policy_SRCS := kernel/trace/send_policy.c

$(BUILD)/tests/unit/test_send_policy: kernel/trace/send_policy.h kernel/trace/tracebuf.h

UNIT_NAMES += send_policy
