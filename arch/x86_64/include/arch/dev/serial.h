/*
 * arch/dev/serial.h - the serial port shared by console text and trace frames.
 */
#ifndef KPROF_ARCH_SERIAL_H
#define KPROF_ARCH_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True once a UART answered and was registered as a console sink. */
bool arch_serial_present(void);

/* Raw bytes (no newline translation), for binary trace frames.  Callers
 * hold the console lock so frames never split a text line. */
void arch_serial_write_raw(const void *data, size_t n);

/* One line naming the port, e.g. "16550 at I/O 0x3f8, 115200 baud". */
const char *arch_serial_describe(void);

/* What reaching the port costs, in TSC cycles (medians over a few
 * rounds): one status read, one register write, and one string write of
 * *string_bytes bytes (port I/O: "rep outsb"; under a hypervisor the
 * first two are one VM exit each).  Nothing is sent.  False without a
 * port.  Thread context, interrupts as they are. */
bool arch_serial_measure(uint64_t *read, uint64_t *write, uint64_t *string, uint32_t *string_bytes);

#endif /* KPROF_ARCH_SERIAL_H */
