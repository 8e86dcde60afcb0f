/*
 * record.h - how scenario=noise writes its records (record.c): with
 * trace=clock, or else with the thread names, as the SMI count.
 */
#ifndef KPROF_KERNEL_NOISE_RECORD_H
#define KPROF_KERNEL_NOISE_RECORD_H

#include <stdint.h>

/* Write one of the workload's records (KprofNoiseGap, KprofNoiseScan,
 * KprofTimerLatency). */
void noise_log(uint16_t hook, uint8_t version, const void *k, uint16_t size);

#endif /* KPROF_KERNEL_NOISE_RECORD_H */
