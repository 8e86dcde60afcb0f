/*
 * uart16550.h - a 16550-compatible UART reached through port I/O or MMIO.
 */
#ifndef KPROF_ARCH_UART16550_H
#define KPROF_ARCH_UART16550_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum uart_space { UART_SPACE_PIO, UART_SPACE_MMIO };

struct uart16550 {
	enum uart_space space; /* port I/O or memory-mapped              */
	uint64_t base;         /* port number, or physical MMIO address  */
	volatile uint8_t *mmio;/* mapped registers when space is MMIO    */
	uint32_t stride;       /* bytes between registers (1, 4)         */
	uint32_t width;        /* access width in bytes (1 or 4)         */
	uint32_t baud;         /* programmed rate; 0 = left as found     */
	uint32_t fifo_depth;   /* bytes per THRE wait: 16 with FIFO, else 1 */
};

/* True if a UART answers at the given address (scratch register test). */
bool uart_probe(struct uart16550 *u);
/* 8N1 at u->baud (0: keep the divisor), FIFOs on, interrupts off. */
void uart_init(struct uart16550 *u);
/* Blocking write of raw bytes, pacing on the transmitter-empty bit. */
void uart_write(struct uart16550 *u, const void *data, size_t n);

/* What one access to the UART costs, in TSC cycles (medians): a read of
 * LSR, a write to the scratch register, and a "rep outsb" of `string`
 * bytes to it.  Nothing is sent (the scratch register only keeps its last
 * byte, and is restored).  Under a hypervisor every access is a VM exit;
 * the string shows whether one exit moves the whole string or one byte. */
struct uart_cost {
	uint64_t lsr_read, scr_write, string; /* cycles                    */
	uint32_t string_bytes;                /* bytes in the string write */
};
void uart_measure(struct uart16550 *u, struct uart_cost *c);

#endif /* KPROF_ARCH_UART16550_H */
