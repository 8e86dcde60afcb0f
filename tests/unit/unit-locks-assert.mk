# unit-locks-assert.mk - the spin locks' asserted invariants
# (kernel/locks/queuedlock.c, spinlock.c), each broken on purpose: the bug
# check fires.

unit_locks_assert_SRCS = $(unit_locks_SRCS)

UNIT_NAMES += locks_assert
$(BUILD)/tests/unit/test_locks_assert: kernel/debug/kassert.h
