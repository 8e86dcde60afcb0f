# unit-user-event.mk - user event types and events (kernel/trace/
# user_event.c): the type record, the packed values, the bounds refused
# or cut.

unit_user_event_SRCS := kernel/trace/user_event.c kernel/lib/printf.c

UNIT_NAMES += user_event
