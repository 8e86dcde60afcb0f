/*
 * bugcheck.h - stop codes, named and numbered as the Windows bug checks
 * they correspond to, so a reader recognises what kind of failure it is.
 */
#ifndef KPROF_KERNEL_BUGCHECK_H
#define KPROF_KERNEL_BUGCHECK_H

#define IRQL_NOT_GREATER_OR_EQUAL   0x00000009u /* raise to a lower IRQL          */
#define IRQL_NOT_LESS_OR_EQUAL      0x0000000Au /* lower to a higher IRQL         */
#define SPIN_LOCK_ALREADY_OWNED     0x0000000Fu /* recursive spin lock acquire    */
#define SPIN_LOCK_NOT_OWNED         0x00000010u /* release of a lock not held     */
#define KMODE_EXCEPTION_NOT_HANDLED 0x0000001Eu /* a CPU exception in the kernel  */
#define PAGE_FAULT_IN_NONPAGED_AREA 0x00000050u /* page fault on an unmapped page */
#define UNEXPECTED_KERNEL_MODE_TRAP 0x0000007Fu /* double fault, NMI, #MC         */
#define ATTEMPTED_SWITCH_FROM_DPC   0x000000B8u /* wait or switch inside a DPC    */
#define MANUALLY_INITIATED_CRASH    0x000000E2u /* selftest=panic                 */
#define RESOURCE_NOT_OWNED          0x000000E3u /* ERESOURCE release by non-owner */
#define KPROF_ASSERTION_FAILED      0x4B500001u /* KASSERT() failed (kprof's own) */
#define KPROF_OUT_OF_MEMORY         0x4B500002u /* a boot-time allocation failed  */
#define KPROF_BAD_BOOTINFO          0x4B500003u /* loader hand-off unusable       */
#define KPROF_LOCK_ORDER            0x4B500004u /* raw lock out of order (locking.md) */

const char *bugcheck_name(unsigned code);

#endif /* KPROF_KERNEL_BUGCHECK_H */
