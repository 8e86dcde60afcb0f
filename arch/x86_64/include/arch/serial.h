/*
 * arch/serial.h - the serial port shared by console text and trace frames.
 */
#ifndef KPROF_ARCH_SERIAL_H
#define KPROF_ARCH_SERIAL_H

#include <stdbool.h>
#include <stddef.h>

/* True once a UART answered and was registered as a console sink. */
bool arch_serial_present(void);

/* Raw bytes (no newline translation), for binary trace frames.  Callers
 * hold the console lock so frames never split a text line. */
void arch_serial_write_raw(const void *data, size_t n);

/* One line naming the port, e.g. "16550 at I/O 0x3f8, 115200 baud". */
const char *arch_serial_describe(void);

#endif /* KPROF_ARCH_SERIAL_H */
