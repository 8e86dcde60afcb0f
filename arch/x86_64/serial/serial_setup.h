/*
 * serial_setup.h - arch-internal: bring up the serial console.
 */
#ifndef KPROF_ARCH_SERIAL_SETUP_H
#define KPROF_ARCH_SERIAL_SETUP_H

/* Find the console UART and register it (first thing at boot). */
void serial_setup_early(void);

#endif
