/*
 * rawlock.c - the boot-time choice of raw lock discipline (rawlock.h).
 */
#include "kernel/ke/rawlock.h"

bool raw_lock_tas;

bool raw_lock_select(void)
{
	raw_lock_tas = arch_cpu_virtualized();
	return raw_lock_tas;
}

void raw_lock_set_test_and_set(bool tas)
{
	raw_lock_tas = tas;
}
