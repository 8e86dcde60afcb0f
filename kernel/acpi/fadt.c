/*
 * fadt.c - the FADT ("FACP"): where the ACPI PM timer is, and how wide.
 *
 * The PM timer port comes from X_PM_TMR_BLK when the table is long enough
 * to have it and it names a non-zero SystemIO address, else from the
 * 32-bit PM_TMR_BLK.  There is no timer when PM_TMR_LEN is not 4 or the
 * platform is hardware-reduced.
 */
#include "kernel/acpi/acpi.h"

#include "kernel/lib/libk.h"
#include "kernel/lib/printf.h"


enum {
	FADT_PM_TMR_BLK     = 76,  /* u32: I/O port of the PM timer      */
	FADT_PM_TMR_LEN     = 91,  /* u8: 4 when the timer exists        */
	FADT_IAPC_BOOT_ARCH = 109, /* u16: legacy devices (ACPI 2.0+)    */
	FADT_FLAGS          = 112, /* u32: fixed feature flags           */
	FADT_MIN_LEN        = 116, /* ACPI 1.0 table: up to Flags        */
	FADT_X_PM_TMR_BLK   = 208, /* GAS: 64-bit PM timer block         */
};

#define FADT_TMR_VAL_EXT     (1u << 8)  /* 32-bit timer, else 24-bit  */
#define FADT_HW_REDUCED_ACPI (1u << 20) /* no fixed hardware          */

int acpi_parse_fadt(const void *table, uint32_t len, acpi_warn_fn warn, struct acpi_fadt_info *out)
{
	const uint8_t *t = table;
	uint32_t port, flags;
	struct acpi_gas x;

	memset(out, 0, sizeof(*out));
	if (!table || len < FADT_MIN_LEN) {
		acpi_warnf(warn, "acpi: FADT length %u is shorter than the %u bytes needed", len, (unsigned)FADT_MIN_LEN);
		return -1;
	}
	memcpy(&port, t + FADT_PM_TMR_BLK, 4);
	memcpy(&out->iapc_boot_arch, t + FADT_IAPC_BOOT_ARCH, 2);
	memcpy(&flags, t + FADT_FLAGS, 4);
	out->pm_timer_32bit = (flags & FADT_TMR_VAL_EXT) != 0;
	out->hw_reduced = (flags & FADT_HW_REDUCED_ACPI) != 0;

	if (len >= FADT_X_PM_TMR_BLK + sizeof(x)) {
		memcpy(&x, t + FADT_X_PM_TMR_BLK, sizeof(x));
		if (x.space_id == ACPI_GAS_IO && x.address != 0) {
			if (x.address <= 0xFFFF) {
				port = (uint32_t)x.address;
			} else {
				acpi_warnf(warn, "acpi: FADT X_PM_TMR_BLK 0x%llx is not an I/O port, using PM_TMR_BLK",
				      (unsigned long long)x.address);
			}
		}
	}
	if (t[FADT_PM_TMR_LEN] != 4 || out->hw_reduced)
		port = 0;
	out->pm_timer_port = port;
	return 0;
}
