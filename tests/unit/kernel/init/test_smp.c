/*
 * test_smp.c - CPU bring-up bookkeeping (kernel/init/smp.c): which CPUs are
 * started, numbering, what is reported for CPUs that are disabled, left
 * off by cpus=, beyond the supported number, or that never answer.
 * Started "CPUs" are host threads that run ki_processor_start().
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <arch/mmu.h>
#include <arch/smp.h>

#include "kernel/mm/pmm.h"
#include "kernel/init/smp.h"
#include "kernel/ke/time/time.h"
#include "shadow.h"

#define MiB (1ULL << 20)

static struct arch_cpu_entry cpus[8];
static uint32_t ncpus, beyond, fail_index = ~0u, finish_failed = 2;
static int prepare_rc;
static pthread_t threads[8];
static uint32_t nthreads;
static KPRCB boot;

uint32_t arch_cpu_list(const struct arch_cpu_entry **list, uint32_t *beyond_limit)
{
	*list = cpus;
	*beyond_limit = beyond;
	return ncpus;
}

int arch_smp_prepare(void)
{
	return prepare_rc;
}

void arch_smp_finish(bool some_failed)
{
	finish_failed = some_failed;
}

void arch_cpu_measure(KPRCB *prcb)
{
	prcb->TscHz = ke_tsc_hz + prcb->Number; /* a few ppm apart */
	prcb->TimerHz = 1000000000;
}

void ki_profile_source_start_cpu(void)
{
}

void ke_clock_start_cpu(void)
{
}

void shadow_idle(void)
{
	pthread_exit(NULL);
}

/* A started CPU's context becomes its idle thread: here its thread ends. */
void ki_idle_thread_start(KPRCB *prcb, uintptr_t stack_base, uintptr_t stack_top)
{
	(void)prcb;
	(void)stack_base;
	(void)stack_top;
	shadow_idle();
	abort();
}

static void *cpu_thread(void *arg)
{
	KPRCB *prcb = arg;
	arch_percpu_set(prcb);
	ki_processor_start(prcb);
	return NULL;
}

int arch_start_cpu(uint32_t index, KPRCB *prcb, uint64_t timeout_us)
{
	(void)timeout_us;
	if (index == fail_index)
		return -1;
	prcb->ArchId = cpus[index].hw_id;
	pthread_create(&threads[nthreads++], NULL, cpu_thread, prcb);
	return 0;
}

static void *ram;

static int setup(void **state)
{
	(void)state;
	static struct bootinfo bi;
	memset(&bi, 0, sizeof(bi));
	bi.mmap[0] = (struct bootinfo_mmap_entry){ 1 * MiB, 8 * MiB, BOOTINFO_MEM_USABLE, 0 };
	bi.mmap_count = 1;
	free(ram);
	ram = aligned_alloc(PAGE_SIZE, 8 * MiB);
	arch_hhdm_offset = (uint64_t)(uintptr_t)ram - 1 * MiB;
	pmm_init(&bi);
	ke_tsc_hz = 1000000000;
	shadow_console[0] = '\0';
	nthreads = 0;
	beyond = 0;
	fail_index = ~0u;
	prepare_rc = 0;
	ki_prcb_init(&boot, 0);
	arch_percpu_set(&boot);
	ki_processor_start_boot();
	return 0;
}

static void join_all(void)
{
	for (uint32_t i = 0; i < nthreads; i++)
		pthread_join(threads[i], NULL);
}

static void test_all_start(void **state)
{
	(void)state;
	ncpus = 4;
	for (uint32_t i = 0; i < 4; i++)
		cpus[i] = (struct arch_cpu_entry){ .hw_id = i * 2, .enabled = true };
	ke_start_processors(0);
	join_all();
	assert_int_equal(ke_number_processors, 4);
	assert_int_equal(ke_processors_online(), 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_non_null(KiProcessorBlock[i]);
		assert_int_equal(KiProcessorBlock[i]->Number, i);
		assert_ptr_equal(KiProcessorBlock[i]->Self, KiProcessorBlock[i]);
		assert_int_equal(KiProcessorBlock[i]->ArchId, i * 2);
	}
	assert_false(finish_failed);
	const char *line = strstr(shadow_console, "smp: 4 of 4 listed CPUs online in ");
	assert_non_null(line);
	unsigned ms;
	char tail[8] = "";
	/* Nothing left out: the line ends right after the time. */
	assert_int_equal(sscanf(line, "smp: 4 of 4 listed CPUs online in %u m%7[^\n]", &ms, tail), 2);
	assert_string_equal(tail, "s");
}

static void test_everything_that_can_go_wrong(void **state)
{
	(void)state;
	/* boot, 2 enabled, 1 disabled, 1 that never answers, 2 more enabled;
	 * cpus=4 leaves the last one off; 300 listed in all. */
	ncpus = 7;
	bool en[7] = { true, true, true, false, true, true, true };
	for (uint32_t i = 0; i < 7; i++)
		cpus[i] = (struct arch_cpu_entry){ .hw_id = 10 + i, .enabled = en[i] };
	fail_index = 4;
	beyond = 293;
	ke_start_processors(4);
	join_all();
	assert_int_equal(ke_number_processors, 4);
	assert_int_equal(ke_processors_online(), 4);
	assert_int_equal(KiProcessorBlock[3]->ArchId, 15); /* numbering skips the failed one */
	assert_true(finish_failed);
	assert_non_null(strstr(shadow_console, "smp: CPU with hw id 14 did not start within 500 ms; continuing without it"));
	assert_non_null(strstr(shadow_console, "smp: 4 of 300 listed CPUs online in "));
	assert_non_null(strstr(shadow_console, ", 1 disabled in firmware, 1 left off by cpus=4, 293 beyond the 256 "
					       "supported, 1 did not start\n"));
}

static void test_no_startup_code(void **state)
{
	(void)state;
	ncpus = 3;
	for (uint32_t i = 0; i < 3; i++)
		cpus[i] = (struct arch_cpu_entry){ .hw_id = i, .enabled = true };
	prepare_rc = -1;
	ke_start_processors(0);
	assert_int_equal(ke_number_processors, 1);
	assert_non_null(strstr(shadow_console, "smp: 1 of 3 listed CPUs online in "));
	assert_non_null(strstr(shadow_console, ", 2 left off"));
}

static void test_boot_cpu_report(void **state)
{
	(void)state;
	assert_non_null(strstr(shadow_console, "cpu 0: hw id 0 online, TSC 1000.000 MHz (+0 ppm from the boot CPU's), "
					       "APIC timer 1000.000 MHz\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_boot_cpu_report, setup),
		cmocka_unit_test_setup(test_all_start, setup),
		cmocka_unit_test_setup(test_everything_that_can_go_wrong, setup),
		cmocka_unit_test_setup(test_no_startup_code, setup),
	};
	return cmocka_run_group_tests_name("smp", tests, NULL, NULL);
}
