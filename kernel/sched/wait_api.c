/*
 * wait_api.c - the blocking calls: KeWaitForSingleObject,
 * KeWaitForMultipleObjects and KeDelayExecutionThread.
 *
 * Each raises to DISPATCH_LEVEL and takes the dispatcher lock, sets the
 * wait up (wait.c), and if it cannot be satisfied at once switches to
 * another thread; it returns when the wait has ended, with the status the
 * waker (a signal or the time-out) left in WaitStatus.
 */
#include "kernel/sched/ki.h"

#include "kernel/debug/panic.h"

NTSTATUS ke_wait_for_multiple_objects(uint32_t count, void *const objects[], WAIT_TYPE type, uint8_t wait_reason,
				      KPROCESSOR_MODE mode, uint64_t timeout_us, KWAIT_BLOCK *blocks)
{
	KTHREAD *t = ke_get_current_thread();

	if (count == 0 || count > MAXIMUM_WAIT_OBJECTS || (!blocks && count > THREAD_WAIT_OBJECTS) ||
	    (type != WaitAny && type != WaitAll))
		return STATUS_INVALID_PARAMETER;
	if (timeout_us && ke_get_current_irql() >= DISPATCH_LEVEL)
		ke_bug_check_ex(ke_is_executing_dpc() ? ATTEMPTED_SWITCH_FROM_DPC : IRQL_NOT_LESS_OR_EQUAL,
				ke_get_current_irql(), (uintptr_t)objects, 0, 0,
				"a wait that may block at IRQL %u (waits need IRQL below DISPATCH_LEVEL)",
				ke_get_current_irql());
	if (!blocks)
		blocks = t->WaitBlock;

	unsigned long flags;
	KIRQL old = ki_enter(&flags);
	NTSTATUS st = ki_wait_setup(t, count, objects, type, wait_reason, mode, timeout_us, blocks);
	if (st == STATUS_PENDING) {
		ki_block_current();
		st = t->WaitStatus;
	}
	ki_leave(old, flags);
	return st;
}

NTSTATUS ke_wait_for_single_object(void *object, uint8_t wait_reason, KPROCESSOR_MODE mode, uint64_t timeout_us)
{
	void *objects[1] = { object };
	return ke_wait_for_multiple_objects(1, objects, WaitAny, wait_reason, mode, timeout_us, NULL);
}

NTSTATUS ke_delay_execution_thread(uint64_t us)
{
	KTHREAD *t = ke_get_current_thread();
	unsigned long flags;
	KIRQL old = ki_enter(&flags);

	/* A wait on nothing: only the time-out can end it. */
	t->WaitBlockList = t->WaitBlock;
	t->WaitCount = 0;
	NTSTATUS st = ki_wait_setup(t, 0, NULL, WaitAny, WrDelayExecution, KernelMode, us ? us : 1, t->WaitBlock);
	if (st == STATUS_PENDING) {
		ki_block_current();
		st = t->WaitStatus;
	}
	ki_leave(old, flags);
	return st == STATUS_TIMEOUT ? STATUS_SUCCESS : st;
}
