/*
 * model_invariants.c - harness for tests/tools/test_model_invariants:
 * the model's asserted invariants (tools/kprof/model/invariants.c).
 *
 *   model_invariants made CASE     check a model made here by hand:
 *                                  "ok" keeps every invariant, each other
 *                                  CASE breaks one (spoil_made below)
 *   model_invariants log PATH      build the model of a real log; prints
 *                                  how often kp_model_build checked it
 *   model_invariants broken PATH   the same, with the model's first
 *                                  switching CPU's busy time off by one
 *                                  just before kp_model_build checks it
 *
 * Linked with -Wl,--wrap=kp_model_check, so the call in kp_model_build
 * lands in __wrap_kp_model_check below, which counts it (and for
 * "broken" spoils the model) before the real check.  A broken invariant
 * ends the program in abort() with the tool's message on stderr.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/kprof/model/model.h"
#include "tools/kprof/read/log.h"

void __real_kp_model_check(const struct kp_model *m);

static int checks;
static int spoil;

void __wrap_kp_model_check(const struct kp_model *m)
{
	checks++;
	for (uint32_t i = 0; spoil && i < m->ncpus; i++)
		if (m->cpu[i].switches) {
			((struct kp_model *)m)->cpu[i].busy += 1;
			break;
		}
	__real_kp_model_check(m);
}

/* One CPU over [1000, 2000): thread 5 runs [1000, 1400), the idle thread
 * [1400, 2000) with 50 cycles stalled and 50 in a hole: busy 400, idle
 * 500.  Thread 5 has 400 cycles, thread 0 500 and 50 stalled. */
static struct kp_run runs[2];
static struct kp_model_thread threads[2];
static struct kp_model_cpu cpu;
static struct kp_model model;

static void make(void)
{
	runs[0] = (struct kp_run){ .start = 1000, .end = 1400, .tid = 5 };
	runs[1] = (struct kp_run){ .start = 1400, .end = 2000, .tid = 0, .stalled = 50, .no_trace = 50 };
	cpu = (struct kp_model_cpu){ .any = true, .runs = runs, .nruns = 2, .switches = 1, .busy = 400, .idle = 500,
				     .stalled = 50, .no_trace = 50 };
	threads[0] = (struct kp_model_thread){ .tid = 0, .cycles = 500, .stalled = 50 };
	threads[1] = (struct kp_model_thread){ .tid = 5, .cycles = 400 };
	model = (struct kp_model){ .ncpus = 1, .cpu = &cpu, .threads = threads, .nthreads = 2, .any = true,
				   .begin = 1000, .end = 2000 };
}

/* Break the made model as CASE says; false for an unknown CASE. */
static bool spoil_made(const char *name)
{
	if (!strcmp(name, "ok"))
		return true;
	else if (!strcmp(name, "busy"))
		cpu.busy += 1;                /* the span equation */
	else if (!strcmp(name, "no_trace"))
		cpu.no_trace = 0;
	else if (!strcmp(name, "first_run"))
		runs[0].start = 1001;         /* runs over exactly the trace */
	else if (!strcmp(name, "last_run"))
		runs[1].end = 1999;
	else if (!strcmp(name, "runs_apart"))
		runs[1].start = 1401;         /* end to end */
	else if (!strcmp(name, "no_runs"))
		cpu.nruns = 0;                /* switches but no schedule */
	else if (!strcmp(name, "thread_time"))
		threads[1].cycles = 407;      /* threads against CPUs */
	else if (!strcmp(name, "thread_stalled"))
		threads[0].stalled = 0;
	else
		return false;
	return true;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "made")) {
		make();
		if (!spoil_made(argv[2])) {
			fprintf(stderr, "model_invariants: no case %s\n", argv[2]);
			return 2;
		}
		kp_model_check(&model);
		printf("model %s: consistent\n", argv[2]);
		return 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "log") || !strcmp(argv[1], "broken"))) {
		struct kp_log log;
		struct kp_model m;
		if (kp_log_read(argv[2], &log)) {
			perror(argv[2]);
			return 2;
		}
		spoil = !strcmp(argv[1], "broken");
		kp_model_build(&m, &log);
		printf("model of %s: %u switching CPUs, checked %d time(s)\n", argv[2], m.switching_cpus, checks);
		kp_model_free(&m);
		kp_log_free(&log);
		return 0;
	}
	fprintf(stderr, "usage: model_invariants made CASE | log PATH | broken PATH\n");
	return 2;
}
