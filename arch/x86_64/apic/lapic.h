/*
 * lapic.h - the local APIC: xAPIC (MMIO) or x2APIC (MSRs), chosen at run time.
 */
#ifndef KPROF_ARCH_LAPIC_H
#define KPROF_ARCH_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/madt.h"

/* Register offsets (xAPIC MMIO; x2APIC MSR = 0x800 + offset / 16). */
#define LAPIC_ID          0x020
#define LAPIC_VERSION     0x030
#define LAPIC_TPR         0x080
#define LAPIC_EOI         0x0B0
#define LAPIC_SVR         0x0F0
#define LAPIC_ESR         0x280
#define LAPIC_ICR_LO      0x300
#define LAPIC_ICR_HI      0x310
#define LAPIC_LVT_TIMER   0x320
#define LAPIC_LVT_THERMAL 0x330
#define LAPIC_LVT_PMC     0x340
#define LAPIC_LVT_LINT0   0x350
#define LAPIC_LVT_LINT1   0x360
#define LAPIC_LVT_ERROR   0x370
#define LAPIC_TIMER_INIT  0x380
#define LAPIC_TIMER_CUR   0x390
#define LAPIC_TIMER_DIV   0x3E0

#define LVT_MASKED        (1u << 16)
#define LVT_TIMER_PERIODIC (1u << 17)
#define LVT_TIMER_DEADLINE (2u << 17)

/* ICR delivery modes and shorthands. */
#define ICR_FIXED         (0u << 8)
#define ICR_NMI           (4u << 8)
#define ICR_INIT          (5u << 8)
#define ICR_STARTUP       (6u << 8)
#define ICR_LEVEL_ASSERT  (1u << 14)
#define ICR_LEVEL_TRIGGER (1u << 15)
#define ICR_SELF          (1u << 18)
#define ICR_ALL_BUT_SELF  (3u << 18)

/* Fixed vectors (their priority class is their IRQL, see arch/irql.h). */
#define VECTOR_DPC      0x2F /* DISPATCH_LEVEL */
#define VECTOR_CLOCK    0xD0 /* CLOCK_LEVEL    */
#define VECTOR_IPI      0xE0 /* IPI_LEVEL      */
#define VECTOR_PROFILE  0xF0 /* PROFILE_LEVEL  */
#define VECTOR_PMC      0xFD /* PROFILE_LEVEL  */
#define VECTOR_ERROR    0xFE
#define VECTOR_SPURIOUS 0xFF

/* Choose x2APIC when the CPU has it, map the xAPIC page otherwise. */
void lapic_init_bsp(const struct madt_info *madt);
/* Enable and program this CPU's local APIC (every CPU, BSP first). */
void lapic_init_cpu(const struct madt_info *madt, uint32_t acpi_uid);

bool lapic_is_x2apic(void);
uint32_t lapic_id(void);
uint32_t lapic_read(uint32_t reg);
void lapic_write(uint32_t reg, uint32_t v);
void lapic_eoi(void);
/* Send an IPI: icr_low holds the vector, delivery mode and shorthand. */
void lapic_send_ipi(uint32_t apic_id, uint32_t icr_low);
/* "xAPIC at 0xfee00000, version 0x14, 6 LVT entries" or the x2APIC form. */
const char *lapic_describe(void);

#endif /* KPROF_ARCH_LAPIC_H */
